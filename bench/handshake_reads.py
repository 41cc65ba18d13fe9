"""What a batch of handshakes costs to read its tables (``selectors.table_openings_many``), the site's reads
against the same reads as Django querysets, taking turns call by call in one run (issue 24).

The site: five statements (tables, chat, then seats, rounds, versions), each compiled once per process with
its ids as one array parameter (``prepared.PreparedIn``), in two round trips (``prepared.fetch_in_together``).
The reference: the very same querysets evaluated as Django evaluates them, one after the other (compiled on
every call, five round trips): what the site did before. Both give the same openings (checked on the first
batch). Each call reads ``--tables`` random tables (two sockets each, the frame cache emptied first, as for a
table's first socket in a process); ``--threads`` threads call side by side (a daphne has four handshake
readers), each taking turns between the two ways, so both see the same load. Printed: each way's wall time
per call (p50, mean, p90) and the site's ratio to the reference.

Run against a migrated PostgreSQL database, through PgBouncer as the scaled stack does, under ``flock
/tmp/bench.lock`` on a shared machine::

    DATABASE_URL=postgres://ginsite:ginsite@127.0.0.1:6432/<db> DATABASE_POOL_MODE=transaction \\
        .venv/bin/python -m bench.handshake_reads --threads 1 --seconds 20

It seeds ``--seed-tables`` playing gin tables of its own (users ``hsbench<n>a``/``b``) if the database has
fewer playing tables than that.
"""

from __future__ import annotations

import os
import random
import statistics
import threading
import time

from bench import postgres


def main() -> None:
    parser = postgres.parser("bench.handshake_reads", __doc__)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--tables", type=int, default=2, help="tables per batch (two sockets each)")
    parser.add_argument("--seed-tables", type=int, default=200)
    args = postgres.setup(parser, measures="PostgreSQL's round trips")
    from django.db import connections

    from games import services
    from games.delivery import framecache
    from games.models import Table
    from games.reads import selectors
    from games.reads.prepared import fetch_in_together

    playing = Table.objects.filter(status="playing")
    if playing.count() < args.seed_tables:
        from django.contrib.auth import get_user_model

        User = get_user_model()
        for i in range(args.seed_tables - playing.count()):
            a, _ = User.objects.get_or_create(username=f"hsbench{i}a")
            b, _ = User.objects.get_or_create(username=f"hsbench{i}b")
            table = services.table_create(user=a, game="gin", preset="klassisch", options={"turn_seconds": 600})
            services.table_join(table_id=table.pk, user=b)
    users = {table.pk: [seat.user for seat in table.seats.select_related("user").all()]
             for table in playing.order_by("pk")[: args.seed_tables]}
    ids = list(users)

    def as_django(*reads, using="default"):
        return [list(read.build_in(list(values))) for read, values in reads]

    way = threading.local()
    selectors.fetch_in_together = lambda *reads, using="default": (  # type: ignore[assignment]
        fetch_in_together(*reads, using=using) if way.site else as_django(*reads, using=using))
    first = {pk: [(user, "") for user in users[pk]] for pk in ids[: args.tables]}
    for site in (True, False):
        way.site = site
        framecache.clear()
        got = selectors.table_openings_many(first)
        if site:
            expected = got
    assert got == expected, "both ways give the same openings"

    times: dict[bool, list[float]] = {True: [], False: []}
    lock = threading.Lock()
    stop = time.monotonic() + args.seconds

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        turn = seed % 2
        try:
            while time.monotonic() < stop:
                batch = rng.sample(ids, args.tables)
                requests = {pk: [(user, "") for user in users[pk]] for pk in batch}
                framecache.clear()
                way.site = bool(turn % 2)
                turn += 1
                started = time.perf_counter()
                selectors.table_openings_many(requests)
                took = time.perf_counter() - started
                with lock:
                    times[way.site].append(took)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(args.threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    figures = {}
    for site, label in ((False, "Django querysets, one at a time (before)"), (True, "the site's (compiled once, 2 trips)")):
        values = sorted(times[site])
        figures[site] = (statistics.median(values), statistics.mean(values), values[int(0.9 * len(values))])
        p50, mean, p90 = (1000 * v for v in figures[site])
        print(f"{label:<42} calls {len(values):>5}  p50 {p50:6.2f} ms  mean {mean:6.2f} ms  p90 {p90:6.2f} ms")
    ratios = [site / before for site, before in zip(figures[True], figures[False], strict=True)]
    print(f"site ÷ before: p50 {ratios[0]:.2f}×, mean {ratios[1]:.2f}×, p90 {ratios[2]:.2f}×  "
          f"({args.threads} thread(s), {args.tables} tables a batch, load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
