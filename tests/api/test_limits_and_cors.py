"""The per-address limit (counted in the shared cache; 429 with Retry-After) and CORS open for reads."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.core.signals import request_finished
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from api import limits
from games.models import Match

pytestmark = pytest.mark.django_db


@pytest.fixture
def three_a_window(settings, one_window):
    settings.API_RATE_LIMIT = 3
    settings.API_RATE_WINDOW = 60
    cache.clear()


def test_the_request_over_the_limit_is_429_with_retry_after(three_a_window):
    client = Client(REMOTE_ADDR="203.0.113.7")
    assert [client.get("/api/v1/keys").status_code for _ in range(3)] == [200, 200, 200]
    refused = client.get("/api/v1/keys")
    assert refused.status_code == 429
    assert refused["Retry-After"] == "30"  # the rest of the window (conftest.one_window)
    assert "try again" in refused.json()["detail"]
    assert refused["Access-Control-Allow-Origin"] == "*"  # a browser script can read why


def test_the_count_is_per_address_and_across_endpoints(three_a_window):
    one, other = Client(REMOTE_ADDR="203.0.113.7"), Client(REMOTE_ADDR="198.51.100.2")
    for path in ("/api/v1/keys", "/api/v1/tournaments", "/api/v1/openapi.json"):
        assert one.get(path).status_code == 200
    assert one.get("/api/v1/tables").status_code == 429
    assert other.get("/api/v1/tables").status_code == 200


def test_the_count_lives_in_the_shared_cache(three_a_window):
    client = Client(REMOTE_ADDR="203.0.113.7")
    for _ in range(3):
        client.get("/api/v1/keys")
    cache.clear()  # another process sees the same cache: emptying it is the only way to forget
    assert client.get("/api/v1/keys").status_code == 200


def test_the_window_ends_and_retry_after_says_when(three_a_window, rf):
    request = rf.get("/api/v1/keys", REMOTE_ADDR="192.0.2.1")
    start = 1_000_050.0  # 30 s into the 60-second window that starts at 1,000,020
    assert [limits.retry_after(request, now=start) for _ in range(3)] == [None, None, None]
    assert limits.retry_after(request, now=start + 1) == 29
    assert limits.retry_after(request, now=start + 30) is None  # the next window


def test_behind_a_proxy_the_clients_address_is_counted(three_a_window, settings):
    settings.ALLAUTH_TRUSTED_PROXY_COUNT = 1
    for client_ip in ("203.0.113.7", "203.0.113.8"):
        client = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=client_ip)
        assert [client.get("/api/v1/keys").status_code for _ in range(4)] == [200, 200, 200, 429]


def test_cors_is_open_for_get_and_the_preflight(people):
    response = Client().get("/api/v1/players/anna", HTTP_ORIGIN="https://club.example")
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    preflight = Client().options("/api/v1/players/anna", HTTP_ORIGIN="https://club.example",
                                 HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET")
    assert preflight.status_code == 204
    assert preflight["Access-Control-Allow-Origin"] == "*"
    assert "GET" in preflight["Access-Control-Allow-Methods"]
    assert "POST" not in preflight["Access-Control-Allow-Methods"]


def test_the_api_is_read_only(people):
    assert Client().post("/api/v1/players/anna").status_code == 405


def test_head_answers_like_get_without_a_body(people):
    get = Client().get("/api/v1/players/anna")
    head = Client().head("/api/v1/players/anna")
    assert head.status_code == 200 and head.content == b""
    assert head["Content-Type"] == get["Content-Type"] and head["Access-Control-Allow-Origin"] == "*"
    export = Client().head("/api/v1/players/anna/matches.ndjson")
    assert export.status_code == 200 and export["Content-Type"].startswith("application/x-ndjson")
    assert Client().head("/api/v1/players/nobody").status_code == 404


def test_a_head_of_the_export_reads_no_match_and_leaves_the_connection_open(people, play):
    """The export's HEAD answers its headers without reading a match, and finishes the request once, at its
    end: a request_finished sent in the middle (by closing the GET's answer) runs close_old_connections, which
    closes the connection under the request (and under a test's transaction on a file or PostgreSQL database)."""
    anna, ben, _ = people
    play([anna, ben])
    finished = []

    def note(**kwargs):
        finished.append(connection.connection is not None)

    request_finished.connect(note)
    try:
        with CaptureQueriesContext(connection) as queries:
            export = Client().head("/api/v1/players/anna/matches.ndjson")
    finally:
        request_finished.disconnect(note)
    assert export.status_code == 200 and export.content == b""
    assert export["Content-Disposition"] == 'attachment; filename="anna-partien.ndjson"'
    assert finished == [True]  # once: the test client's, after the answer
    assert not [q["sql"] for q in queries.captured_queries if '"games_match"' in q["sql"]]
    assert Match.objects.count() == 1  # the connection still answers


def cache_queries(path: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        Client().get(path)
    return [q["sql"] for q in queries.captured_queries if '"ginsite_cache"' in q["sql"]]


def _database_cache() -> bool:
    from django.core.cache.backends.db import DatabaseCache

    return isinstance(cache._connections[cache._alias], DatabaseCache)


def test_the_count_costs_one_cache_call_a_request(three_a_window, monkeypatch):
    """Whatever the cache: the window's first request a failed incr() and an add(), every later one incr()
    alone (what the limiter asks of the cache, counted at its door)."""
    calls: list[str] = []

    class Counted:
        def __getattr__(self, name):
            method = getattr(cache, name)

            def call(*args, **kwargs):
                calls.append(name)
                return method(*args, **kwargs)
            return call

    monkeypatch.setattr(limits, "cache", Counted())
    Client().get("/api/v1/keys")
    first, calls[:] = list(calls), []
    Client().get("/api/v1/keys")
    assert first == ["incr", "add"], first
    assert calls == ["incr"], calls


@pytest.mark.skipif(not _database_cache(), reason="counts the database cache's statements (REDIS_URL: the cache is Redis)")
def test_the_count_costs_a_read_and_a_write_of_the_database_cache(three_a_window):
    """incr() alone once the window's key exists; the window's first request a failed incr() and an add():
    either way a read and a write of the database cache (its COUNT(*) is the cache's culling check)."""
    first, second = cache_queries("/api/v1/keys"), cache_queries("/api/v1/keys")
    assert len(first) == 4 and first[-1].startswith('INSERT INTO "ginsite_cache"'), first
    assert len(second) == 4 and second[-1].startswith('UPDATE "ginsite_cache"'), second


def test_a_key_added_by_another_request_in_between_is_counted_on(three_a_window, rf, monkeypatch):
    """The window's first two requests racing: ours finds no key, the other adds it before our add(): we count
    on its key (2), not on a second one of our own."""
    backend = type(cache._connections[cache._alias])  # the DatabaseCache here
    real_add, raced = backend.add, []

    def add_raced(self, key, value, timeout=None, version=None):
        if not raced:
            raced.append(key)
            real_add(self, key, 1, timeout)  # the other request, just before ours
        return real_add(self, key, value, timeout, version)

    monkeypatch.setattr(backend, "add", add_raced)
    request = rf.get("/api/v1/keys")
    start = 60 * 1000
    assert limits.retry_after(request, now=start) is None
    assert raced and cache.get(raced[0]) == 2  # the race happened, and both requests are counted
    assert limits.retry_after(request, now=start) is None  # the third
    assert limits.retry_after(request, now=start) == 60  # the fourth: over
