"""Names that look alike (issue 25): a user name or display name may not be told apart from another
player's name only by characters that look the same (Unicode skeletons), nor look like a label the site
shows in place of a person (a deleted account, a computer player, a seat)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts.names import skeleton
from tests.accounts.conftest import make_player
from tests.accounts.test_adapter_signup import sign_up

CYRILLIC_ALICE = "\u0430lice"  # Cyrillic а, then Latin "lice"


def test_a_cyrillic_a_has_the_skeleton_of_a_latin_a():
    assert CYRILLIC_ALICE != "alice"
    assert skeleton(CYRILLIC_ALICE) == skeleton("alice") == skeleton("AIice") == skeleton("ａｌｉｃｅ")
    assert skeleton("Anna") != skeleton("Anne")


@pytest.mark.parametrize(
    "display_name, message",
    [
        (CYRILLIC_ALICE, "zum Verwechseln ähnlich („alice“)"),
        ("AIice", "zum Verwechseln ähnlich („alice“)"),
        ("Kreuzkoenig", None),  # another name: accepted
        ("Gelöschter Spieler", "der Seite vorbehalten"),
        ("Gel\u00f6schter  Spie1er", "der Seite vorbehalten"),
        ("Computer 2 Einfach", "nicht mit „Computer“ beginnen"),
        ("Computer 3 Experte", "nicht mit „Computer“ beginnen"),
        ("C\u043emputer 1", "nicht mit „Computer“ beginnen"),  # Cyrillic о
        ("Computer", "der Seite vorbehalten"),
        ("Platz 2", "nicht mit „Platz“ beginnen"),
        ("Platzhirsch", None),
    ],
)
def test_a_display_name_that_looks_like_another_s_or_a_site_label_is_refused(signed_in, player, display_name,
                                                                             message):
    make_player("alice")
    response = signed_in.post(reverse("accounts:edit"), {"display_name": display_name, "language": "de"})
    player.profile.refresh_from_db()
    if message is None:
        assert response.status_code == 302
        assert player.profile.display_name == display_name
    else:
        assert response.status_code == 200
        assert message in response.content.decode()
        assert player.profile.display_name == ""


def test_one_s_own_user_name_is_not_a_clash(signed_in, player):
    response = signed_in.post(reverse("accounts:edit"), {"display_name": player.username.upper(), "language": "de"})
    assert response.status_code == 302


def test_signing_up_as_a_lookalike_of_an_existing_name_is_refused(client, db):
    make_player("alice")
    before = get_user_model().objects.count()
    response = sign_up(client, username=CYRILLIC_ALICE, email="imposter@example.org")
    assert response.status_code == 200
    assert "zum Verwechseln ähnlich" in response.content.decode()
    assert get_user_model().objects.count() == before


def test_signing_up_as_a_computer_player_is_refused(client, db):
    before = get_user_model().objects.count()
    response = sign_up(client, username="Computer2", email="bot@example.org")
    assert "nicht mit „Computer“ beginnen" in response.content.decode()
    assert get_user_model().objects.count() == before
