"""Languages: German by default, the browser's choice for guests, the profile's choice for players."""

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from tests.accounts.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def switch(client, language: str, next_url: str = "/"):
    return client.post(reverse("set_language"), {"language": language, "next": next_url}, follow=True)


def test_site_speaks_german_by_default(client):
    page = client.get("/").content.decode()

    assert '<html lang="de">' in page
    assert "Gin Rommé und Rommé online – live am Tisch" in page


def test_guest_with_an_english_browser_reads_english(client):
    page = client.get("/", headers={"accept-language": "en-US,en;q=0.9"}).content.decode()

    assert '<html lang="en">' in page
    assert "Gin Rummy and Rummy online – live at the table" in page
    assert "Sign up for free" in page


def test_guest_language_switch_sets_the_cookie_and_the_page_follows(client):
    response = switch(client, "en")

    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    assert "Gin Rummy and Rummy online – live at the table" in response.content.decode()


def test_player_language_switch_is_saved_to_the_profile_and_applied(signed_in, player):
    response = switch(signed_in, "en", next_url=reverse("accounts:profile"))

    player.profile.refresh_from_db()
    assert player.profile.language == "en"
    assert '<html lang="en">' in response.content.decode()
    assert "Member since" in response.content.decode()


def test_profile_language_wins_over_the_browser_and_follows_the_player_to_a_new_device(player):
    player.profile.language = "en"
    player.profile.save()
    other_device = Client(headers={"accept-language": "de-DE,de;q=0.9"})
    other_device.post(reverse("account_login"), {"login": "anna", "password": PASSWORD})

    page = other_device.get("/").content.decode()

    assert '<html lang="en">' in page
    # The cookie keeps the choice after signing out.
    assert other_device.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"


def test_unknown_language_on_the_switch_changes_nothing(signed_in, player):
    switch(signed_in, "xx")

    player.profile.refresh_from_db()
    assert player.profile.language == "de"
    assert '<html lang="de">' in signed_in.get("/").content.decode()


def test_language_switch_without_csrf_token_changes_nothing(player):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(player)

    response = strict.post(reverse("set_language"), {"language": "en", "next": "/"})

    assert response.status_code == 403
    player.profile.refresh_from_db()
    assert player.profile.language == "de"


def test_sign_up_on_english_pages_makes_an_english_profile_and_english_mail(client, mailoutbox):
    client.post(
        reverse("account_signup"),
        {"username": "dora", "email": "dora@example.com", "password1": PASSWORD, "password2": PASSWORD},
        headers={"accept-language": "en"},
    )

    dora = get_user_model().objects.get(username="dora")
    assert dora.profile.language == "en"
    assert mailoutbox[0].subject == "[Gin Rommé] Please Confirm Your Email Address"
    assert "Hello from Gin Rommé!" in mailoutbox[0].body
    assert "Please confirm the address with this link:" in mailoutbox[0].body
