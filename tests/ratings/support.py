"""What the ratings tests share (fixtures are declared in each test module, so the other tests of this
folder stay free to have their own): test settings for live play and four signed-up people."""

from __future__ import annotations


def live_play_settings(settings) -> None:
    """As the games tests: fixed deals, no computer pause, fast password hashing."""
    from tests.games import helpers

    settings.GAMES_TEST_DEAL_SEED = "ratings-tests"
    settings.GAMES_BOT_DELAY_SECONDS = 0
    settings.GAMES_STATE_POLL_SECONDS = 0
    settings.GAMES_DB_PARALLEL = False
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    helpers._RNG.seed(5)


def four_players(django_user_model) -> list:
    """anna, ben, cleo, dora."""
    return [
        django_user_model.objects.create_user(name, f"{name}@example.org", "pw-" + name * 2)
        for name in ("anna", "ben", "cleo", "dora")
    ]
