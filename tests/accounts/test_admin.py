"""The Django admin: staff only, with the Profile admin and the profile inside each user's page."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts.models import Profile
from tests.accounts.conftest import make_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_signed_in(client):
    boss = make_player("chefin", is_staff=True, is_superuser=True)
    client.force_login(boss)
    return client


def test_admin_sends_guests_to_its_sign_in(client):
    response = client.get(reverse("admin:index"))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_admin_refuses_signed_in_players_who_are_not_staff(signed_in):
    index = signed_in.get(reverse("admin:index"))
    profiles = signed_in.get(reverse("admin:accounts_profile_changelist"))

    assert index.status_code == 302 and index["Location"].startswith(reverse("admin:login"))
    assert profiles.status_code == 302 and profiles["Location"].startswith(reverse("admin:login"))


def test_staff_reach_the_admin_and_the_profile_admin(admin_client_signed_in, player):
    index = admin_client_signed_in.get(reverse("admin:index"))
    profiles = admin_client_signed_in.get(reverse("admin:accounts_profile_changelist"))
    user_page = admin_client_signed_in.get(reverse("admin:auth_user_change", args=[player.pk]))

    assert index.status_code == 200
    assert profiles.status_code == 200 and "anna" in profiles.content.decode()
    assert user_page.status_code == 200 and "Anzeigename" in user_page.content.decode()


def test_admin_adds_a_user_with_exactly_one_profile(admin_client_signed_in):
    admin_client_signed_in.post(
        reverse("admin:auth_user_add"),
        {
            "username": "neu",
            "password1": "Pik-Zehn-10!",
            "password2": "Pik-Zehn-10!",
            "usable_password": "true",
        },
    )

    user = get_user_model().objects.get(username="neu")
    assert Profile.objects.filter(user=user).count() == 1
