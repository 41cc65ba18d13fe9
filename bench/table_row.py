"""What a move's row costs PostgreSQL, for four layouts of the table row side by side in one run: as it was
before migration 0011 (``table_deadline_idx`` and ``table_bot_due_idx`` indexed, fillfactor 100, the state out
of line in TOAST with pglz), as 0011 makes it (``HOT``: no index of a column a move changes, fillfactor 60),
and two that were tried and not kept: the state compressed with lz4 (``HOT+lz4``), and kept in the row
(``HOT+main``: ``STORAGE MAIN``, lz4).

Each layout is a copy of ``games_table``'s columns with its own indexes (``bench_row_<pid>_<layout>``, dropped
afterwards), ``--tables`` rows each holding the state of a real gin match some rounds in (played by the engine
and its simple bot; ~17 KB of JSON by default). A move is what the site's move does to the row
(``games.services``): in one transaction, the row locked and read with its state, then its version, state,
deadline, move count and ``updated_at`` written. The layouts take turns, ``--moves`` moves each, ``--rounds``
times, on one connection. Printed per layout: the moves' wall time (p50, mean; the database's and this
client's, on one machine), the buffers a move touched in the table, its indexes, its TOAST table and the TOAST
index (``pg_statio_user_tables``), the WAL written per move (the server's, over the layout's turns), the share
of HOT updates, the sizes, and the WAL one more update wrote (``EXPLAIN (ANALYZE, WAL)``: full-page images
included, so it depends on when the last checkpoint was); then each layout against the first. Buffers, HOT and WAL do not depend on the
machine's load; times do, so compare the ratios.

Run ``DATABASE_URL=postgres://... .venv/bin/python -m bench.table_row`` against a migrated database (it copies
``games_table``'s columns); under ``flock /tmp/bench.lock`` on a shared machine. ``--match-rounds 0`` for a
match's first round (a state of ~2 KB, which PostgreSQL keeps in the row in every layout).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from typing import Any

_BEFORE_INDEXES = ["(created_by_id)", "(current_match_id)", "(deal_group)", "(deal_group varchar_pattern_ops)",
                   "(invite_token)", "(invite_token varchar_pattern_ops)", "(bot_due_at)", "(turn_deadline)",
                   "(status, private, game, created_at DESC)"]
_AFTER_INDEXES = [*_BEFORE_INDEXES[:6], "(status, private, game, created_at DESC)", "(id) WHERE status = 'playing'"]

#: The layouts compared: the first is the reference (the row before 0011), the others ratios to it.
LAYOUTS: dict[str, dict[str, Any]] = {
    "before": {"indexes": _BEFORE_INDEXES, "fillfactor": 100, "storage": "EXTENDED", "compression": "pglz"},
    "HOT": {"indexes": _AFTER_INDEXES, "fillfactor": 60, "storage": "EXTENDED", "compression": "pglz"},
    "HOT+lz4": {"indexes": _AFTER_INDEXES, "fillfactor": 60, "storage": "EXTENDED", "compression": "lz4"},
    "HOT+main": {"indexes": _AFTER_INDEXES, "fillfactor": 60, "storage": "MAIN", "compression": "lz4"},
}


def _slug(name: str) -> str:
    """The layout's table: named per process, so two runs side by side do not drop each other's."""
    return f"{os.getpid()}_{name.lower().replace('+', '_')}"


def match_state(rounds: int, seed: int) -> dict[str, Any]:
    """A gin match's state (``to_json``) with ``rounds`` rounds finished and the next one some moves in."""
    from games import registry

    entry = registry.get("gin")
    engine, bots = entry.engine, entry.bots
    rng = random.Random(seed)
    while True:
        state = engine.new_match({}, seats=2, rng=rng)
        if rounds == 0:
            for _ in range(10):
                view = engine.view(state, state.to_act)
                state = engine.apply_action(state, state.to_act, bots.choose_action(view, "simple", rng), rng=rng)
            return state.to_json()
        for _ in range(20_000):
            if state.over:
                break
            if state.to_act is None:
                if len(state.to_json()["finished"]) >= rounds:
                    break
                state = engine.deal_next_round(state, rng)
                continue
            view = engine.view(state, state.to_act)
            state = engine.apply_action(state, state.to_act, bots.choose_action(view, "simple", rng), rng=rng)
        if not state.over and len(state.to_json()["finished"]) >= rounds:
            state = engine.deal_next_round(state, rng)
            for _ in range(10):  # some moves into the next round
                view = engine.view(state, state.to_act)
                state = engine.apply_action(state, state.to_act, bots.choose_action(view, "simple", rng), rng=rng)
            return state.to_json()
        seed += 1  # the match ended before that many rounds: another one


