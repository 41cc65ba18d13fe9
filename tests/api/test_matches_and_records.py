"""A player's finished matches (newest first, cursor, filters), one match's signed record (exactly the
download), the signing keys, and the NDJSON export streamed and verified line by line."""

from __future__ import annotations

import base64
import json
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.core.cache import cache
from django.db import connection, connections
from django.http import StreamingHttpResponse
from django.test import AsyncClient, Client, TestCase
from django.test.utils import CaptureQueriesContext
from django.urls import resolve, reverse

from api import selectors as api_selectors
from games.models import Match
from games.reads import history
from games.reads import records as records_export
from tests.api.conftest import connection_kept, finished_match, get_json, three_people
from tests.play import rows_kept_for_the_scope

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module", autouse=True)
def _played(django_db_setup, django_db_blocker):
    """The module's people and matches, played once for its tests, which only read them (what a test writes is
    rolled back after it: tests/play.py); ids of the people and the matches."""
    from django.contrib.auth import get_user_model

    def make():
        cache.clear()
        anna, ben, cleo = three_people(get_user_model())
        capture = TestCase.captureOnCommitCallbacks
        matches = [finished_match([anna, ben], capture=capture, ranked=True),
                   finished_match([anna, ben], capture=capture), finished_match([anna, cleo], capture=capture)]
        return [p.pk for p in (anna, ben, cleo)], [m.pk for m in matches]

    yield from rows_kept_for_the_scope(django_db_blocker, make, seed="api-tests", players=11)


@pytest.fixture
def people(_played, django_user_model):
    """anna, ben and cleo (the module's, read afresh for each test)."""
    return [django_user_model.objects.get(pk=pk) for pk in _played[0]]


@pytest.fixture
def three(_played):
    """anna plays ben (ranked), ben again (casual), cleo (casual): three finished matches, oldest first (the
    module's, read afresh for each test)."""
    return [Match.objects.get(pk=pk) for pk in _played[1]]


def test_matches_are_listed_newest_first_as_the_player_fared(three):
    body = get_json("/api/v1/players/anna/matches")
    assert [item["match_id"] for item in body["items"]] == [m.pk for m in reversed(three)]
    assert body["next_cursor"] is None
    newest = body["items"][0]
    match = three[-1]
    assert newest["game"] == "gin" and newest["ranked"] is False and newest["seats"] == 2
    assert newest["opponents"] == [{"name": "cleo", "bot_level": "", "username": "cleo"}]
    assert newest["outcome"] == ("won" if match.winner_seat == newest["seat"] else "lost")
    assert newest["score"] == match.final_scores[newest["seat"]]
    assert newest["record_url"] == f"/api/v1/matches/{match.pk}"


def test_the_list_is_the_profile_history_a_visitor_sees(three):
    body = get_json("/api/v1/players/anna/matches")
    anna = three[0].users.get(username="anna")
    assert [i["match_id"] for i in body["items"]] == [e.match_id for e in history.matches_for_user(user=anna)]


def test_the_cursor_walks_every_match_once(three):
    seen, cursor = [], None
    for _ in range(5):
        params = {"limit": 1, **({"cursor": cursor} if cursor else {})}
        body = get_json("/api/v1/players/anna/matches", **params)
        seen += [i["match_id"] for i in body["items"]]
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert seen == [m.pk for m in reversed(three)]


def test_an_unknown_player_is_404():
    get_json("/api/v1/players/nobody/matches", 404)


def test_a_forged_cursor_is_a_400(people):
    assert "cursor" in get_json("/api/v1/players/anna/matches", 400, cursor="not-a-cursor")["detail"]
    for raw in (b"2026-12-05T08:00:00+00:00|99999999999999999999999", b"2026-12-05T08:00:00|5", b"x|5"):
        forged = base64.urlsafe_b64encode(raw).decode().rstrip("=")
        get_json("/api/v1/players/anna/matches", 400, cursor=forged)


