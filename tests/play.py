"""The settings of the tests that play matches, set in one place: fixed deals, no computer pause, no polling,
the database calls on the test's own thread. Each folder's conftest applies them to its tests; a module or a
test names its own deal seed with ``@pytest.mark.deal_seed("...")`` (the cards its cases were written for)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TypeVar

import pytest

T = TypeVar("T")


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


def bots_without_slips(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every game's bots play by their heuristics alone, never slipping (tests/conftest.py says why)."""
    from games import registry

    for entry in registry.entries():
        slips = getattr(getattr(entry, "bots", None), "SLIPS", None)
        for level in slips or ():
            monkeypatch.setitem(slips, level, 0.0)


@contextlib.contextmanager
def _as_a_test_plays(*, seed: str, players: int, **extra: object) -> Iterator[None]:
    """What a test of a playing folder has on: the play settings (deal seed ``seed``, test players' seed
    ``players``), the site's language, no analysis on the clock, bots without slips; and ``extra`` settings."""
    from django.test.utils import override_settings
    from django.utils import translation

    from tests.games import helpers

    translation.deactivate()
    helpers._RNG.seed(players)
    with override_settings(GAMES_TEST_DEAL_SEED=seed, GAMES_BOT_DELAY_SECONDS=0, GAMES_STATE_POLL_SECONDS=0,
                           GAMES_DB_PARALLEL=False, GAMES_ANALYSIS_SECONDS=0, **extra), \
            pytest.MonkeyPatch.context() as patch:
        bots_without_slips(patch)
        yield


def rows_kept_for_the_scope(django_db_blocker, make: Callable[[], T], *, seed: str, players: int = 5) -> Iterator[T]:
    """For a module- or class-scoped fixture (``yield from``): what ``make`` writes (matches played out, say),
    made once for the scope's tests instead of once per test. ``make`` runs as a test of this folder would play
    (``_as_a_test_plays``). Its rows live in a transaction rolled back when the scope ends; each test still
    runs in its own savepoint inside it (pytest-django), so what a test writes is gone before the next one and
    every test starts from the rows ``make`` left."""
    from django.db import transaction

    with django_db_blocker.unblock():
        scope = transaction.atomic()
        scope.__enter__()
        try:
            with _as_a_test_plays(seed=seed, players=players):
                made = make()
        except BaseException:
            transaction.set_rollback(True)
            scope.__exit__(None, None, None)
            raise
    try:
        yield made
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            scope.__exit__(None, None, None)


def rows_committed_for_the_scope(django_db_blocker, make: Callable[[], T], *, seed: str, players: int = 5,
                                 **extra: object) -> Iterator[T]:
    """As :func:`rows_kept_for_the_scope`, for what only committed rows make: ``make`` runs outside any
    transaction, so what waits for a commit runs (a match's end, announced after its fan-out, ends a
    tournament's table). The scope's tests must not be transactional (each runs in a transaction rolled back,
    pytest-django's ``django_db``); when the scope ends the database is flushed, as after a transactional test."""
    from django.core.management import call_command

    try:
        with django_db_blocker.unblock(), _as_a_test_plays(seed=seed, players=players, **extra):
            made = make()
        yield made
    finally:
        with django_db_blocker.unblock():
            call_command("flush", interactive=False, verbosity=0)
