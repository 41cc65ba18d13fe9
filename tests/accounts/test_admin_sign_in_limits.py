"""Issue 25: the admin has no sign-in form of its own; ``/admin/login/`` sends the browser to allauth's
sign-in page (with ``next``), so allauth's limits on failed sign-ins hold for staff accounts too. Before,
40 wrong passwords on ``/admin/login/`` all got the form again and the 41st, right one signed in."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.accounts.conftest import PASSWORD, make_player

pytestmark = pytest.mark.django_db

LOCKED = "Zu viele gescheiterte Anmeldeversuche"


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_the_admin_sign_in_is_allauths(client):
    page = client.get("/admin/login/?next=/admin/auth/user/")
    assert page.status_code == 302
    assert page["Location"] == reverse("account_login") + "?next=%2Fadmin%2Fauth%2Fuser%2F"
    # A next that leaves the site is not followed.
    page = client.get("/admin/login/?next=https://evil.example/")
    assert page["Location"] == reverse("account_login") + "?next=%2Fadmin%2F"


def test_posting_passwords_to_the_admin_login_signs_nobody_in(client):
    make_player("chefin", is_staff=True, is_superuser=True)
    for attempt in range(3):
        page = client.post("/admin/login/", {"username": "chefin", "password": f"falsch-{attempt}"})
        assert page.status_code == 302 and page["Location"].startswith(reverse("account_login"))
    client.post("/admin/login/", {"username": "chefin", "password": PASSWORD})
    assert not signed_in(client)


def test_wrong_passwords_for_a_staff_account_lock_it_and_then_the_admin_is_reached_by_allauth(client):
    make_player("chefin", is_staff=True, is_superuser=True)
    login = reverse("account_login")
    for attempt in range(6):
        client.post(login + "?next=/admin/", {"login": "chefin", "password": f"falsch-{attempt}"},
                    REMOTE_ADDR="203.0.113.7")
    page = client.post(login + "?next=/admin/", {"login": "chefin", "password": PASSWORD}, REMOTE_ADDR="203.0.113.7")
    assert LOCKED in page.content.decode() and not signed_in(client)
    # Unlocked (another account, fresh limits): the right password through allauth leads to the admin.
    make_player("leiter", is_staff=True)
    other = Client()
    page = other.post(login + "?next=/admin/", {"login": "leiter", "password": PASSWORD}, REMOTE_ADDR="198.51.100.2")
    assert page.status_code == 302 and page["Location"] == "/admin/"
    assert other.get("/admin/").status_code == 200
    assert other.get("/admin/login/?next=/admin/auth/")["Location"] == "/admin/auth/"


def test_a_signed_in_player_who_is_not_staff_is_refused_not_looped(client):
    client.force_login(make_player("anna"))
    page = client.get("/admin/login/?next=/admin/")
    assert page.status_code == 403
    assert "Die Verwaltung ist nur für Mitarbeiter; du bist als anna angemeldet." in page.content.decode()
