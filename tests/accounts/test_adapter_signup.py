"""Sign-up, confirmation and sign-in through allauth: the good path and every kind of bad input."""

import re
import time
from unittest import mock

import pytest
from allauth.account.models import EmailAddress, EmailConfirmationHMAC
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tests.accounts.conftest import PASSWORD, make_player

pytestmark = pytest.mark.django_db
User = get_user_model()


def counts() -> tuple[int, int]:
    return User.objects.count(), EmailAddress.objects.count()


def sign_up(client, **fields):
    data = {"username": "berta", "email": "berta@example.com", "password1": PASSWORD, "password2": PASSWORD}
    data.update(fields)
    return client.post(reverse("account_signup"), data)


def confirmation_link(mail) -> str:
    (path,) = re.findall(r"https?://[^/\s]+(/accounts/confirm-email/\S+/)", mail.body)
    return path


def test_sign_up_creates_unconfirmed_player_and_sends_german_confirmation_mail(client, mailoutbox):
    response = sign_up(client)

    assert response.status_code == 302
    berta = User.objects.get(username="berta")
    assert berta.profile.language == "de"
    assert not EmailAddress.objects.get(user=berta).verified
    (mail,) = mailoutbox
    assert mail.to == ["berta@example.com"]
    assert mail.subject == "[Gin Rommé] Bitte bestätige deine E-Mail-Adresse"
    assert "Hallo von Gin Rommé!" in mail.body
    assert "Bitte bestätige die Adresse über diesen Link:" in mail.body
    assert confirmation_link(mail)


def test_unconfirmed_player_cannot_sign_in_and_gets_a_new_link(client, mailoutbox):
    make_player("berta", verified=False)

    response = client.post(reverse("account_login"), {"login": "berta", "password": PASSWORD}, follow=True)

    assert "_auth_user_id" not in client.session
    assert "Bestätige deine E-Mail-Adresse" in response.content.decode()
    assert len(mailoutbox) == 1


def test_confirmation_link_confirms_and_then_sign_in_works(client, mailoutbox):
    sign_up(client)
    link = confirmation_link(mailoutbox[0])

    page = client.get(link)
    assert "berta@example.com" in page.content.decode()
    client.post(link)

    assert EmailAddress.objects.get(email="berta@example.com").verified
    fresh = Client()
    fresh.post(reverse("account_login"), {"login": "berta@example.com", "password": PASSWORD})
    assert fresh.session["_auth_user_id"] == str(User.objects.get(username="berta").pk)


@pytest.mark.parametrize("login", ["anna", "anna@example.com", "ANNA@example.com"])
def test_sign_in_by_user_name_or_email(client, player, login):
    client.post(reverse("account_login"), {"login": login, "password": PASSWORD})

    assert client.session["_auth_user_id"] == str(player.pk)


def test_sign_in_with_wrong_password_says_so_and_signs_nobody_in(client, player):
    response = client.post(reverse("account_login"), {"login": "anna", "password": "falsch-falsch"})

    assert response.status_code == 200
    assert "_auth_user_id" not in client.session
    assert "Der Anmeldename und/oder das Passwort sind leider falsch." in response.content.decode()


def test_failed_sign_ins_are_rate_limited(client, player):
    for _ in range(5):
        client.post(reverse("account_login"), {"login": "anna", "password": "falsch-falsch"})

    response = client.post(reverse("account_login"), {"login": "anna", "password": PASSWORD})

    assert "_auth_user_id" not in client.session
    assert "Zu viele gescheiterte Anmeldeversuche" in response.content.decode()


def test_duplicate_user_name_is_refused_with_a_message(client, player, mailoutbox):
    before = counts()

    response = sign_up(client, username="Anna", email="andere@example.com")

    assert response.status_code == 200
    with translation.override("de"):
        message = str(AbstractUser._meta.get_field("username").error_messages["unique"])
    assert message in response.content.decode()
    assert counts() == before
    assert mailoutbox == []


def test_duplicate_email_is_refused_with_a_message(client, player, mailoutbox):
    before = counts()

    response = sign_up(client, username="zweitkonto", email="ANNA@example.com")

    assert response.status_code == 200
    assert "Es ist bereits jemand mit dieser E-Mail-Adresse registriert." in response.content.decode()
    assert counts() == before
    assert not User.objects.filter(username="zweitkonto").exists()
    assert mailoutbox == []


@pytest.mark.parametrize(
    ("password", "message"),
    [
        ("12345678", "Dieses Passwort ist zu üblich."),
        ("83920571", "Dieses Passwort ist komplett numerisch."),
        ("kurz1", "Dieses Passwort ist zu kurz."),
        ("berta123", "Das Passwort ist zu ähnlich zu"),
    ],
)
def test_weak_password_is_refused_with_a_message(client, password, message):
    before = counts()

    response = sign_up(client, password1=password, password2=password)

    assert response.status_code == 200
    assert message in response.content.decode()
    assert counts() == before


def test_password_repeated_differently_is_refused(client):
    before = counts()

    response = sign_up(client, password2=PASSWORD + "x")

    assert "Du musst zweimal das selbe Passwort eingeben." in response.content.decode()
    assert counts() == before


def test_reserved_user_name_of_deleted_accounts_is_refused(client):
    before = counts()

    response = sign_up(client, username="geloescht_7")

    assert "Dieser Benutzername ist reserviert." in response.content.decode()
    assert counts() == before


def test_expired_confirmation_link_says_so_and_confirms_nothing(client):
    berta = make_player("berta", verified=False)
    address = EmailAddress.objects.get(user=berta)
    four_days_ago = time.time() - 4 * 24 * 3600
    with mock.patch("django.core.signing.time.time", return_value=four_days_ago):
        key = EmailConfirmationHMAC(address).key
    link = reverse("account_confirm_email", args=[key])

    page = client.get(link)
    posted = client.post(link)

    assert "Dieser Bestätigungslink ist abgelaufen oder ungültig." in page.content.decode()
    assert posted.status_code == 404
    address.refresh_from_db()
    assert not address.verified


@pytest.mark.parametrize("key", ["MQ:1tFake:abcdefghijklmnopqrstuvwxyz", "kein-schluessel", "A" * 64])
def test_forged_confirmation_link_says_so_and_confirms_nothing(client, key):
    make_player("berta", verified=False)
    link = reverse("account_confirm_email", args=[key])

    page = client.get(link)
    posted = client.post(link)

    assert "Dieser Bestätigungslink ist abgelaufen oder ungültig." in page.content.decode()
    assert posted.status_code == 404
    assert not EmailAddress.objects.filter(verified=True).exists()


def test_sign_up_without_csrf_token_is_refused_and_creates_nothing():
    strict = Client(enforce_csrf_checks=True)
    before = counts()

    response = sign_up(strict)

    assert response.status_code == 403
    assert "Das Formular ist abgelaufen" in response.content.decode()
    assert "Es wurde nichts geändert." in response.content.decode()
    assert counts() == before


def test_sign_in_without_csrf_token_is_refused(player):
    strict = Client(enforce_csrf_checks=True)

    response = strict.post(reverse("account_login"), {"login": "anna", "password": PASSWORD})

    assert response.status_code == 403
    assert "_auth_user_id" not in strict.session
