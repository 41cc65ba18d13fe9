"""What one move costs PostgreSQL's CPU: the site's move (``services.move_apply``) against the bare stack's
(``../shared/stackbench/stack.py``: the row locked and read, then updated, one transaction), taking turns
move by move in one run (issue 24).

PostgreSQL's CPU is read from the kernel (``/proc/<pid>/schedstat``: run time in ns, user and system) for
the server processes of the bench's database (its backends, through PgBouncer or not), before and after
each move and around each statement the move sends, so it counts the database's own work only: parsing,
planning, executing, sending the rows, the commit (the foreign keys' checks, the WAL written and flushed).
Printed per way: the backends' CPU per move (mean, p50), the site's split into its round trips (the locked
read and the seats, sent together; the writes; the commit), the WAL per move (p50 of the server's WAL position
moved across each move: another database's writes in the same moment add to it on a shared machine), and the
site's ratio to the bare stack. The
server's own processes (WAL writer, checkpointer, autovacuum) are shared with every database on the
machine and are printed for the whole run, not per way.

The site's moves are a gin simple bot's on ``--tables`` tables of the bench's own (users
``mvbench<pid>_<n>a``/``b``), played on through rounds (both seats ready) and matches (a rematch), so the state grows as in a
match of the load test (``--warmup`` moves first, not measured); the mean size of the state is printed. The bare stack's table is
``bench_bare_<pid>`` (dropped afterwards).

On a shared machine the CPU a move costs moves with what else runs (caches, clock): the bare stack's figure is
the reference taken in the same moments, but the ratio still drifts by ±10 % between runs minutes apart, so
compare two trees by runs taken in turns (before, after, before) and trust differences larger than that;
levers smaller than it need a call-by-call A/B of their own.

Run against a migrated PostgreSQL database of its own, through PgBouncer as the scaled stack does, under
``flock /tmp/bench.lock`` on a shared machine::

    DATABASE_URL=postgres://ginsite:ginsite@127.0.0.1:6432/<db> DATABASE_POOL_MODE=transaction \\
        .venv/bin/python -m bench.move_postgres --moves 2000
"""

from __future__ import annotations

import json
import os
import random
import statistics
import time
from collections import defaultdict
from typing import Any

from bench import postgres


def _runtime(pid: int) -> int:
    """The process's CPU time so far, in ns (user and system)."""
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            return int(f.read().split()[0])
    except (FileNotFoundError, ProcessLookupError):
        return 0


def _server_processes(dbname: str) -> tuple[list[int], list[int]]:
    """PostgreSQL's backends of ``dbname`` (``postgres: ... <user> <db> <host>``), and the server's own
    processes (WAL writer, checkpointer, background writer, autovacuum)."""
    backends, own = [], []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if not cmdline.startswith("postgres: "):
            continue
        words = cmdline.split()
        if f" {dbname} " in f" {cmdline} " and len(words) > 4:
            backends.append(int(entry))
        elif any(name in cmdline for name in ("walwriter", "checkpointer", "background writer", "autovacuum")):
            own.append(int(entry))
    return backends, own


class Meter:
    """The CPU of a set of processes, refreshed by name now and then (a pooler may open new connections)."""

    def __init__(self, dbname: str):
        self.dbname = dbname
        self.refresh()

    def refresh(self) -> None:
        self.backends, self.own = _server_processes(self.dbname)

    def backends_ns(self) -> int:
        return sum(_runtime(pid) for pid in self.backends)

    def own_ns(self) -> int:
        return sum(_runtime(pid) for pid in self.own)


def _wal_bytes(cursor: Any) -> int:
    """The server's WAL position, in bytes (every database's writes move it)."""
    cursor.execute("SELECT pg_current_wal_insert_lsn() - '0/0'")
    return int(cursor.fetchone()[0])


