"""Tournaments (upcoming, running, finished; one with options, participants and standings) and the lobby's
open public tables."""

from __future__ import annotations

import pytest

from games import services
from tests.api.conftest import get_json
from tests.tournaments.helpers import play_tournament, started
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("leitung", "leitung@example.org", "pw", is_staff=True)


def test_a_draft_is_neither_listed_nor_served(staff):
    t = tournament_services.tournament_create(by=staff, name="Entwurf", game="gin", format="knockout")
    assert get_json("/api/v1/tournaments") == {"upcoming": [], "running": [], "finished": []}
    get_json(f"/api/v1/tournaments/{t.pk}", 404)


def test_an_upcoming_tournament_with_its_participants(staff, people):
    t = tournament_services.tournament_create(by=staff, name="Herbst-Cup", game="gin", format="swiss",
                                              settings={"rounds": 2}, options={"target": 50})
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    for user in people[:2]:
        tournament_services.tournament_register(tournament_id=t.pk, user=user)
    listed = get_json("/api/v1/tournaments")
    assert [(x["id"], x["name"], x["status"]) for x in listed["upcoming"]] == [(t.pk, "Herbst-Cup", "registration")]
    body = get_json(f"/api/v1/tournaments/{t.pk}")
    assert body["game"] == "gin" and body["format"] == "swiss" and body["settings"]["rounds"] == 2
    assert body["options"]["target"] == 50
    assert body["participants"] == [{"username": "anna", "name": "anna"}, {"username": "ben", "name": "ben"}]
    assert body["standings"] == [] and body["stages"] == [] and body["bracket"] is None  # swiss: no bracket


@pytest.mark.django_db(transaction=True)
def test_a_finished_tournament_with_its_standings(staff, people):
    t = started(staff, people[:2], name="Finale", game="gin", format="knockout", options={"target": 50},
                settings={"check_in_minutes": 0, "break_minutes": 0})
    assert [x["id"] for x in get_json("/api/v1/tournaments")["running"]] == [t.pk]
    play_tournament(t.pk)  # committed for real: the stages follow the announcements
    listed = get_json("/api/v1/tournaments")
    assert [x["id"] for x in listed["finished"]] == [t.pk]
    body = get_json(f"/api/v1/tournaments/{t.pk}")
    assert body["status"] == "finished" and body["finished_at"]
    assert [row["place"] for row in body["standings"]] == [1, 2]
    assert {row["player"]["username"] for row in body["standings"]} == {"anna", "ben"}
    assert all("user_id" not in row for row in body["standings"])
    assert [stage["number"] for stage in body["stages"]] == [1]
    (final,) = body["stages"][0]["tables"]
    assert {p["username"] for p in final["players"]} == {"anna", "ben"} and final["finished"] is True
    record = get_json(final["record_url"])
    assert record["players"] == [p["name"] for p in final["players"]]
    (only_round,) = body["bracket"]
    (pair,) = only_round["matches"]
    assert [p["won"] for p in pair["players"]].count(True) == 1 and pair["table"] == final["table_id"]


def test_the_lobby_lists_open_public_tables_newest_first(people):
    older = services.table_create(user=people[0], game="gin", preset="klassisch")
    newer = services.table_create(user=people[1], game="romme", preset="")
    listed = get_json("/api/v1/tables")
    assert [t["id"] for t in listed] == [newer.pk, older.pk]
    assert listed[1]["game"] == "gin" and listed[1]["free_seats"] == 1
    assert listed[1]["seats"][0] == {"index": 0, "name": "anna", "bot": ""}
    assert [t["id"] for t in get_json("/api/v1/tables", game="gin")] == [older.pk]
    get_json("/api/v1/tables", 404, game="chess")