def _setup(cursor: Any, name: str, layout: dict[str, Any], tables: int, state: str, lz4: bool) -> None:
    cursor.execute(f"DROP TABLE IF EXISTS {name}")
    cursor.execute(f"CREATE TABLE {name} (LIKE games_table INCLUDING DEFAULTS INCLUDING CONSTRAINTS "
                   f"INCLUDING IDENTITY) WITH (fillfactor = {layout['fillfactor']})")
    cursor.execute(f"ALTER TABLE {name} ADD PRIMARY KEY (id)")
    for number, columns in enumerate(layout["indexes"]):
        cursor.execute(f"CREATE INDEX {name}_{number} ON {name} {columns}")
    cursor.execute(f"ALTER TABLE {name} ALTER COLUMN state SET STORAGE {layout['storage']}")
    compression = layout["compression"] if lz4 or layout["compression"] != "lz4" else "pglz"
    cursor.execute(f"ALTER TABLE {name} ALTER COLUMN state SET COMPRESSION {compression}")
    cursor.execute(
        f"INSERT INTO {name} (game, preset, options, seat_count, ranked, private, invite_token, status, version, "
        "turn_deadline, state, created_at, updated_at, tournament, deal_seed, deal_group, moves_logged) "
        "SELECT 'gin', 'klassisch', '{}', 2, false, false, '', 'playing', 1, now() + interval '45 seconds', "
        "%s::jsonb, now(), now(), false, '', '', 0 FROM generate_series(1, %s)", [state, tables])
    cursor.execute(f"VACUUM ANALYZE {name}")


def _statio(cursor: Any, name: str) -> dict[str, int]:
    cursor.execute("SELECT pg_stat_force_next_flush()")
    cursor.execute("SELECT pg_stat_clear_snapshot()")
    cursor.execute("SELECT coalesce(heap_blks_hit, 0) + coalesce(heap_blks_read, 0), "
                   "coalesce(idx_blks_hit, 0) + coalesce(idx_blks_read, 0), "
                   "coalesce(toast_blks_hit, 0) + coalesce(toast_blks_read, 0), "
                   "coalesce(tidx_blks_hit, 0) + coalesce(tidx_blks_read, 0) "
                   "FROM pg_statio_user_tables WHERE relname = %s", [name])
    heap, idx, toast, tidx = cursor.fetchone()
    cursor.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = %s", [name])
    upd, hot = cursor.fetchone()
    return {"heap": heap, "indexes": idx, "toast": toast, "toast index": tidx, "updates": upd, "hot": hot}


def _moves(connection: Any, name: str, ids: list[int], moves: int, rng: random.Random) -> list[float]:
    times = []
    for _ in range(moves):
        pk = rng.choice(ids)
        start = time.perf_counter()
        with connection.transaction(), connection.cursor() as cursor:
            cursor.execute(f"SELECT version, state::text, moves_logged FROM {name} WHERE id = %s FOR UPDATE", [pk])
            version, text, logged = cursor.fetchone()
            state = json.loads(text)
            state["round"]["moves"] = state["round"].get("moves", [])[-40:] + [{"seat": version % 2}]
            cursor.execute(f"UPDATE {name} SET version = %s, state = %s::jsonb, "
                           "turn_deadline = now() + interval '45 seconds', moves_logged = %s, updated_at = now() "
                           "WHERE id = %s", [version + 1, json.dumps(state), logged + 1, pk])
        times.append(time.perf_counter() - start)
    return times


def _lsn(connection: Any) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn")
        return int(cursor.fetchone()[0])


