"""Sign-in attempts are limited per account and per address (allauth's own rate limits, ginsite/settings.py):
5 failed sign-ins in 5 minutes lock the account's sign-in, even for the right password and from another
address; 10 failed sign-ins a minute lock the address, whichever accounts it tries; 30 sign-in requests a
minute from one address get allauth's 429 page."""

from __future__ import annotations

from django.conf import settings
from django.test import Client
from django.urls import reverse

from tests.accounts.conftest import PASSWORD, make_player

LOCKED = "Zu viele gescheiterte Anmeldeversuche"


def sign_in(client: Client, login: str, password: str, *, address: str = "203.0.113.7"):
    return client.post(reverse("account_login"), {"login": login, "password": password}, REMOTE_ADDR=address)


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_the_limits_are_configured_per_address_and_per_account():
    limits = settings.ACCOUNT_RATE_LIMITS
    assert limits["login_failed"] == "10/m/ip,5/300s/key"
    assert limits["login"] == "30/m/ip"


def test_the_sixth_failed_attempt_for_an_account_is_refused(client, player):
    for attempt in range(5):
        response = sign_in(client, "anna", f"falsch-{attempt}")
        assert response.status_code == 200 and LOCKED not in response.content.decode()
    response = sign_in(client, "anna", "falsch-5")
    assert LOCKED in response.content.decode()
    assert not signed_in(client)


def test_the_right_password_within_the_window_is_still_refused_for_that_account(client, player):
    for attempt in range(5):
        sign_in(client, "anna", f"falsch-{attempt}")
    response = sign_in(client, "anna", PASSWORD)
    assert LOCKED in response.content.decode() and not signed_in(client)
    # ... from another address too: the lock is the account's, not the attacker's address.
    elsewhere = Client()
    response = sign_in(elsewhere, "anna", PASSWORD, address="198.51.100.9")
    assert LOCKED in response.content.decode() and not signed_in(elsewhere)
    # ... and by e-mail address, the account's other name.
    response = sign_in(elsewhere, "anna@example.com", PASSWORD, address="198.51.100.10")
    assert not signed_in(elsewhere)


def test_a_locked_account_does_not_lock_the_others(client, player):
    make_player("ben")
    for attempt in range(5):
        sign_in(client, "anna", f"falsch-{attempt}")
    response = sign_in(client, "ben", PASSWORD, address="198.51.100.20")
    assert response.status_code == 302 and signed_in(client)


def test_ten_failed_attempts_from_one_address_lock_that_address_for_every_account(client, db):
    for name in ("anna", "ben", "cleo"):
        make_player(name)
    for attempt in range(10):  # spread over the accounts, so that no account reaches its own limit
        sign_in(client, ("anna", "ben", "cleo")[attempt % 3], f"falsch-{attempt}")
    other = Client()
    response = sign_in(other, "cleo", PASSWORD)
    assert LOCKED in response.content.decode() and not signed_in(other)
    # Another address signs in as usual.
    response = sign_in(other, "cleo", PASSWORD, address="198.51.100.30")
    assert response.status_code == 302 and signed_in(other)


def test_a_flood_of_sign_in_requests_from_one_address_gets_the_429_page(client, db):
    statuses = [sign_in(client, f"nobody{n}", "x").status_code for n in range(31)]
    assert 429 not in statuses[:30]
    assert statuses[30] == 429
    page = client.post(reverse("account_login"), {"login": "x", "password": "y"}, REMOTE_ADDR="203.0.113.7")
    assert page.status_code == 429
    assert "429" in page.content.decode() and "Zu viele Versuche" in page.content.decode()


def test_behind_a_trusted_proxy_the_client_address_is_counted(client, db, settings):
    settings.ALLAUTH_TRUSTED_PROXY_COUNT = 1
    for name in ("anna", "ben", "cleo"):
        make_player(name)
    for attempt in range(10):
        client.post(reverse("account_login"), {"login": ("anna", "ben", "cleo")[attempt % 3], "password": "f"},
                    REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.50")
    # The attacker behind the proxy is locked; another client behind the same proxy is not.
    other = Client()
    response = other.post(reverse("account_login"), {"login": "cleo", "password": PASSWORD},
                          REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.60")
    assert response.status_code == 302 and signed_in(other)
