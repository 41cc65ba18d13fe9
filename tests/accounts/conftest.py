"""Players and signed-in clients for the account tests."""

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.cache import cache

PASSWORD = "Herz-Dame-42!"


@pytest.fixture(autouse=True)
def fresh_rate_limits(db):
    # allauth counts sign-ups and failed sign-ins in the cache; each test starts with a clean slate. The cache
    # is a table in the database (ginsite/settings.py CACHES) without Redis.
    cache.clear()
    yield
    cache.clear()


def make_player(username: str = "anna", email: str | None = None, *, verified: bool = True, **extra):
    email = email or f"{username}@example.com"
    user = get_user_model().objects.create_user(username=username, email=email, password=PASSWORD, **extra)
    EmailAddress.objects.create(user=user, email=email, verified=verified, primary=True)
    return user


@pytest.fixture
def player(db):
    return make_player()


@pytest.fixture
def signed_in(client, player):
    client.force_login(player)
    return client
