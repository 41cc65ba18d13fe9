"""Fixtures for the live-play tests: players, test settings (fixed deals, no bot pause, no polling)."""

import pytest
from channels.layers import channel_layers

from games.delivery import events
from tests.games import helpers


@pytest.fixture(autouse=True)
def _live_play_settings(settings):
    settings.GAMES_TEST_DEAL_SEED = "live-play-tests"
    settings.GAMES_BOT_DELAY_SECONDS = 0
    settings.GAMES_STATE_POLL_SECONDS = 0
    # The test database's connections live on the test's own thread; the end-to-end test runs the
    # thread pool of PostgreSQL sites in a real daphne.
    settings.GAMES_DB_PARALLEL = False
    # Signing up players is not what these tests measure.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _same_test_players():
    # The test players' choices do not depend on which tests ran before.
    helpers._RNG.seed(5)


@pytest.fixture(autouse=True)
def _fresh_channel_layer():
    # Each async test runs in its own event loop; a layer made in an earlier loop must not be reused.
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def _no_frames_of_earlier_tests():
    # What this process sent each group (for delta frames) belongs to tables of earlier tests, which may
    # have had the same ids.
    events._last_sent.clear()


@pytest.fixture
def players(django_user_model):
    """Four signed-up players: anna, ben, cleo, dora."""
    return [django_user_model.objects.create_user(name, f"{name}@example.org", "pw-" + name * 2)
            for name in ("anna", "ben", "cleo", "dora")]


@pytest.fixture
def spectator(django_user_model):
    return django_user_model.objects.create_user("sven", "sven@example.org", "pw-svensven")
