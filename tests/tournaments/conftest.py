"""Fixtures for whole tournaments played through the services: staff, players, short matches."""

import pytest

from tests.games import helpers


@pytest.fixture(autouse=True)
def _tournament_settings(settings):
    settings.GAMES_TEST_DEAL_SEED = "tournament-tests"
    settings.GAMES_BOT_DELAY_SECONDS = 0
    settings.GAMES_STATE_POLL_SECONDS = 0
    settings.GAMES_DB_PARALLEL = False
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Lists of one or two rounds keep a whole tournament quick; staff choose 6, 12, 18 or 24.
    settings.TOURNAMENTS_ROMME_ROUNDS = (1, 2, 6, 12, 18, 24)
    helpers._RNG.seed(5)


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("leitung", "leitung@example.org", "pw", is_staff=True)


@pytest.fixture
def make_players(django_user_model):
    def make(n):
        return [django_user_model.objects.create_user(f"p{i:02d}", f"p{i:02d}@example.org", "pw")
                for i in range(1, n + 1)]
    return make