def test_ids_out_of_any_range_are_404(people):
    get_json(f"/api/v1/matches/{2**70}", 404)
    get_json(f"/api/v1/tournaments/{2**70}", 404)


def test_filters_ranked_opponent_game_and_time(three):
    ranked, casual_ben, casual_cleo = three
    ids = lambda **p: [i["match_id"] for i in get_json("/api/v1/players/anna/matches", **p)["items"]]  # noqa: E731
    assert ids(ranked="true") == [ranked.pk]
    assert ids(ranked="false") == [casual_cleo.pk, casual_ben.pk]
    assert ids(opponent="cleo") == [casual_cleo.pk]
    assert ids(opponent="ben") == [casual_ben.pk, ranked.pk]
    assert ids(game="romme") == []
    assert ids(game="gin") == [m.pk for m in reversed(three)]
    Match.objects.filter(pk=ranked.pk).update(finished_at=ranked.finished_at - timedelta(days=3))
    cut = (ranked.finished_at - timedelta(days=1)).isoformat()
    assert ids(until=cut) == [ranked.pk]
    assert ranked.pk not in ids(since=cut)
    get_json("/api/v1/players/anna/matches", 404, game="chess")
    get_json("/api/v1/players/anna/matches", 404, opponent="nobody")


def test_one_match_is_exactly_the_download(three):
    match = three[0]
    api = Client().get(f"/api/v1/matches/{match.pk}")
    page = Client().get(reverse("matches:record", kwargs={"match_id": match.pk}))
    assert api.status_code == page.status_code == 200
    assert api["Content-Disposition"] == page["Content-Disposition"]
    ours, theirs = json.loads(api.content), json.loads(page.content)
    assert records_export.record_signature_holds(ours)
    strip = lambda r: {k: v for k, v in r.items() if k not in ("signed_at", "signature")}  # noqa: E731
    assert strip(ours) == strip(theirs)
    assert ours["player_ids"] == [p["user_id"] for p in match.players]
    assert "ratings" in ours  # a rated match carries the Wertungszahl before and after


def test_an_unknown_match_is_404():
    get_json("/api/v1/matches/999999", 404)


def test_the_signing_key_is_the_one_that_checks_records(three):
    keys = get_json("/api/v1/keys")
    record = get_json(f"/api/v1/matches/{three[0].pk}")
    assert keys["current"]["hex"] == record["signature"]["public_key"]
    assert keys["current"]["key_id"] == record["signature"]["key_id"]
    assert keys["current"]["pem"].startswith("-----BEGIN PUBLIC KEY-----")
    assert records_export.record_signature_holds(record, public_key=bytes.fromhex(keys["current"]["hex"]))
    assert keys["retired"] == []


def test_retired_keys_are_published(settings):
    old = records_export.public_key_of(bytes(32))
    settings.RECORDS_RETIRED_PUBLIC_KEYS = [old.hex()]
    keys = get_json("/api/v1/keys")
    assert [k["hex"] for k in keys["retired"]] == [old.hex()]
    assert keys["retired"][0]["key_id"] == records_export.key_id(old)


# --- the export ------------------------------------------------------------------------------------------


def test_the_export_streams_one_signed_record_a_line(three):
    response = Client().get("/api/v1/players/anna/matches.ndjson")
    assert response.status_code == 200
    assert isinstance(response, StreamingHttpResponse)
    assert response["Content-Type"].startswith("application/x-ndjson")
    assert response["Access-Control-Allow-Origin"] == "*"
    lines = b"".join(response.streaming_content).decode().splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == 3
    assert all(records_export.record_signature_holds(r) for r in records)
    assert [r["player_ids"] for r in records] == [[p["user_id"] for p in m.players] for m in reversed(three)]


def match_reads(queries) -> int:
    return sum(1 for q in queries.captured_queries if 'FROM "games_match"' in q["sql"])


