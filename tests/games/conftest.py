"""Fixtures for the live-play tests: test settings (fixed deals, no bot pause, no polling), a spectator; the
players are the suite's (tests/conftest.py)."""

import pytest
from channels.layers import channel_layers

from games.delivery import events
from tests.factories import UserFactory
from tests.play import play_settings


@pytest.fixture(autouse=True)
def _live_play_settings(settings, request):
    play_settings(settings, request, seed="live-play-tests")


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
def spectator(db):
    return UserFactory(username="sven")
