"""The export holds a chunk, not the history: streaming twice as many matches (several chunks either way) peaks
at the same memory give or take a small margin (tracemalloc, measured while the stream is read), where keeping
even a kilobyte of each match streamed would grow it by a multiple of the margin. And it reads the database a
fixed number of times a chunk, not a few times a match."""

from __future__ import annotations

import gc
import json
import tracemalloc

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from api import selectors as api_selectors
from bench.export import clone_to
from games.models import Match
from games.reads import records as records_export

pytestmark = pytest.mark.django_db

#: Matches a chunk in these tests (the site reads 200): several chunks in both runs, and a test that stays fast.
CHUNK = 25
#: How much the peak may differ between the two runs: the same chunks read, so only the noise of a run (a few
#: kB measured); a kilobyte kept of each of the N more matches would add N kB.
MARGIN = 48 * 1024
N = 150


def clone(match: Match, times: int) -> None:
    """``times`` more finished matches of the same players, each with the played match's rounds (the deals do
    not matter here: only the size of what the export reads): ``bench.export.clone_to``, bulk inserts."""
    player = list(match.users.all())[0]
    clone_to(match, Match.objects.filter(users=player).count() + times)


def clone_more(times: int) -> None:
    """``times`` more clones, older than every match so far."""
    clone(Match.objects.order_by("finished_at", "pk").first(), times)


def peak_while_streaming(username: str) -> tuple[int, int, int]:
    """(lines, bytes, peak bytes allocated) while the whole export is read and dropped line by line.

    The cyclic garbage is collected after each chunk: what the export holds is measured, not when CPython's
    collector next runs. (Each query leaves a few objects in a cycle, Django's compiler's closure, a user and
    its profile: a few kB a chunk in all, collected by the collector's thresholds whatever the matches.)"""
    gc.collect()
    tracemalloc.start()
    try:
        response = Client().get(f"/api/v1/players/{username}/matches.ndjson")
        lines = size = 0
        for chunk in response.streaming_content:
            lines += chunk.count(b"\n")
            size += len(chunk)
            if lines % CHUNK == 0:
                gc.collect()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return lines, size, peak


def test_streaming_twice_the_matches_peaks_at_the_same_memory(people, play, monkeypatch):
    monkeypatch.setattr(api_selectors, "EXPORT_CHUNK", CHUNK)
    anna, ben, _ = people
    clone(play([anna, ben]), N - 1)
    peak_while_streaming("anna")  # once to warm up: imports, caches, the signing key
    small_lines, small_size, small_peak = peak_while_streaming("anna")
    clone_more(N)
    big_lines, big_size, big_peak = peak_while_streaming("anna")
    assert (small_lines, big_lines) == (N, 2 * N)
    # The N more matches' records are some MB; the margin is far below a kilobyte each.
    assert big_size - small_size > 20 * MARGIN
    assert big_peak - small_peak < MARGIN, (small_peak, big_peak)
    last = Client().get("/api/v1/players/anna/matches.ndjson")
    first_line = next(iter(last.streaming_content))
    assert records_export.record_signature_holds(json.loads(first_line))


def export_queries(username: str) -> int:
    """The export's own queries of one whole export: not the rate limit's (the cache table, its savepoints)
    nor the hidden-card audit's (conftest: it reads the secret deals for each line it checks)."""
    with CaptureQueriesContext(connection) as queries:
        response = Client().get(f"/api/v1/players/{username}/matches.ndjson")
        lines = sum(chunk.count(b"\n") for chunk in response.streaming_content)
    assert lines == Match.objects.filter(users__username=username).count()
    theirs = ('"ginsite_cache"', "SAVEPOINT", 'SELECT "games_round"."deal"')
    return sum(1 for q in queries.captured_queries if not any(word in q["sql"] for word in theirs))


def test_the_export_reads_the_database_a_fixed_number_of_times_a_chunk(people, play, monkeypatch):
    monkeypatch.setattr(api_selectors, "EXPORT_CHUNK", 10)
    anna, ben, _ = people
    clone(play([anna, ben], ranked=True), 4)  # a ranked match: its record reads the rating changes too
    # The player, then per chunk its matches, their rounds, their players and their rating changes (5, 15 and
    # 25 matches: no chunk of 10 is full at the end, so no empty one is read after it).
    assert export_queries("anna") == 1 + 4
    clone_more(10)
    assert export_queries("anna") == 1 + 2 * 4
    clone_more(10)
    assert export_queries("anna") == 1 + 3 * 4