def test_the_export_reads_a_chunk_when_the_stream_needs_it(three, monkeypatch):
    monkeypatch.setattr(api_selectors, "EXPORT_CHUNK", 2)
    with CaptureQueriesContext(connection) as queries:
        response = Client().get("/api/v1/players/anna/matches.ndjson")
        assert match_reads(queries) == 0  # nothing before the first line is asked for
        stream = iter(response.streaming_content)
        first, second = next(stream), next(stream)
        assert match_reads(queries) == 1
        rest = list(stream)
        assert match_reads(queries) == 2
    assert [json.loads(line)["player_ids"][1] for line in (first, second, *rest)] == [
        m.players[1]["user_id"] for m in reversed(three)]


def test_an_export_left_halfway_leaves_the_connection_usable(three, monkeypatch, rf):
    """A client that goes away mid-stream: the server closes the response. No cursor was left open between
    chunks, and the connection the request used goes on answering (and writing) in the same transaction.
    (The view is called as a server calls it: the test client's own wrapper closes a stream differently.)"""
    monkeypatch.setattr(api_selectors, "EXPORT_CHUNK", 1)
    path = "/api/v1/players/anna/matches.ndjson"
    match = resolve(path)
    response = match.func(rf.get(path), *match.args, **match.kwargs)
    stream = iter(response.streaming_content)
    assert json.loads(next(stream))["player_ids"][1] == three[-1].players[1]["user_id"]
    with connection_kept():  # the server's close sends request_finished (conftest)
        response.close()
    assert connection.in_atomic_block
    Match.objects.filter(pk=three[0].pk).update(ranked=False)
    assert Match.objects.filter(ranked=True).count() == 0


def test_under_asgi_the_export_is_sent_line_by_line_as_it_is_read(three, monkeypatch):
    """Under daphne Django reads a plain iterator to its end before it sends a byte: the export gives the ASGI
    server an asynchronous one, so its body leaves a chunk at a time. (async_to_sync runs the reads, which are
    thread-sensitive, in this thread: on the test's connection, inside its transaction.)"""
    monkeypatch.setattr(api_selectors, "EXPORT_CHUNK", 1)

    async def read(queries) -> list[tuple[bytes, int]]:
        response = await AsyncClient().get("/api/v1/players/anna/matches.ndjson")
        assert response.status_code == 200 and response.is_async
        return [(part, match_reads(queries)) async for part in response.streaming_content]

    # This thread's connection itself, not the proxy that names the loop thread's one when read there.
    with CaptureQueriesContext(connections["default"]) as queries:
        parts = async_to_sync(read)(queries)
    assert [reads for _, reads in parts] == [1, 2, 3]  # each line left before the next match was read
    assert [json.loads(part)["player_ids"][1] for part, _ in parts] == [
        m.players[1]["user_id"] for m in reversed(three)]


def test_the_export_takes_the_list_filters(three):
    response = Client().get("/api/v1/players/anna/matches.ndjson", {"opponent": "cleo"})
    lines = b"".join(response.streaming_content).splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert records_export.record_signature_holds(record)
    assert record["players"] == ["anna", "cleo"]


def test_the_export_writes_each_match_as_its_own_download_writes_it(three, monkeypatch):
    """The export reads a chunk's rounds, players and rating changes at once: the same records as one match's
    download reads them one match at a time (the ranked match's rating changes included)."""
    monkeypatch.setattr(api_selectors, "EXPORT_CHUNK", 2)
    lines = b"".join(Client().get("/api/v1/players/anna/matches.ndjson").streaming_content).splitlines()
    unsigned = lambda record: {k: v for k, v in record.items() if k not in ("signature", "signed_at")}  # noqa: E731
    exported = [unsigned(json.loads(line)) for line in lines]
    assert exported == [unsigned(records_export.record_export(match=m)) for m in reversed(three)]
    assert "ratings" in exported[-1] and "ratings" not in exported[0]
