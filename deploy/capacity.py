"""The capacity model's measurements (docs/scale.md, "Capacity model"), on the scaled stack as
``make run-scaled`` runs it: daphne processes and a referee on PostgreSQL **through PgBouncer** (session
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
    """The load test's scaled site (its daphne processes through PgBouncer, the layer on both Redis
    servers: ``servers.SiteStack.serving_env``) on a database of its own."""
    servers.SITE_PG_DB, servers.SITE_REDIS_DB = DATABASE, REDIS_DB
    servers.PGBOUNCER = ":".join(PGBOUNCER)
    servers.REDIS_SHARDS = [servers.local_redis(port) for port in REDIS_PORTS]  # Unix sockets where they listen
    site = servers.SiteStack("scaled", workdir)
    site.prepare()  # migrates straight to PostgreSQL, empties the Redis databases it uses
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


class _Monitor:
    """``redis-cli monitor`` on one server: the commands of this site's database number, by the second they
    arrived, split into round trips (a client's command) and the commands its scripts ran (``lua``)."""

    def __init__(self, port: int):
        self.process = subprocess.Popen(["redis-cli", "-h", "127.0.0.1", "-p", str(port), "monitor"],
                                        stdout=subprocess.PIPE, text=True, errors="replace")
        self.lines: list[tuple[float, bool, str]] = []  # (time, by a script, command)
        self.pattern = re.compile(rf'^(\d+\.\d+) \[{REDIS_DB} (\S+)\] "([A-Za-z]+)"')
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            match = self.pattern.match(line)
            if match:
                self.lines.append((float(match[1]), match[2] == "lua", match[3].upper()))

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait()

    def between(self, start: float, end: float) -> tuple[int, int, dict]:
        trips = scripted = 0
        names: dict[str, int] = {}
        for at, lua, name in self.lines:
            if start <= at <= end:
                if lua:
                    scripted += 1
                else:
                    trips += 1
                    names[name] = names.get(name, 0) + 1
        return trips, scripted, names


def costs(args) -> None:
    """Counted only in the measured window (after the connects and the warm-up), per move of that window."""
    with servers.workspace() as workdir:
        site = _site(workdir)
        info = site.seed(args.tables, f"k{int(time.time()) % 100000}x")
        srv = _start(site, int(args.daphnes))
        warmup = min(5.0, args.seconds / 3)
        snapshots: dict[str, dict] = {}
        try:
            time.sleep(0.5)
            monitors = [_Monitor(port) for port in REDIS_PORTS]
            time.sleep(0.5)
            profile = {"tables": args.tables, "think": 0.0, "ramp": 0.0, "seconds": args.seconds, "warmup": warmup}
            start = time.time()
            window = (start + warmup, start + args.seconds)
            timers = [threading.Timer(warmup, lambda: snapshots.setdefault("from", _pgbouncer_stats())),
                      threading.Timer(args.seconds, lambda: snapshots.setdefault("to", _pgbouncer_stats()))]
            for timer in timers:
                timer.start()
            figures, _ = asyncio.run(loadtest_main._drive("site", info, srv.ports, profile, 1))
            for timer in timers:
                timer.join()
            time.sleep(0.5)
            for monitor in monitors:
                monitor.stop()
        finally:
            srv.stop()
        moves = figures.moves
        sockets = 2 * args.tables
        print(f"{args.daphnes} daphne, {args.tables} tables ({sockets} sockets), {args.seconds:g} s closed loop, "
              f"{args.seconds - warmup:g} s measured: {moves} moves in the window, {figures.moves_per_second:.1f} "
              f"moves/s ({figures.other_changes} readies in the whole run), failed connects {figures.failed_connects}")
        queries = snapshots["to"]["queries"] - snapshots["from"]["queries"]
        transactions = snapshots["to"]["transactions"] - snapshots["from"]["transactions"]
        print(f"PostgreSQL through PgBouncer, in the window: {queries} statements, {transactions} transactions: "
              f"{queries / moves:.1f} statements and {transactions / moves:.1f} transactions per move "
              f"(the referee's polls and any ready of the window included)")
        total_trips = total_scripted = 0
        for port, monitor in zip(REDIS_PORTS, monitors, strict=True):
            trips, scripted, names = monitor.between(*window)
            total_trips += trips
            total_scripted += scripted
            top = sorted(names.items(), key=lambda kv: -kv[1])[:6]
            print(f"Redis :{port}: {trips} commands sent ({trips / moves:.1f} per move), {scripted} run by scripts "
                  f"({scripted / moves:.1f} per move); sent: {top}")
        print(f"Redis, both servers: {total_trips / moves:.1f} commands sent and {total_scripted / moves:.1f} "
              f"run by scripts per move")


def _rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def idle(args) -> None:
    import websockets.exceptions
    from websockets.asyncio.client import connect

    loadtest_main._raise_file_limit()
    tables = args.sockets // 2
    with servers.workspace() as workdir:
        site = _site(workdir)
        info = site.seed(tables, f"i{int(time.time()) % 100000}x")
        srv = _start(site, 1)
        port, pid = srv.ports[0], srv.processes[0].pid
        retried = [0]
        try:
            async def run():
                gate = asyncio.Semaphore(10)  # handshakes at a time: an idle count, not a burst

                async def one(table_id: int, session: str):
                    # A memory count, not a connect test: a handshake dropped by a busy machine is tried again
                    # (and counted).
                    async with gate:
                        for _ in range(5):
                            try:
                                ws = await connect(f"ws://127.0.0.1:{port}/ws/table/{table_id}/",
                                                   origin=f"http://127.0.0.1:{port}",
                                                   additional_headers={"Cookie": f"sessionid={session}"},
                                                   open_timeout=30, ping_interval=None, max_size=None)
                                await asyncio.wait_for(ws.recv(), 30)
                                return ws
                            except (TimeoutError, OSError, websockets.exceptions.WebSocketException):
                                retried[0] += 1
                        raise RuntimeError("a socket did not connect in five tries")

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
              f"{(after - before) / 1024 / n * 1000:.1f} MB per 1,000 sockets ({retried[0]} handshakes tried again)")


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
