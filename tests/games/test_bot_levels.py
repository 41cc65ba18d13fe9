"""The three computer levels (Anfänger, Fortgeschritten, Experte): the lobby offers each with one line, in
German and in English, and a quick game seats the level chosen."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import translation

from games.engine.gin.bots import LEVELS as GIN_LEVELS
from games.engine.romme.bots import LEVELS as ROMME_LEVELS
from games.models import BotLevel, Table

pytestmark = pytest.mark.django_db


@pytest.fixture
def anna():
    return get_user_model().objects.create_user("anna", "anna@example.com", "Kreuz-Bube-17!")


def test_every_level_of_the_model_is_a_level_of_both_engines():
    assert tuple(BotLevel.values) == GIN_LEVELS == ROMME_LEVELS == ("simple", "advanced", "expert")


def test_lobby_offers_each_level_with_its_line_in_german(client):
    html = client.get(reverse("games:lobby"), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    for value in ("simple", "advanced", "expert"):
        assert f'name="level" value="{value}"' in html
    assert "Anfänger" in html and "Fortgeschritten" in html and "Experte" in html
    assert "wartet auf Gin" in html


def test_lobby_offers_each_level_with_its_line_in_english(client):
    with translation.override("en"):
        html = client.get(reverse("games:lobby"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "beginner" in html and "intermediate" in html
    assert "waits for gin" in html


@pytest.mark.parametrize("game", ["gin", "romme"])
def test_quick_game_seats_the_middle_level_when_chosen(client, anna, game):
    client.force_login(anna)
    client.post(reverse("games:quick", args=[game]), {"level": "advanced"})
    table = Table.objects.get()
    assert table.status == Table.Status.PLAYING
    assert {seat.bot_level for seat in table.seats.all() if seat.is_bot} == {"advanced"}
