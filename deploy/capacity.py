"""The capacity model's measurements (docs/scale.md, "Capacity model"), on the scaled stack as
``make run-scaled`` runs it: daphne processes and a referee on PostgreSQL **through PgBouncer** (transaction
pooling) with the channel layer **sharded over two Redis servers**, all on 127.0.0.1.

    python deploy/capacity.py ceiling [--daphnes 1,2,4,4,2,1] [--tables 20] [--seconds 15]
    python deploy/capacity.py costs [--daphnes 2] [--tables 20] [--seconds 10]
    python deploy/capacity.py idle [--sockets 1000]

- ``ceiling``: the closed loop of ``python -m loadtest --profile ceiling`` (the same scripted players) with
  each daphne count in turn, in one run, in the order given (there and back, so that a neighbour's load on
  a shared machine weighs on every count alike); prints moves/s per count and the ratio to the first.
- ``costs``: one closed-loop run with every command both Redis servers receive for this site's database
  number (``MONITOR``) and every statement and transaction PgBouncer passes to PostgreSQL for its database
  (``SHOW STATS``), per change (a move or a ready) of the run; handshakes and the referee's polls included.
- ``idle``: one daphne, its resident memory (``/proc/PID/status`` VmRSS) before and after ``--sockets``
  table sockets connect (two seats of ``--sockets / 2`` tables, each socket holding its first state) and
  then sit idle for 5 s.

Needs ``bash deploy/services.sh`` (PostgreSQL, PgBouncer, both Redis). Uses a database of its own
(``ginsite_capacity``) and Redis database 5 on both servers. Everything stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import io
import os
import random
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import loadtest.__main__ as loadtest_main  # noqa: E402
from loadtest import players, servers  # noqa: E402

DATABASE = "ginsite_capacity"
REDIS_DB = 5
PGBOUNCER = ("127.0.0.1", "6432")
REDIS_PORTS = (6379, 6380)


def _site(workdir: Path) -> servers.SiteStack:
    servers.SITE_PG_DB, servers.SITE_REDIS_DB = DATABASE, REDIS_DB
    site = servers.SiteStack("scaled", workdir)
    site.prepare()  # migrates straight to PostgreSQL
    url = site.env["DATABASE_URL"]
    site.env["DATABASE_URL"] = url.replace("127.0.0.1:5432", ":".join(PGBOUNCER))
    site.env["DATABASE_POOL_MODE"] = "transaction"
    site.env["REDIS_CHANNEL_URLS"] = ",".join(f"redis://127.0.0.1:{port}/{REDIS_DB}" for port in REDIS_PORTS)
    for port in REDIS_PORTS:
        servers._redis_flush(f"redis://127.0.0.1:{port}/{REDIS_DB}")
    return site


def _start(site: servers.SiteStack, daphnes: int) -> servers.Servers:
    servers.STACKS["scaled"]["daphnes"] = daphnes
    return site.start()


def _pgbouncer_stats() -> dict:
    done = subprocess.run(["psql", "-h", PGBOUNCER[0], "-p", PGBOUNCER[1], "-U", "ginsite", "-d", "pgbouncer",
                           "--csv", "-c", "SHOW STATS"], env={**os.environ, "PGPASSWORD": "ginsite"},
                          capture_output=True, text=True, timeout=30, check=True)
    for row in csv.DictReader(io.StringIO(done.stdout)):
        if row["database"] == DATABASE:
            return {"queries": int(row["total_query_count"]), "transactions": int(row["total_xact_count"])}
    return {"queries": 0, "transactions": 0}


def _closed_loop(site, srv, tables: int, seconds: float, prefix: str) -> players.Figures:
    info = site.seed(tables, prefix)
    profile = {"tables": tables, "think": 0.0, "ramp": 0.0, "seconds": seconds, "warmup": min(3.0, seconds / 3)}
    figures, _ = asyncio.run(loadtest_main._drive("site", info, srv.ports, profile, 1))
    return figures


def ceiling(args) -> None:
    counts = [int(n) for n in args.daphnes.split(",")]
    with servers.workspace() as workdir:
        site = _site(workdir)
        results: dict[int, list[float]] = {}
        cpu: dict[int, list[float]] = {}
        for i, n in enumerate(counts):
            info = site.seed(args.tables, f"c{i}x{int(time.time()) % 100000}x")
            srv = _start(site, n)
            try:
                time.sleep(0.5)
                before = srv.cpu_seconds()
                profile = {"tables": args.tables, "think": 0.0, "ramp": 0.0, "seconds": args.seconds,
                           "warmup": min(3.0, args.seconds / 3)}
                figures, _ = asyncio.run(loadtest_main._drive("site", info, srv.ports, profile, 1))
                used = srv.cpu_seconds() - before
            finally:
                srv.stop()
            changes = figures.all_moves + figures.other_changes
            results.setdefault(n, []).append(figures.moves_per_second)
            cpu.setdefault(n, []).append(used / changes * 1000 if changes else 0.0)
            print(f"{n} daphne: {figures.moves_per_second:.1f} moves/s, move p99 "
                  f"{(players.quantile(figures.latency, .99) or 0) * 1000:.0f} ms, failed connects "
                  f"{figures.failed_connects}, server CPU per change {cpu[n][-1]:.1f} ms, "
                  f"load average {os.getloadavg()[0]:.1f}", flush=True)
        first = sum(results[counts[0]]) / len(results[counts[0]])
        print("mean moves/s per daphne count, and the ratio to the first count:")
        for n, values in results.items():
            mean = sum(values) / len(values)
            print(f"  {n} daphne: {mean:.1f} moves/s ({mean / first:.2f}×), "
                  f"server CPU per change {sum(cpu[n]) / len(cpu[n]):.1f} ms")


def _monitor(port: int, out: list[int], stop: threading.Event) -> subprocess.Popen:
    process = subprocess.Popen(["redis-cli", "-h", "127.0.0.1", "-p", str(port), "monitor"],
                               stdout=subprocess.PIPE, text=True, errors="replace")
    pattern = re.compile(rf"^\S+ \[{REDIS_DB} ")
    commands: dict[str, int] = {}

    def read():
        assert process.stdout is not None
        for line in process.stdout:
            if stop.is_set():
                break
            if pattern.match(line):
                out[0] += 1
                name = line.split('"', 2)[1].upper() if '"' in line else "?"
                commands[name] = commands.get(name, 0) + 1

    threading.Thread(target=read, daemon=True).start()
    process.commands = commands  # type: ignore[attr-defined]
    return process


def costs(args) -> None:
    with servers.workspace() as workdir:
        site = _site(workdir)
        info = site.seed(args.tables, f"k{int(time.time()) % 100000}x")
        srv = _start(site, int(args.daphnes))
        counts = [[0] for _ in REDIS_PORTS]
        stop = threading.Event()
        try:
            time.sleep(0.5)
            stats = _pgbouncer_stats()
            monitors = [_monitor(port, count, stop) for port, count in zip(REDIS_PORTS, counts, strict=True)]
            time.sleep(0.5)
            profile = {"tables": args.tables, "think": 0.0, "ramp": 0.0, "seconds": args.seconds,
                       "warmup": min(3.0, args.seconds / 3)}
            figures, _ = asyncio.run(loadtest_main._drive("site", info, srv.ports, profile, 1))
            time.sleep(0.5)
            after = _pgbouncer_stats()
            stop.set()
            for monitor in monitors:
                monitor.terminate()
                monitor.wait()
        finally:
            srv.stop()
        changes = figures.all_moves + figures.other_changes
        sockets = 2 * args.tables
        print(f"{args.daphnes} daphne, {args.tables} tables ({sockets} sockets), {args.seconds:g} s closed loop: "
              f"{figures.all_moves} moves and {figures.other_changes} readies, {figures.moves_per_second:.1f} moves/s")
        print(f"PostgreSQL through PgBouncer: {after['queries'] - stats['queries']} statements, "
              f"{after['transactions'] - stats['transactions']} transactions: "
              f"{(after['queries'] - stats['queries']) / changes:.1f} statements and "
              f"{(after['transactions'] - stats['transactions']) / changes:.1f} transactions per change "
              f"(the {sockets} handshakes and the referee's polls included)")
        for port, count, monitor in zip(REDIS_PORTS, counts, monitors, strict=True):
            top = sorted(monitor.commands.items(), key=lambda kv: -kv[1])[:6]  # type: ignore[attr-defined]
            print(f"Redis :{port}: {count[0]} commands, {count[0] / changes:.1f} per change ({top})")
        total = sum(count[0] for count in counts)
        print(f"Redis, both servers: {total / changes:.1f} commands per change")


def _rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def idle(args) -> None:
    from websockets.asyncio.client import connect

    loadtest_main._raise_file_limit()
    tables = args.sockets // 2
    with servers.workspace() as workdir:
        site = _site(workdir)
        info = site.seed(tables, f"i{int(time.time()) % 100000}x")
        srv = _start(site, 1)
        port, pid = srv.ports[0], srv.processes[0].pid
        try:
            async def run():
                gate = asyncio.Semaphore(50)  # handshakes at a time: an idle count, not a burst

                async def one(table_id: int, session: str):
                    async with gate:
                        ws = await connect(f"ws://127.0.0.1:{port}/ws/table/{table_id}/",
                                           origin=f"http://127.0.0.1:{port}",
                                           additional_headers={"Cookie": f"sessionid={session}"},
                                           open_timeout=30, ping_interval=None, max_size=None)
                        await asyncio.wait_for(ws.recv(), 30)
                        return ws

                # Warm up: a first table's two sockets (imports, caches, the connection pools), then closed.
                warm = [await one(info[0]["id"], s) for s in info[0]["sessions"]]
                for ws in warm:
                    await ws.close()
                await asyncio.sleep(2)
                before = _rss_kb(pid)
                sockets = await asyncio.gather(*(one(t["id"], s) for t in info[1:] for s in t["sessions"]))
                await asyncio.sleep(5)
                after = _rss_kb(pid)
                for ws in sockets:
                    await ws.close()
                return before, after, len(sockets)

            before, after, n = asyncio.run(run())
        finally:
            srv.stop()
        print(f"one daphne: VmRSS {before / 1024:.1f} MB before, {after / 1024:.1f} MB with {n} idle table sockets: "
              f"{(after - before) / 1024 / n * 1000:.1f} MB per 1,000 sockets")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["ceiling", "costs", "idle"])
    parser.add_argument("--daphnes", default=None)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--sockets", type=int, default=1000)
    args = parser.parse_args(argv)
    random.seed(1)
    if args.what == "ceiling":
        args.daphnes = args.daphnes or "1,2,4,4,2,1"
        ceiling(args)
    elif args.what == "costs":
        args.daphnes = args.daphnes or "2"
        costs(args)
    else:
        args.sockets += 2  # the warm-up table's two sockets are not counted
        idle(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
