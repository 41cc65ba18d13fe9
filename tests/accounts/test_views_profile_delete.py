"""Deleting an account: password confirmed, player signed out, personal data gone, history kept nameless."""

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from accounts.signals import account_deleted
from tests.accounts.conftest import PASSWORD

pytestmark = pytest.mark.django_db
User = get_user_model()


def delete(client, password: str = PASSWORD, confirm: bool = True):
    data = {"password": password}
    if confirm:
        data["confirm"] = "on"
    return client.post(reverse("accounts:delete"), data, follow=True)


def test_delete_page_needs_sign_in(client):
    response = client.get(reverse("accounts:delete"))

    assert response.status_code == 302


def test_wrong_password_deletes_nothing(signed_in, player):
    response = delete(signed_in, password="falsch")

    assert "Das Passwort ist nicht richtig." in response.content.decode()
    player.refresh_from_db()
    assert player.is_active and player.username == "anna"
    assert EmailAddress.objects.filter(user=player).exists()


def test_unticked_confirmation_deletes_nothing(signed_in, player):
    response = delete(signed_in, confirm=False)

    assert "Dieses Feld ist zwingend erforderlich." in response.content.decode()
    player.refresh_from_db()
    assert player.is_active


def test_delete_without_csrf_token_deletes_nothing(player):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(player)

    response = strict.post(reverse("accounts:delete"), {"password": PASSWORD, "confirm": "on"})

    assert response.status_code == 403
    player.refresh_from_db()
    assert player.is_active


def test_deletion_signs_out_and_removes_every_personal_detail(signed_in, player):
    player.profile.display_name = "Herzdame"
    player.profile.save()

    response = delete(signed_in)

    assert "Dein Konto wurde gelöscht." in response.content.decode()
    assert "_auth_user_id" not in signed_in.session
    player.refresh_from_db()
    assert player.username == f"geloescht_{player.pk}"
    assert (player.email, player.first_name, player.last_name) == ("", "", "")
    assert not player.is_active and not player.has_usable_password()
    assert not EmailAddress.objects.filter(user=player).exists()
    assert player.profile.display_name == ""
    assert player.profile.public_name == "Gelöschter Spieler"


def test_deleted_player_cannot_sign_in_and_has_no_public_page(signed_in, player, client):
    delete(signed_in)

    fresh = Client()
    fresh.post(reverse("account_login"), {"login": "anna@example.com", "password": PASSWORD})

    assert "_auth_user_id" not in fresh.session
    assert fresh.get(reverse("accounts:public", args=[f"geloescht_{player.pk}"])).status_code == 404


def test_deletion_ends_the_players_other_sessions(signed_in, player):
    phone = Client()
    phone.force_login(player)

    delete(signed_in)

    assert phone.get(reverse("accounts:profile")).status_code == 302


def test_user_name_and_email_of_a_deleted_account_are_free_again(signed_in, player, mailoutbox):
    delete(signed_in)

    Client().post(
        reverse("account_signup"),
        {"username": "anna", "email": "anna@example.com", "password1": PASSWORD, "password2": PASSWORD},
    )

    newcomer = User.objects.get(username="anna")
    assert newcomer.pk != player.pk
    assert EmailAddress.objects.get(email="anna@example.com").user == newcomer


def test_deletion_tells_other_apps_within_its_transaction(signed_in, player):
    heard = []

    def receiver(sender, user, **kwargs):
        heard.append((user.pk, user.is_active))

    account_deleted.connect(receiver)
    try:
        delete(signed_in)
    finally:
        account_deleted.disconnect(receiver)

    assert heard == [(player.pk, False)]


def test_a_failing_receiver_leaves_the_account_untouched(signed_in, player):
    def receiver(sender, user, **kwargs):
        raise RuntimeError("the games app could not resign the player")

    account_deleted.connect(receiver)
    try:
        with pytest.raises(RuntimeError):
            delete(signed_in)
    finally:
        account_deleted.disconnect(receiver)

    player.refresh_from_db()
    assert player.is_active and player.username == "anna"
    assert EmailAddress.objects.filter(user=player).exists()
