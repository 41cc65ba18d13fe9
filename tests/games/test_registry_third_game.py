"""The game seam: a third game that exists only in the test suite (``tests/games/highcard``: an engine, a bot
and one registry entry) is offered by the lobby, created from its form, played over the real socket,
recorded, replayed on the match page and rated at a ranked table, with no line of the site naming it."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from games import registry
from games.engine.records import replay_record
from games.models import Match, Table
from ratings.models import Rating, RatingChange
from tests.games.helpers import Socket, play_over_sockets
from tests.games.highcard import entry as highcard

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def third_game():
    game = highcard.register()
    yield game
    highcard.unregister()


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_third_game_is_registered_only_while_the_test_runs(third_game):
    assert registry.get("highcard") is third_game and "highcard" in registry.names()
    assert ("highcard", "Höchste Karte") in Table._meta.get_field("game").choices
    highcard.unregister()
    assert not registry.is_game("highcard")
    with pytest.raises(KeyError):
        registry.get("highcard")
    highcard.register()


def test_a_game_cannot_be_registered_twice(third_game):
    with pytest.raises(ValueError, match="registered already"):
        registry.register(third_game)


def test_the_lobby_offers_the_third_game_with_its_presets_and_options(players):
    page = signed_in(players[0]).get(reverse("games:lobby"))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'value="highcard"' in html and 'name="highcard-preset" value="lang"' in html
    assert 'name="highcard-rounds"' in html


def test_the_lobby_form_creates_a_table_of_the_third_game(players):
    response = signed_in(players[0]).post(reverse("games:create"), {
        "game": "highcard", "highcard-preset": "lang", "highcard-turn_seconds": "60",
    })
    table = Table.objects.get(created_by=players[0])
    assert response.status_code == 302 and response.url == reverse("games:table", kwargs={"table_id": table.pk})
    assert (table.game, table.preset, table.seat_count) == ("highcard", "lang", 2)
    assert table.options == {"seats": 2, "rounds": 3, "turn_seconds": 60}
    assert signed_in(players[0]).get(response.url).status_code == 200


def test_a_forged_option_of_the_third_game_creates_nothing(players):
    response = signed_in(players[0]).post(reverse("games:create"), {
        "game": "highcard", "highcard-preset": "kurz", "highcard-jokers": "6",
    })
    assert response.status_code == 400 and not Table.objects.exists()
    response = signed_in(players[0]).post(reverse("games:create"), {
        "game": "highcard", "highcard-preset": "kurz", "highcard-rounds": "viele",
    })
    assert response.status_code == 400 and not Table.objects.exists()


async def test_a_ranked_match_of_the_third_game_is_played_recorded_replayed_and_rated(players):
    anna, ben = players[0], players[1]
    response = await sync_to_async(lambda: signed_in(anna).post(reverse("games:create"), {
        "game": "highcard", "highcard-preset": "lang", "ranked": "on",
    }))()
    assert response.status_code == 302
    table = await sync_to_async(Table.objects.get)(created_by=anna)
    assert table.ranked and table.game == "highcard"

    sockets = {0: await Socket.open(table.pk, anna), 1: await Socket.open(table.pk, ben)}
    for socket in sockets.values():
        await socket.until(lambda f: f["type"] == "state")
    await sockets[1].send({"type": "join"})
    for socket in sockets.values():
        await socket.until(lambda f: f["type"] == "state" and f["table"]["status"] == "playing")
    assert len(sockets[0].state["view"]["hand"]) == 2 and sockets[0].state["view"]["hand"] != sockets[1].state["view"]["hand"]
    final = await play_over_sockets(sockets)
    for socket in sockets.values():
        await socket.close()
    assert final["table"]["status"] == "finished" and final["view"]["phase"] == "match_over"

    match = await sync_to_async(Match.objects.get)(table=table)
    assert match.status == Match.Status.FINISHED and len(final["view"]["scores"]["rounds"]) == 3
    assert final["view"]["result"] == match.result and sorted(match.result["places"]) in ([1, 2], [1, 1])

    # Recorded: the table's record download replays to the match's result.
    record_response = await sync_to_async(lambda: signed_in(anna).get(
        reverse("games:record", kwargs={"table_id": table.pk})))()
    assert record_response.status_code == 200
    record = json.loads(record_response.content)
    assert record["game"] == "highcard" and len(record["rounds"]) == 3
    assert registry.get("highcard").outcome(replay_record(record)) == match.result

    # Replayed on the match page: one position per deal and one per move.
    page = await sync_to_async(lambda: signed_in(ben).get(reverse("matches:detail", kwargs={"match_id": match.pk})))()
    assert page.status_code == 200
    config = page.context["config"]
    assert config["game"] == "highcard" and len(config["positions"]) == 3 + 3 * 2
    assert [c["number"] for c in config["checks"]] == [1, 2, 3]

    # Rated: one change per player, and each has a rating in the third game now (the rating runs once the
    # last frames are out: wait for that work to finish).
    from games.delivery import events

    await events.after_fanout_settled()
    changes = await sync_to_async(lambda: sorted(RatingChange.objects.filter(match=match).values_list(
        "user_id", "game", "place")))()
    places = match.result["places"]
    assert changes == sorted([(anna.pk, "highcard", places[0]), (ben.pk, "highcard", places[1])])
    assert await sync_to_async(Rating.objects.filter(game="highcard", matches=1).count)() == 2
