"""Profiles: made with the user, shown on the profile pages, edited with checks."""

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from accounts.models import Profile
from tests.accounts.conftest import make_player

pytestmark = pytest.mark.django_db


def test_every_new_user_gets_a_german_profile():
    user = get_user_model().objects.create_user(username="carl", password="x")

    assert user.profile.language == "de"
    assert user.profile.display_name == ""
    assert user.profile.public_name == "carl"


def test_superuser_made_from_the_command_line_gets_a_profile_too():
    admin = get_user_model().objects.create_superuser(
        username="chefin", email="chefin@example.com", password="x"
    )

    assert Profile.objects.filter(user=admin).exists()


def test_own_profile_needs_sign_in(client):
    response = client.get(reverse("accounts:profile"))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))


def test_own_profile_shows_display_name_language_member_since_and_email(signed_in, player):
    player.profile.display_name = "Herzdame"
    player.profile.save()

    page = signed_in.get(reverse("accounts:profile")).content.decode()

    assert "Herzdame" in page
    assert "@anna" in page
    assert "Mitglied seit" in page
    assert "Deutsch" in page
    assert "anna@example.com" in page
    assert 'id="match-history"' in page


def test_public_profile_shows_the_name_but_never_the_email(client, player):
    page = client.get(reverse("accounts:public", args=["anna"])).content.decode()

    assert "anna" in page
    assert "Mitglied seit" in page
    assert "anna@example.com" not in page


def test_public_profile_of_unknown_player_is_404(client, db):
    response = client.get(reverse("accounts:public", args=["niemand"]))

    assert response.status_code == 404
    assert "Diese Karte liegt nicht im Stapel" in response.content.decode()


def test_profile_edit_saves_display_name_and_language_and_answers_in_the_new_language(signed_in, player):
    response = signed_in.post(
        reverse("accounts:edit"), {"display_name": "  Pik   Ass  ", "language": "en"}, follow=True
    )

    player.profile.refresh_from_db()
    assert (player.profile.display_name, player.profile.language) == ("Pik Ass", "en")
    page = response.content.decode()
    assert '<html lang="en">' in page
    assert "Your profile has been saved." in page
    assert "Member since" in page


def test_profile_edit_with_empty_display_name_shows_the_user_name(signed_in, player):
    player.profile.display_name = "Herzdame"
    player.profile.save()

    signed_in.post(reverse("accounts:edit"), {"display_name": "", "language": "de"})

    player.profile.refresh_from_db()
    assert player.profile.public_name == "anna"


@pytest.mark.parametrize(
    ("display_name", "message"),
    [
        ("Bo", "mindestens 3 Zeichen"),
        ("<script>", "Erlaubt sind Buchstaben"),
        ("_unten", "Erlaubt sind Buchstaben"),
        ("x" * 31, "höchstens 30 Zeichen"),
        ("BERTA", "Diesen Namen verwendet schon ein anderer Spieler."),
        ("kreuzkönig", "Diesen Namen verwendet schon ein anderer Spieler."),
    ],
)
def test_profile_edit_refuses_a_bad_or_taken_display_name_and_changes_nothing(
    signed_in, player, display_name, message
):
    make_player("berta")
    carl = make_player("carl")
    carl.profile.display_name = "Kreuzkönig"
    carl.profile.save()

    response = signed_in.post(reverse("accounts:edit"), {"display_name": display_name, "language": "en"})

    assert response.status_code == 200
    assert message in response.content.decode()
    player.profile.refresh_from_db()
    assert (player.profile.display_name, player.profile.language) == ("", "de")


def test_profile_edit_refuses_an_unknown_language(signed_in, player):
    response = signed_in.post(reverse("accounts:edit"), {"display_name": "", "language": "fr"})

    assert response.status_code == 200
    assert "Bitte eine gültige Auswahl treffen." in response.content.decode()
    player.profile.refresh_from_db()
    assert player.profile.language == "de"


def test_profile_edit_without_csrf_token_changes_nothing(player):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(player)

    response = strict.post(reverse("accounts:edit"), {"display_name": "Fremd", "language": "en"})

    assert response.status_code == 403
    player.profile.refresh_from_db()
    assert (player.profile.display_name, player.profile.language) == ("", "de")


def test_password_change_keeps_the_player_signed_in_and_the_new_password_works(signed_in, player):
    signed_in.post(
        reverse("account_change_password"),
        {"oldpassword": "Herz-Dame-42!", "password1": "Karo-Sieben-7?", "password2": "Karo-Sieben-7?"},
    )

    player.refresh_from_db()
    assert player.check_password("Karo-Sieben-7?")
    assert signed_in.get(reverse("accounts:profile")).status_code == 200


def test_password_change_with_wrong_old_password_changes_nothing(signed_in, player):
    response = signed_in.post(
        reverse("account_change_password"),
        {"oldpassword": "falsch", "password1": "Karo-Sieben-7?", "password2": "Karo-Sieben-7?"},
    )

    assert "Bitte gib dein aktuelles Passwort ein." in response.content.decode()
    player.refresh_from_db()
    assert player.check_password("Herz-Dame-42!")


def test_password_reset_by_mail_sets_a_new_password(client, player, mailoutbox):
    client.post(reverse("account_reset_password"), {"email": "anna@example.com"})
    (mail,) = mailoutbox
    (link,) = [word for word in mail.body.split() if "/accounts/password/reset/key/" in word]
    path = link.split("://", 1)[1].split("/", 1)[1]

    form_page = client.get("/" + path, follow=True)
    client.post(form_page.redirect_chain[-1][0], {"password1": "Kreuz-Acht-8!", "password2": "Kreuz-Acht-8!"})

    player.refresh_from_db()
    assert player.check_password("Kreuz-Acht-8!")


def test_email_page_adds_a_second_address_unconfirmed_and_sends_a_link(signed_in, player, mailoutbox):
    page = signed_in.get(reverse("account_email")).content.decode()
    assert 'name="action_remove"' in page and "anna@example.com" in page

    signed_in.post(reverse("account_email"), {"action_add": "", "email": "anna.zwei@example.com"})

    added = EmailAddress.objects.get(email="anna.zwei@example.com")
    assert added.user == player and not added.verified
    assert mailoutbox[-1].to == ["anna.zwei@example.com"]


def test_email_page_never_takes_over_an_address_of_another_player(signed_in, player, mailoutbox):
    berta = make_player("berta")

    response = signed_in.post(reverse("account_email"), {"action_add": "", "email": "berta@example.com"})

    assert "Es ist bereits jemand mit dieser E-Mail-Adresse registriert." in response.content.decode()
    assert mailoutbox == []
    assert not EmailAddress.objects.filter(user=player, email="berta@example.com").exists()
    assert EmailAddress.objects.get(email="berta@example.com", verified=True).user == berta
