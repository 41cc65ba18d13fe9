"""Nothing private through the API, decided as the pages decide it: a private table's match, a list of a
same-deals stage still being played, a running match, e-mail addresses, a deleted player's name."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from accounts import services as account_services
from games import services
from games.models import Match
from games.reads import records as records_export
from tests.api import audit
from tests.api.conftest import get_json, make_private

pytestmark = pytest.mark.django_db

ALL_READS = ("/api/v1/players/{u}", "/api/v1/players/{u}/matches", "/api/v1/players/{u}/ratings/gin",
             "/api/v1/leaderboards/gin", "/api/v1/tables", "/api/v1/tournaments", "/api/v1/keys")


def export_lines(username: str, **params) -> list[dict]:
    response = Client().get(f"/api/v1/players/{username}/matches.ndjson", params)
    return [json.loads(line) for line in b"".join(response.streaming_content).splitlines()]


def test_a_private_tables_match_is_not_listed_exported_or_served(people, play):
    anna, ben, _ = people
    public = play([anna, ben])
    private = play([anna, ben])
    make_private(private)
    listed = [i["match_id"] for i in get_json("/api/v1/players/anna/matches")["items"]]
    assert listed == [public.pk]
    assert len(export_lines("anna")) == 1
    get_json(f"/api/v1/matches/{private.pk}", 404)
    # Not even for one of its players, signed in: the API reads as nobody.
    client = Client()
    client.force_login(anna)
    assert client.get(f"/api/v1/matches/{private.pk}").status_code == 404
    assert [i["match_id"] for i in json.loads(client.get("/api/v1/players/anna/matches").content)["items"]] == [public.pk]


def test_a_same_deals_list_is_hidden_while_its_stage_is_still_played(people, play, django_capture_on_commit_callbacks):
    anna, ben, cleo = people
    done = play([anna, ben], deal_seed="s" * 16, deal_group="stage-1")
    # Another table of the same stage, dealt the same cards, is still being played.
    running = services.table_create_seated(game="gin", users=[cleo, people[1]], preset="klassisch",
                                           options={"target": 50}, ranked=False, deal_seed="s" * 16,
                                           deal_group="stage-1")
    assert get_json("/api/v1/players/anna/matches")["items"] == []
    assert export_lines("anna") == []
    get_json(f"/api/v1/matches/{done.pk}", 404)
    Match.objects.filter(table=running).update(status=Match.Status.FINISHED)
    running.status = running.Status.FINISHED
    running.save(update_fields=["status"])
    assert [i["match_id"] for i in get_json("/api/v1/players/anna/matches")["items"]] == [done.pk]
    assert get_json(f"/api/v1/matches/{done.pk}")["rounds"]


def test_a_running_match_has_no_record_and_the_lobby_shows_no_cards(people):
    anna, ben, _ = people
    table = services.table_create_seated(game="gin", users=[anna, ben], preset="klassisch", ranked=False)
    running = Match.objects.get(pk=table.current_match_id)
    get_json(f"/api/v1/matches/{running.pk}", 404)
    assert get_json("/api/v1/players/anna/matches")["items"] == []
    listed = get_json("/api/v1/tables")
    assert [t["id"] for t in listed] == [table.pk]
    text = json.dumps(listed)
    for key in ("hands", "hand", "stock", "deal", "deal_seed", "invite"):
        assert f'"{key}"' not in text


def test_a_private_table_is_not_in_the_lobby(people):
    table = services.table_create(user=people[0], game="gin", preset="klassisch", private=True)
    assert table.pk not in [t["id"] for t in get_json("/api/v1/tables")]


def test_no_response_carries_an_email_address(people, play):
    anna, ben, _ = people
    match = play([anna, ben], ranked=True)
    paths = [p.format(u="anna") for p in ALL_READS] + [f"/api/v1/matches/{match.pk}"]
    for path in paths:
        body = Client().get(path).content.decode()
        assert "@example.org" not in body, path
    assert all("@" not in json.dumps(r) for r in export_lines("anna"))


def test_a_deleted_players_name_never_appears(people, play):
    anna, ben, _ = people
    ben.profile.display_name = "Benedikt"
    ben.profile.save()
    match = play([anna, ben], ranked=True)
    account_services.account_delete(user=ben)
    bodies = [Client().get(p.format(u="anna")).content.decode() for p in ALL_READS]
    bodies.append(Client().get(f"/api/v1/matches/{match.pk}").content.decode())
    bodies += [json.dumps(r, ensure_ascii=False) for r in export_lines("anna")]
    for body in bodies:
        assert "Benedikt" not in body and '"ben"' not in body
    opponent = get_json("/api/v1/players/anna/matches")["items"][0]["opponents"][0]
    assert opponent == {"name": "Gelöschter Spieler", "bot_level": "", "username": None}


CARD = re.compile(r'"(?:[2-9TJQKA][CDHS]|JK)"')


def test_no_api_response_carries_a_card_while_the_only_match_is_being_played(people):
    """The hidden-card audit over every GET the API offers: mid-match, with no other match played, no card code
    (a hand, the stock, the discard, a deal) is in any answer, whatever the path."""
    anna, ben, _ = people
    table = services.table_create_seated(game="gin", users=[anna, ben], preset="klassisch", ranked=True)
    running = Match.objects.get(pk=table.current_match_id)
    live_round = running.rounds.get(finished_at__isnull=True)
    assert CARD.search(json.dumps(live_round.deal))  # the audit would see the deal's cards if they leaked
    paths = [p.format(u=u) for p in ALL_READS for u in ("anna", "ben")]
    paths += [f"/api/v1/matches/{running.pk}", "/api/v1/players/anna/matches.ndjson", "/api/v1/openapi.json",
              "/api/v1/tables?game=gin", "/api/v1/players/anna/matches?ranked=true"]
    for path in paths:
        response = Client().get(path)
        body = (b"".join(response.streaming_content) if response.streaming else response.content).decode()
        assert response.status_code in (200, 404), path
        assert not CARD.search(body), (path, CARD.search(body))


def test_the_audit_sees_a_secret_hand_or_stock_run_in_any_order_but_not_a_finished_deal(people, play):
    anna, ben, cleo = people
    finished = play([anna, ben])
    table = services.table_create_seated(game="gin", users=[anna, cleo], preset="klassisch", deal_seed="t" * 16)
    deal = Match.objects.get(pk=table.current_match_id).rounds.get(finished_at__isnull=True).deal
    hand, stock = deal["hands"][1], deal["stock"]
    assert audit.leaks([{"somewhere": [{"deep": list(reversed(hand))}]}])
    assert audit.leaks([{"run": ["KH", *stock[3:3 + audit.STOCK_RUN]]}])
    assert audit.leaks([stock[: audit.STOCK_RUN - 1]]) == []  # a shorter run proves nothing
    assert audit.leaks([get_json(f"/api/v1/matches/{finished.pk}")]) == []


def test_every_api_answer_goes_through_the_audit_streams_included(people, play, monkeypatch, _hidden_card_audit):
    """The suite's audit is on for every request of these tests: an answer that carried a live hand fails the
    request that made it, a streamed one when the line is read."""
    anna, ben, cleo = people
    finished = play([anna, ben])
    table = services.table_create_seated(game="gin", users=[anna, cleo], preset="klassisch", deal_seed="t" * 16)
    hand = Match.objects.get(pk=table.current_match_id).rounds.get(finished_at__isnull=True).deal["hands"][0]
    real = records_export.record_export
    monkeypatch.setattr(records_export, "record_export", lambda **kwargs: {**real(**kwargs), "peek": hand})
    with pytest.raises(AssertionError, match="a hand of a secret deal"):
        Client().get(f"/api/v1/matches/{finished.pk}")
    export = Client().get("/api/v1/players/ben/matches.ndjson")
    with pytest.raises(AssertionError, match="a hand of a secret deal"):
        b"".join(export.streaming_content)
    assert _hidden_card_audit == [f"/api/v1/matches/{finished.pk}", "/api/v1/players/ben/matches.ndjson"]
