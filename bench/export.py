"""Export memory benchmark: the NDJSON export of a player's finished matches (``/api/v1/players/<name>/
matches.ndjson``) read through Django's test Client (the whole view and its stream; no network) at 1,000 and at
10,000 matches, with tracemalloc: the peak of the memory Python allocated while the stream is read and dropped,
the records' bytes, and the queries. The claim it checks: the peak does not grow with the number of matches
(the export holds a chunk, ``api.selectors.EXPORT_CHUNK``), nor do the queries beyond a fixed few a chunk.

Run ``.venv/bin/python -m bench.export`` (``--sizes 1000 10000``). It makes its own SQLite file in a temporary
folder (migrated, one gin match played out through the services, then cloned with bulk inserts to each size)
and removes it afterwards. Figures, no pass/fail. Two peaks per size: with CPython's cyclic collector left to
its own thresholds (what a server sees) and with a collection after each chunk (what the export holds; each
query leaves a few objects in a reference cycle, collected at the collector's pace).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import secrets
import shutil
import tempfile
import time
import tracemalloc
import warnings
from datetime import timedelta
from typing import Any


def _setup(folder: str) -> None:
    # Always its own throwaway SQLite file and the local cache: never a database or Redis named in the
    # environment (the bench inserts thousands of matches).
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    os.environ["SQLITE_PATH"] = os.path.join(folder, "bench-export.sqlite3")
    # As a server runs: DEBUG off (Django then keeps no log of the queries), so a key and a secret of its own.
    os.environ["DEBUG"] = "0"
    os.environ["SECRET_KEY"] = secrets.token_hex(32)
    os.environ["RECORDS_SIGNING_KEY"] = secrets.token_hex(32)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    call_command("createcachetable", verbosity=0)


def play_one_match() -> Any:
    """A gin match of two people played to its end through the services, each seat by the game's simple bot
    from its own view (as the suite's helpers do); the finished Match."""
    from django.contrib.auth import get_user_model

    from games import registry, services
    from games.models import Match, Table

    user_model = get_user_model()
    users = [user_model.objects.create_user(n, f"{n}@example.org", "pw-" + n * 2) for n in ("anna", "ben")]
    table = services.table_create_seated(game="gin", users=users, preset="klassisch", options={"target": 50},
                                         ranked=False)
    kind = registry.get("gin")
    rng = random.Random(5)
    for _ in range(5000):
        table = Table.objects.get(pk=table.pk)
        if table.status != Table.Status.PLAYING:
            return Match.objects.get(pk=table.current_match_id)
        state = kind.engine.Match.from_json(table.state)
        seat = state.to_act
        if seat is None:
            waiting = [s for s in table.seats.all() if s.user_id and not s.left and not s.ready]
            if waiting:
                services.round_ready(table_id=table.pk, user=waiting[0].user)
            else:
                services.turn_timeout(table_id=table.pk, now=table.turn_deadline + timedelta(seconds=1))
            continue
        action = kind.bots.choose_action(kind.engine.view(state, seat), "simple", rng)
        services.move_apply(table_id=table.pk, user=users[seat], version=table.version, action=action)
    raise RuntimeError("the match did not finish")


def clone_to(match: Any, total: int) -> None:
    """Clones of ``match`` (its rounds and players) until its player has ``total`` finished matches, older than
    those so far; bulk inserts of 1,000 at a time."""
    from games.models import Match, Round

    rounds = list(match.rounds.all())
    users = list(match.users.all())
    have = Match.objects.filter(users=users[0]).count()
    oldest = Match.objects.filter(users=users[0]).order_by("finished_at").first()
    number = Match.objects.filter(table_id=match.table_id).order_by("-number").first().number
    while have < total:
        batch = min(1000, total - have)
        clones = Match.objects.bulk_create([
            Match(table_id=match.table_id, number=number + i, game=match.game, options=match.options,
                  ranked=False, players=match.players, status=Match.Status.FINISHED, result=match.result,
                  final_scores=match.final_scores, winner_seat=match.winner_seat, winner_id=match.winner_id,
                  left_seats=match.left_seats, finished_at=oldest.finished_at - timedelta(seconds=i))
            for i in range(1, batch + 1)
        ])
        Round.objects.bulk_create([
            Round(match=c, number=r.number, deal_hash=r.deal_hash, deal=r.deal, record=r.record, result=r.result,
                  finished_at=r.finished_at)
            for c in clones for r in rounds
        ])
        Match.users.through.objects.bulk_create([
            Match.users.through(match_id=c.pk, user_id=u.pk) for c in clones for u in users
        ])
        number += batch
        oldest = clones[-1]
        have += batch


def measure(username: str, *, collect_each_chunk: bool) -> dict[str, int]:
    """One whole export read and dropped under tracemalloc: lines, bytes, peak, queries."""
    from django.db import connection
    from django.test import Client

    from api import selectors as api_selectors

    chunk = api_selectors.EXPORT_CHUNK
    queries = [0]

    def count(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        queries[0] += 1
        return execute(sql, params, many, context)

    gc.collect()
    tracemalloc.start()
    try:
        with connection.execute_wrapper(count):
            response = Client().get(f"/api/v1/players/{username}/matches.ndjson", secure=True)
            assert response.status_code == 200, response.status_code
            lines = size = 0
            for part in response.streaming_content:
                lines += part.count(b"\n")
                size += len(part)
                if collect_each_chunk and lines % chunk == 0:
                    gc.collect()
            response.close()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return {"lines": lines, "bytes": size, "peak": peak, "queries": queries[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000])
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message="No directory at")  # no collectstatic here: no static file is asked
    folder = tempfile.mkdtemp(prefix="bench-export-")
    try:
        _setup(folder)
        from api import selectors as api_selectors

        started = time.perf_counter()
        match = play_one_match()
        print(f"one gin match played ({match.rounds.count()} rounds), chunk {api_selectors.EXPORT_CHUNK} matches; "
              f"seeding and reading as we go ({time.perf_counter() - started:.0f} s so far)")
        rows = []
        for size in sorted(args.sizes):
            clone_to(match, size)
            if not rows:
                measure("anna", collect_each_chunk=False)  # warm: imports, caches, the signing key
            plain = measure("anna", collect_each_chunk=False)
            held = measure("anna", collect_each_chunk=True)
            assert plain["lines"] == held["lines"] == size, (plain, held, size)
            rows.append((size, plain, held))
        print(f"{'matches':>8} {'records MB':>10} {'peak MB':>8} {'held MB':>8} {'queries':>8}")
        for size, plain, held in rows:
            print(f"{size:>8} {plain['bytes'] / 1e6:>10.1f} {plain['peak'] / 1e6:>8.2f} {held['peak'] / 1e6:>8.2f} "
                  f"{plain['queries']:>8}")
        (small, p0, h0), (big, p1, h1) = rows[0], rows[-1]
        print(f"{big} against {small} matches: peak {p1['peak'] - p0['peak']:+,} bytes "
              f"({(p1['peak'] - p0['peak']) / (big - small):+.1f} a match), held {h1['peak'] - h0['peak']:+,} bytes "
              f"({(h1['peak'] - h0['peak']) / (big - small):+.1f} a match); records {p1['bytes'] / p0['bytes']:.1f}x; "
              f"queries {p1['queries'] - p0['queries']:+} for {(big - small) / api_selectors.EXPORT_CHUNK:.0f} "
              f"more chunks")
        print(f"({time.perf_counter() - started:.0f} s in all)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
