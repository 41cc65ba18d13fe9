"""Fixtures for whole tournaments played through the services: test settings, short matches, many players;
``players`` and ``staff`` are the suite's (tests/conftest.py)."""

import pytest

from tests.factories import users
from tests.play import play_settings


@pytest.fixture(autouse=True)
def _tournament_settings(settings, request):
    play_settings(settings, request, seed="tournament-tests")
    # Lists of one or two rounds keep a whole tournament quick; staff choose 6, 12, 18 or 24.
    settings.TOURNAMENTS_ROMME_ROUNDS = (1, 2, 6, 12, 18, 24)


@pytest.fixture
def make_players(db):
    def make(n):
        return users(*(f"p{i:02d}" for i in range(1, n + 1)))
    return make