def _wal(connection: Any, name: str, pk: int) -> str:
    with connection.transaction(), connection.cursor() as cursor:
        cursor.execute(f"SELECT state::text FROM {name} WHERE id = %s FOR UPDATE", [pk])
        state = json.loads(cursor.fetchone()[0])
        state["round"]["moves"] = state["round"].get("moves", []) + [{"seat": 0}]
        cursor.execute(f"EXPLAIN (ANALYZE, WAL, COSTS OFF, TIMING OFF, SUMMARY OFF) UPDATE {name} "
                       "SET version = version + 1, state = %s::jsonb, turn_deadline = now() + interval '45 seconds', "
                       "updated_at = now() WHERE id = %s", [json.dumps(state), pk])
        lines = [row[0].strip() for row in cursor.fetchall()]
    return next((line.removeprefix("WAL: ") for line in lines if line.startswith("WAL:")), "?")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=2000, help="rows of each layout")
    parser.add_argument("--playing", type=int, default=20, help="rows the moves go to (the load test's ceiling: 20)")
    parser.add_argument("--moves", type=int, default=1000, help="moves per layout and round")
    parser.add_argument("--rounds", type=int, default=3, help="turns of each layout")
    parser.add_argument("--match-rounds", type=int, default=8, help="finished rounds in the match's state")
    parser.add_argument("--no-sync-commit", dest="sync_commit", action="store_false",
                        help="commit without waiting for the WAL flush (the database's work without the disk's)")
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")
    import django

    django.setup()
    import psycopg
    from django.db import connection as django_connection

    if django_connection.vendor != "postgresql":
        raise SystemExit("bench.table_row needs DATABASE_URL pointing to a migrated PostgreSQL database")
    params = django_connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    state = match_state(args.match_rounds, seed=11)
    text = json.dumps(state)
    print(f"state: {len(text)} bytes of JSON ({len(state['finished'])} finished rounds: "
          f"{len(json.dumps(state['finished']))} bytes)")
    connection = psycopg.connect(**params, autocommit=True)
    if not args.sync_commit:
        connection.execute("SET synchronous_commit = off")
    rng = random.Random(3)
    times: dict[str, list[float]] = {name: [] for name in LAYOUTS}
    stats: dict[str, dict[str, int]] = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('server_version'), "
                           "'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'")
            version, lz4 = cursor.fetchone()
            print(f"PostgreSQL {version}, lz4 {'available' if lz4 else 'not available (pglz instead)'}")
            for name, layout in LAYOUTS.items():
                _setup(cursor, f"bench_row_{_slug(name)}", layout, args.tables, text, lz4)
        ids = list(range(1, args.playing + 1))
        with connection.cursor() as cursor:
            before = {name: _statio(cursor, f"bench_row_{_slug(name)}") for name in LAYOUTS}
        wal_bytes = dict.fromkeys(LAYOUTS, 0)
        for _ in range(args.rounds):
            for name in LAYOUTS:
                start = _lsn(connection)
                times[name] += _moves(connection, f"bench_row_{_slug(name)}", ids, args.moves, rng)
                wal_bytes[name] += _lsn(connection) - start
        with connection.cursor() as cursor:
            for name in LAYOUTS:
                after = _statio(cursor, f"bench_row_{_slug(name)}")
                stats[name] = {key: after[key] - before[name][key] for key in after}
        wal = {name: _wal(connection, f"bench_row_{_slug(name)}", ids[0]) for name in LAYOUTS}
        with connection.cursor() as cursor:
            for name in LAYOUTS:
                cursor.execute(f"SELECT pg_column_size(state), pg_relation_size('bench_row_{_slug(name)}'), "
                               f"(SELECT pg_relation_size(reltoastrelid) FROM pg_class "
                               f"WHERE relname = 'bench_row_{_slug(name)}') FROM bench_row_{_slug(name)} WHERE id = 1")
                stats[name]["stored state"], stats[name]["heap bytes"], stats[name]["toast bytes"] = cursor.fetchone()
    finally:
        with connection.cursor() as cursor:
            for name in LAYOUTS:
                cursor.execute(f"DROP TABLE IF EXISTS bench_row_{_slug(name)}")
        connection.close()

    total = args.moves * args.rounds
    print(f"{total} moves per layout over {args.playing} of {args.tables} rows, {args.rounds} turns each, "
          f"synchronous_commit {'as the server has it' if args.sync_commit else 'off'}")
    for name, layout in LAYOUTS.items():
        print(f"  {name}: {len(layout['indexes']) + 1} indexes, fillfactor {layout['fillfactor']}, "
              f"storage {layout['storage']}, {layout['compression']}")
    names = list(LAYOUTS)
    print(f"{'':24}" + "".join(f"{name:>12}" for name in names) + "".join(f"{name + '/b':>12}" for name in names[1:]))
    rows = [
        ("move p50 (ms)", {n: statistics.median(times[n]) * 1000 for n in names}),
        ("move mean (ms)", {n: statistics.fmean(times[n]) * 1000 for n in names}),
        *[(f"{key} buffers / move", {n: stats[n][key] / total for n in names})
          for key in ("heap", "indexes", "toast", "toast index")],
        ("WAL KB / move", {n: wal_bytes[n] / total / 1024 for n in names}),
        ("HOT updates (%)", {n: 100 * stats[n]["hot"] / max(stats[n]["updates"], 1) for n in names}),
        ("stored state (bytes)", {n: float(stats[n]["stored state"]) for n in names}),
        ("table KB after", {n: stats[n]["heap bytes"] / 1024 for n in names}),
        ("TOAST KB after", {n: (stats[n]["toast bytes"] or 0) / 1024 for n in names}),
    ]
    for label, values in rows:
        ratios = "".join(f"{values[n] / values[names[0]]:>11.2f}×" if values[names[0]] else f"{'—':>12}"
                         for n in names[1:])
        print(f"{label:24}" + "".join(f"{values[n]:>12.2f}" for n in names) + ratios)
    for name in names:
        print(f"WAL of one move's update (after the moves), {name}: {wal[name]}")
    print("(WAL per move: the server's whole WAL while the layout's moves ran, anything else it wrote included)")


if __name__ == "__main__":
    main()