def main() -> None:
    parser = postgres.parser("bench.move_postgres", __doc__)
    parser.add_argument("--moves", type=int, default=2000, help="moves of each way")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3000,
                        help="moves played first, not measured: matches some rounds in, as in the load test")
    parser.add_argument("--seed", type=int, default=1)
    args = postgres.setup(parser, measures="PostgreSQL's CPU")
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from games import registry, services
    from games.models import Table

    dbname = connection.settings_dict["NAME"]
    rng = random.Random(args.seed)
    User = get_user_model()
    engine, bots = registry.get("gin").engine, registry.get("gin").bots
    players: dict[int, list[Any]] = {}
    for i in range(args.tables):
        a, _ = User.objects.get_or_create(username=f"mvbench{os.getpid()}_{i}a")
        b, _ = User.objects.get_or_create(username=f"mvbench{os.getpid()}_{i}b")
        table = services.table_create(user=a, game="gin", preset="klassisch", options={"turn_seconds": 600})
        services.table_join(table_id=table.pk, user=b)
        players[table.pk] = [a, b]
    bare = f"bench_bare_{os.getpid()}"
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE {bare} (id serial PRIMARY KEY, version integer NOT NULL, state jsonb NOT NULL)")
        cursor.execute(f"INSERT INTO {bare} (version, state) SELECT 0, '{{}}' FROM generate_series(1, %s)",
                       [args.tables])

    def site_next(pk: int) -> Any:
        """What the player to act at table ``pk`` does (a move to measure), or None after getting the table
        on (between rounds: both seats ready; after a match: a rematch)."""
        table = Table.objects.get(pk=pk)
        if table.status != Table.Status.PLAYING:
            for user in players[pk]:
                services.match_rematch(table_id=pk, user=user)
            return None
        state = engine.Match.from_json(table.state)
        if state.to_act is None:
            for user in players[pk]:
                services.round_ready(table_id=pk, user=user)
            return None
        sizes.append(len(json.dumps(table.state, separators=(",", ":"))))
        action = bots.choose_action(engine.view(state, state.to_act), "simple", rng)
        return lambda: services.move_apply(table_id=pk, user=players[pk][state.to_act], version=table.version,
                                           action=action)

    def bare_move(pk: int) -> None:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"SELECT id, version, state FROM {bare} WHERE id = %s FOR UPDATE", [pk])
            version = cursor.fetchone()[1]
            cursor.execute(f"UPDATE {bare} SET version = %s, state = %s WHERE id = %s",
                           [version + 1, f'{{"last": 0, "v": {version + 1}}}', pk])

    meter = Meter(dbname)
    sizes: list[int] = []
    # Per move: the backends' CPU (ns), and for the site's, per phase: from the move's start to its write
    # statement (BEGIN, the locked read and the seats, one round trip), the write, and the rest (COMMIT).
    per_move: dict[str, list[int]] = {"site": [], "bare": []}
    phases: dict[str, list[int]] = defaultdict(list)
    marks: list[tuple[str, int]] = []

    def wrapper(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        if not measuring:
            return execute(sql, params, many, context)
        verb = sql.split(None, 1)[0].upper()
        marks.append((verb, meter.backends_ns()))
        try:
            return execute(sql, params, many, context)
        finally:
            marks.append(("after " + verb, meter.backends_ns()))

    tables = list(players)
    bare_ids = list(range(1, args.tables + 1))
    measuring = False
    with connection.cursor() as cursor:
        wal: dict[str, list[int]] = {"site": [], "bare": []}
        done = {"site": 0, "bare": 0}
        turn = 0
        warm = 0
        while warm < args.warmup:
            turn += 1
            move = site_next(tables[turn % len(tables)])
            if move is not None:
                move()
                warm += 1
        sizes.clear()
        print(f"warmed up; measuring (backends {meter.backends})", flush=True)
        own_start, started = meter.own_ns(), time.monotonic()
        with connection.execute_wrapper(wrapper):
            while min(done.values()) < args.moves:
                turn += 1
                if turn % 200 == 0:
                    meter.refresh()
                move = site_next(tables[turn % len(tables)])
                if move is None:
                    continue
                for way in ("site", "bare"):
                    w0 = _wal_bytes(cursor)
                    marks.clear()
                    measuring = True
                    before = meter.backends_ns()
                    if way == "site":
                        move()
                    else:
                        bare_move(bare_ids[turn % len(bare_ids)])
                    after = meter.backends_ns()
                    measuring = False
                    wal[way].append(_wal_bytes(cursor) - w0)
                    done[way] += 1
                    per_move[way].append(after - before)
                    if way == "site":
                        # The reads go together (pipeline): their marks come before the answers; the write's
                        # last mark is after its answer.
                        write = next(i for i, (label, _) in enumerate(marks) if label in ("WITH", "INSERT", "UPDATE"))
                        phases["BEGIN, locked read, seats"].append(marks[write][1] - before)
                        phases["writes (log + row)"].append(marks[-1][1] - marks[write][1])
                        phases["COMMIT"].append(after - marks[-1][1])
        elapsed = time.monotonic() - started
        own = meter.own_ns() - own_start
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {bare}")
    print(f"{args.moves} moves each way, {args.tables} tables, state {statistics.mean(sizes) / 1024:.1f} KB of JSON"
          f" on average; database {dbname}")
    for way in ("bare", "site"):
        values = per_move[way]
        print(f"{way:<5} PostgreSQL backend CPU per move: mean {statistics.mean(values) / 1e6:.3f} ms, "
              f"p50 {statistics.median(values) / 1e6:.3f} ms; WAL p50 {statistics.median(wal[way]):,.0f} B per move")
    for name, values in phases.items():
        print(f"  site {name:<38} mean {statistics.mean(values) / 1e6:.3f} ms, p50 {statistics.median(values) / 1e6:.3f} ms")
    ratio = statistics.mean(per_move["site"]) / statistics.mean(per_move["bare"])
    print(f"site ÷ bare: {ratio:.2f}× (mean); server's own processes {own / 1e6 / (2 * args.moves):.3f} ms per move "
          f"of either way over {elapsed:.0f} s (shared with the machine's other databases)")


if __name__ == "__main__":
    main()
