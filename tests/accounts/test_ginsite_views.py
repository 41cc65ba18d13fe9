"""The site's frame: home page, navigation, and error pages."""

import pytest
from django.test import RequestFactory
from django.urls import reverse
from django.utils.functional import SimpleLazyObject

from ginsite import views as site_views

pytestmark = pytest.mark.django_db


def test_home_says_what_the_site_is_and_links_to_sign_up_and_play(client):
    page = client.get("/").content.decode()

    assert "Gin Rommé und Rommé online – live am Tisch" in page
    assert "Turniere" in page and "Gewertet spielen" in page
    assert f'href="{reverse("account_signup")}"' in page
    assert f'href="{reverse("games:lobby")}"' in page


def test_navigation_offers_sign_in_to_guests(client):
    page = client.get("/").content.decode()

    for link in ("Spielen", "Turniere", "Bestenliste", "Anmelden", "Registrieren"):
        assert f">{link}</" in page
    assert ">Abmelden</" not in page


def test_navigation_offers_profile_and_sign_out_to_players(signed_in):
    page = signed_in.get("/").content.decode()

    assert f'href="{reverse("accounts:profile")}"' in page
    assert ">Abmelden</button>" in page
    assert f'href="{reverse("account_login")}"' not in page


def test_home_offers_play_to_signed_in_players(signed_in):
    page = signed_in.get("/").content.decode()

    assert "Jetzt spielen" in page
    assert "Kostenlos registrieren" not in page


def test_unknown_page_is_a_styled_404(client):
    response = client.get("/gibt-es-nicht/")

    assert response.status_code == 404
    assert "Diese Karte liegt nicht im Stapel" in response.content.decode()
    assert "site.css" in response.content.decode()


def test_403_and_500_pages_are_styled():
    request = RequestFactory().get("/")

    forbidden = site_views.permission_denied(request)
    broken = site_views.server_error(request)

    assert forbidden.status_code == 403 and "Kein Zutritt" in forbidden.content.decode()
    assert broken.status_code == 500 and "Da ist uns ein Fehler unterlaufen" in broken.content.decode()


def test_500_page_renders_even_when_the_database_is_down():
    def unreachable():
        raise ConnectionError("database is down")

    class BrokenMessages:
        def __iter__(self):
            unreachable()

    request = RequestFactory().get("/")
    request.user = SimpleLazyObject(unreachable)
    request._messages = BrokenMessages()

    broken = site_views.server_error(request)

    assert broken.status_code == 500 and "Da ist uns ein Fehler unterlaufen" in broken.content.decode()


def test_staff_see_the_admin_link_and_players_do_not(signed_in, player):
    assert f'href="{reverse("admin:index")}"' not in signed_in.get("/").content.decode()

    player.is_staff = True
    player.save()

    assert f'href="{reverse("admin:index")}"' in signed_in.get("/").content.decode()


@pytest.mark.parametrize(
    "name", ["account_login", "account_signup", "account_reset_password", "account_email_verification_sent"]
)
def test_allauth_pages_for_guests_use_the_site_layout(client, name):
    response = client.get(reverse(name))

    assert response.status_code == 200
    assert "site.css" in response.content.decode() and 'class="site-footer"' in response.content.decode()


@pytest.mark.parametrize("name", ["account_email", "account_change_password", "account_logout"])
def test_allauth_pages_for_players_use_the_site_layout(signed_in, name):
    response = signed_in.get(reverse(name))

    assert response.status_code == 200
    assert "site.css" in response.content.decode() and 'class="site-footer"' in response.content.decode()
