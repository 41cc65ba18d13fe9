"""The settings of the tests that play matches, set in one place: fixed deals, no computer pause, no polling,
the database calls on the test's own thread. Each folder's conftest applies them to its tests; a module or a
test names its own deal seed with ``@pytest.mark.deal_seed("...")`` (the cards its cases were written for)."""

from __future__ import annotations

import pytest


def play_settings(settings, request: pytest.FixtureRequest, *, seed: str) -> None:
    """Apply the settings; ``seed`` is the folder's deal seed, which a ``deal_seed`` mark replaces. The mark's
    ``players`` is the seed of the test players' choices (``tests.games.helpers``), 5 unless it says."""
    from tests.games import helpers

    mark = request.node.get_closest_marker("deal_seed")
    settings.GAMES_TEST_DEAL_SEED = mark.args[0] if mark else seed
    settings.GAMES_BOT_DELAY_SECONDS = 0
    settings.GAMES_STATE_POLL_SECONDS = 0
    # The test database's connections live on the test's own thread; the end-to-end tests run the thread
    # pool of PostgreSQL sites in a real daphne.
    settings.GAMES_DB_PARALLEL = False
    # The test players' choices do not depend on which tests ran before.
    helpers._RNG.seed(mark.kwargs.get("players", 5) if mark else 5)
