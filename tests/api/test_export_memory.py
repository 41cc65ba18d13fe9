"""The export holds a chunk, not the history: streaming 8 times as many matches peaks at about the same memory
(tracemalloc, measured while the stream is read), where holding them would grow it by their size."""

from __future__ import annotations

import gc
import json
import tracemalloc
from datetime import timedelta

import pytest
from django.test import Client

from api import selectors as api_selectors
from games.models import Match, Round
from games.reads import records as records_export

pytestmark = pytest.mark.django_db


def clone(match: Match, times: int) -> None:
    """``times`` more finished matches at the same table, each with the played match's rounds (the deals do
    not matter here: only the size of what the export reads)."""
    rounds = list(match.rounds.all())
    users = list(match.users.all())
    clones = Match.objects.bulk_create([
        Match(table_id=match.table_id, number=match.number + i, game=match.game, options=match.options,
              ranked=False, players=match.players, status=Match.Status.FINISHED, result=match.result,
              final_scores=match.final_scores, winner_seat=match.winner_seat, winner_id=match.winner_id,
              left_seats=match.left_seats, finished_at=match.finished_at - timedelta(minutes=i))
        for i in range(1, times + 1)
    ])
    Round.objects.bulk_create([
        Round(match=c, number=r.number, deal_hash=r.deal_hash, deal=r.deal, record=r.record, result=r.result,
              finished_at=r.finished_at)
        for c in clones for r in rounds
    ])
    Match.users.through.objects.bulk_create([
        Match.users.through(match_id=c.pk, user_id=u.pk) for c in clones for u in users
    ])


def peak_while_streaming(username: str) -> tuple[int, int, int]:
    """(lines, bytes, peak bytes allocated) while the whole export is read and dropped line by line."""
    gc.collect()
    tracemalloc.start()
    try:
        response = Client().get(f"/api/v1/players/{username}/matches.ndjson")
        lines = size = 0
        for chunk in response.streaming_content:
            lines += chunk.count(b"\n")
            size += len(chunk)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return lines, size, peak


def test_streaming_eight_times_the_matches_does_not_take_eight_times_the_memory(people, play, monkeypatch):
    # Both runs read whole chunks (a match row with its result is some kB): the same chunk size for both.
    monkeypatch.setattr(api_selectors, "EXPORT_CHUNK", 20)
    anna, ben, _ = people
    match = play([anna, ben])
    clone(match, 49)
    peak_while_streaming("anna")  # once to warm up: imports, caches, the signing key
    small_lines, small_size, small_peak = peak_while_streaming("anna")
    clone(Match.objects.filter(table_id=match.table_id).order_by("-number").first(), 350)
    big_lines, big_size, big_peak = peak_while_streaming("anna")
    assert (small_lines, big_lines) == (50, 400)
    # Holding them would cost at least their 350 more records' bytes (measured: about 2.7 MB more; the peak
    # grew by about 0.16 MB, the chunk's rows and the cursor's buffers).
    assert big_peak - small_peak < (big_size - small_size) / 4, (small_peak, big_peak, small_size, big_size)
    last = Client().get("/api/v1/players/anna/matches.ndjson")
    first_line = next(iter(last.streaming_content))
    assert records_export.record_signature_holds(json.loads(first_line))
