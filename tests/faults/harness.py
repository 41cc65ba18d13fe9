"""The machinery of the fault tests: a private PostgreSQL cluster and Redis server (so that restarting them
harms nobody else on the machine), daphne and referee processes against them, scripted players that
reconnect and fail over like a real client, and the audit every fault test ends with: the move log counted
and every stored round record replayed with the engine."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.servers import ROOT, free_port, wait_for_port

BIN = Path(sys.executable).parent
#: Every wait in these tests is bounded by this many seconds.
STEP_TIMEOUT = 30.0


def wait_until(predicate, *, timeout: float = STEP_TIMEOUT, interval: float = 0.1, what: str = "a condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"{what} did not happen within {timeout} s")


# --- services the tests own ----------------------------------------------------------------------------


def postgres_bin() -> Path | None:
    root = Path("/usr/lib/postgresql")
    if not root.is_dir():
        return None
    versions = sorted((p for p in root.iterdir() if (p / "bin" / "initdb").exists()),
                      key=lambda p: [int(x) for x in p.name.split(".") if x.isdigit()])
    return versions[-1] / "bin" if versions else None


def as_postgres(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: run its tools as the ``postgres`` user when we are root."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


class Postgres:
    """A private PostgreSQL cluster on 127.0.0.1 and a free port (trust auth, user ``postgres``)."""

    def __init__(self, bindir: Path):
        self.bindir = bindir
        self.folder = Path(tempfile.mkdtemp(prefix="ginsite-faults-pg-"))
        self.data = self.folder / "data"
        self.log = self.folder / "postgres.log"
        self.port = free_port()
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run([str(bindir / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8",
                   "--no-sync"], timeout=120)
        self.start()

    def _run(self, command: list[str], timeout: float = STEP_TIMEOUT) -> None:
        done = subprocess.run(as_postgres(command), capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, f"{command[0]} failed: {done.stdout}{done.stderr}"

    def _ctl(self, *args: str) -> None:
        self._run([str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", "-t", "30", *args])

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        self._ctl("-o", options, "start")

    def stop(self) -> None:
        self._ctl("-m", "fast", "stop")

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        self._run([str(self.bindir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name])
        return self.url(name)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._ctl("-m", "immediate", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)


class Redis:
    """A private redis-server on 127.0.0.1 and a free port, without persistence."""

    def __init__(self, executable: str):
        self.executable = executable
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.executable, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port, process=self.process)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    close = stop


# --- the site's processes ------------------------------------------------------------------------------


@dataclass
class Process:
    name: str
    popen: subprocess.Popen
    log: Path
    port: int | None = None

    @property
    def alive(self) -> bool:
        return self.popen.poll() is None

    def kill9(self) -> None:
        if self.alive:
            self.popen.send_signal(signal.SIGKILL)
            self.popen.wait(timeout=10)

    def stop(self) -> None:
        if self.alive:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=10)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


SETUP = """
import json
from django.contrib.auth import get_user_model
from games import services
from tests.servers import session_key

spec = json.loads({spec!r})
sessions, tables = {{}}, []
for name in spec["players"]:
    # No password (they sign in by session key): hashing one costs a good part of a second on a slow machine.
    user = get_user_model().objects.create_user(name, name + "@example.org")
    sessions[name] = session_key(user)
users = {{u.username: u for u in get_user_model().objects.filter(username__in=spec["players"])}}
for table in spec["tables"]:
    created = services.table_create(user=users[table["players"][0]], game=table["game"], preset=table["preset"],
                                    options=table["options"], bots=table.get("bots", ""))
    for name in table["players"][1:]:
        services.table_join(table_id=created.pk, user=users[name])
    tables.append({{**table, "id": created.pk}})
print("FAULTS " + json.dumps({{"sessions": sessions, "tables": tables}}))
"""


class Site:
    """The site on one database and one channel layer: daphnes and referees started on demand."""

    def __init__(self, folder: Path, database_url: str, redis_url: str = ""):
        self.folder = folder
        self.env = {**os.environ, "DJANGO_SETTINGS_MODULE": "ginsite.settings", "DEBUG": "1",
                    "DATABASE_URL": database_url, "GAMES_BOT_DELAY_SECONDS": "0.05", "PYTHONUNBUFFERED": "1",
                    "LOG_LEVEL": "WARNING"}
        self.env.pop("GAMES_TEST_DEAL_SEED", None)
        self.env.pop("SQLITE_PATH", None)
        if redis_url:
            self.env["REDIS_URL"] = redis_url
        else:
            self.env.pop("REDIS_URL", None)
        self.database_url = database_url
        self.processes: list[Process] = []

    def manage(self, *args: str, timeout: float = 180) -> str:
        done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True,
                              text=True, timeout=timeout)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def shell(self, code: str) -> object:
        out = self.manage("shell", "-c", code, timeout=120)
        line = next(line for line in out.splitlines() if line.startswith("FAULTS "))
        return json.loads(line[len("FAULTS "):])

    def setup(self, players: list[str], tables: list[dict]) -> dict:
        return self.shell(SETUP.format(spec=json.dumps({"players": players, "tables": tables})))

    def _spawn(self, name: str, command: list[str], port: int | None = None) -> Process:
        log = self.folder / f"{name}.log"
        handle = open(log, "ab")  # noqa: SIM115 - the process writes to it for its whole life
        popen = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=handle, stderr=subprocess.STDOUT)
        handle.close()
        process = Process(name, popen, log, port)
        self.processes.append(process)
        return process

    def daphne(self, name: str, port: int | None = None) -> Process:
        port = port or free_port()
        process = self._spawn(name, [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port),
                                     "ginsite.asgi:application"], port)
        wait_for_port(port, process=process.popen, log=process.log)
        return process

    def referee(self, name: str) -> Process:
        return self._spawn(name, [sys.executable, "manage.py", "referee", "--force", "--interval", "0.05"])

    def close(self) -> None:
        for process in self.processes:
            process.stop()

    # --- reading the database directly (no Django in the test process) --------------------------------

    def sql(self, query: str, params: tuple = ()) -> list[tuple]:
        if self.database_url.startswith("sqlite"):
            import sqlite3

            with contextlib.closing(sqlite3.connect(self.database_url.removeprefix("sqlite:///"), timeout=20)) as db:
                rows = db.execute(query.replace("%s", "?"), params).fetchall()
                db.commit()
                return rows
        import psycopg

        with psycopg.connect(self.database_url.replace("postgres://", "postgresql://"), connect_timeout=5) as db:
            cursor = db.execute(query, params)
            return cursor.fetchall() if cursor.description is not None else []

    def make_overdue(self, table_ids: list[int], seconds: float = 5.0) -> None:
        """Let the turn time of these tables run out ``seconds`` ago."""
        from datetime import UTC, datetime, timedelta

        marks = ",".join(["%s"] * len(table_ids))
        moment = datetime.now(UTC) - timedelta(seconds=seconds)
        # SQLite: the text Django stores for an aware datetime (UTC); PostgreSQL takes the datetime itself.
        value = moment.strftime("%Y-%m-%d %H:%M:%S.%f") if self.database_url.startswith("sqlite") else moment
        self.sql(f"UPDATE games_table SET turn_deadline = %s WHERE id IN ({marks})", (value, *table_ids))

    def move_count(self, table_ids: list[int]) -> int:
        return sum(self.move_counts(table_ids).values())

    def move_counts(self, table_ids: list[int]) -> dict[int, int]:
        """The moves logged at each table (0 for a table with none), in one statement."""
        marks = ",".join(["%s"] * len(table_ids))
        counts = dict(self.sql(f"SELECT table_id, count(*) FROM games_move WHERE table_id IN ({marks}) "
                               "GROUP BY table_id", tuple(table_ids)))
        return {table_id: counts.get(table_id, 0) for table_id in table_ids}

    def versions(self, table_ids: list[int]) -> dict[int, int]:
        marks = ",".join(["%s"] * len(table_ids))
        return dict(self.sql(f"SELECT id, version FROM games_table WHERE id IN ({marks})", tuple(table_ids)))

    def statuses(self, table_ids: list[int]) -> dict[int, str]:
        marks = ",".join(["%s"] * len(table_ids))
        return dict(self.sql(f"SELECT id, status FROM games_table WHERE id IN ({marks})", tuple(table_ids)))


# --- players ---------------------------------------------------------------------------------------------


@dataclass
class Player:
    """One person at one table, as a robust client: plays from its own view, confirms rounds, resyncs when it
    hears nothing, reconnects with a backoff and fails over to the next server in ``ports``."""

    ports: list[int]
    table_id: int
    seat_name: str
    session: str
    idle: bool = False
    sent: list[tuple[int, dict]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    state: dict | None = None
    reconnects: int = 0
    server: int = 0
    final: dict | None = None

    async def play(self, *, until: float) -> dict | None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import WebSocketException

        backoff = 0.1
        while time.monotonic() < until:
            port = self.ports[self.server % len(self.ports)]
            try:
                async with connect(f"ws://127.0.0.1:{port}/ws/table/{self.table_id}/",
                                   origin=f"http://127.0.0.1:{port}", open_timeout=3,
                                   additional_headers={"Cookie": f"sessionid={self.session}"}) as ws:
                    backoff = 0.1
                    if await self._session(ws, until):
                        return self.final
            except (WebSocketException, OSError, TimeoutError):
                pass
            self.reconnects += 1
            self.server += 1  # the next server, if there is one
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 1.0)
        return None

    async def _session(self, ws, until: float) -> bool:
        from tests.games.helpers import choose_action

        readied: tuple | None = None
        moved_at: int | None = None
        while time.monotonic() < until:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=1.5)
            except TimeoutError:
                # Heard nothing for a while (a lost event, a layer restarting): ask for the whole picture.
                await ws.send(json.dumps({"type": "sync"}))
                moved_at = None
                continue
            frame = json.loads(raw)
            if frame["type"] == "error":
                self.errors.append(frame["code"])
                if frame["code"] == "server_error":
                    await asyncio.sleep(0.2)
                    await ws.send(json.dumps({"type": "sync"}))
                    moved_at = None
                continue
            if frame["type"] != "state" or (self.state and frame["version"] < self.state["version"]):
                continue
            self.state = frame
            table, view = frame["table"], frame["view"]
            if table["status"] in ("finished", "aborted"):
                self.final = frame
                return True
            if self.idle or view is None or table["status"] != "playing" or table["you"] is None:
                continue
            version = frame["version"]
            if view["to_act"] == table["you"] and moved_at != version:
                action = choose_action(view)
                self.sent.append((version, action))
                moved_at = version
                await ws.send(json.dumps({"type": "move", "version": version, "action": action}))
            elif view["to_act"] is None and not view["over"] and readied != (ws.id, view["round_number"]):
                readied = (ws.id, view["round_number"])
                await ws.send(json.dumps({"type": "ready"}))
        return False


def players_for(setup: dict, ports: list[int], *, idle: bool = False) -> list[Player]:
    out = []
    for table in setup["tables"]:
        for name in table["players"]:
            # Every client starts on the first server and fails over to the next.
            out.append(Player(ports=ports, table_id=table["id"], seat_name=name, session=setup["sessions"][name],
                              idle=idle))
    return out


async def play_all(players: list[Player], *, seconds: float, during=None) -> list[dict | None]:
    """Play every table to its end within ``seconds``; ``during`` (a coroutine) runs the fault meanwhile."""
    until = time.monotonic() + seconds
    games = asyncio.gather(*(p.play(until=until) for p in players))
    if during is not None:
        await during
    return await games


def random_pause(rng: random.Random, low: float, high: float) -> float:
    return low + (high - low) * rng.random()


# --- the audit -------------------------------------------------------------------------------------------


def load(value):
    """A JSON column as Python: psycopg decodes jsonb itself, sqlite3 hands back text."""
    return json.loads(value) if isinstance(value, str) else value


def audit(site: Site, table_ids: list[int], players: list[Player] | None = None) -> dict:
    """The move log of ``table_ids`` is whole and single: per match the sequence numbers run 0..n-1, the
    versions never go back, no version holds two player moves or two computer moves, every player move is one
    its client sent at that version (none invented, none applied twice), each finished round's record holds
    exactly that round's logged moves, and every finished match's record replays with the engine to the
    stored final scores. Returns counts for the report."""
    from tests.points import replay as replay_record

    marks = ",".join(["%s"] * len(table_ids))
    moves = site.sql(
        f"SELECT m.table_id, m.match_id, m.round_number, m.seq, m.seat, m.action, m.by, m.version "
        f"FROM games_move m WHERE m.table_id IN ({marks}) ORDER BY m.match_id, m.seq", tuple(table_ids))
    by_match: dict[int, list[tuple]] = {}
    for row in moves:
        by_match.setdefault(row[1], []).append(row)
    sent: dict[tuple[int, int, str], int] = {}
    if players is not None:
        for player in players:
            for version, action in player.sent:
                key = (player.table_id, version, json.dumps(action, sort_keys=True))
                sent[key] = sent.get(key, 0) + 1
    replayed = 0
    for match_id, rows in by_match.items():
        assert [r[3] for r in rows] == list(range(len(rows))), f"match {match_id}: the move sequence has a gap"
        versions = [r[7] for r in rows]
        assert versions == sorted(versions), f"match {match_id}: versions go back"
        for by in ("player", "bot"):
            at = [r[7] for r in rows if r[6] == by]
            assert len(at) == len(set(at)), f"match {match_id}: two {by} moves at one version"
        if players is not None:
            for r in rows:
                if r[6] == "player":
                    action = load(r[5])
                    key = (r[0], r[7] - 1, json.dumps(action, sort_keys=True))
                    assert sent.get(key, 0) >= 1, f"match {match_id}: a player move nobody sent: {r}"
                    sent[key] -= 1  # each sent move accounts for at most one logged move
    matches = site.sql(
        f"SELECT id, game, options, players, status, final_scores FROM games_match WHERE table_id IN ({marks})",
        tuple(table_ids))
    for match_id, game, options, match_players, status, final in matches:
        rounds = site.sql("SELECT number, record, finished_at FROM games_round WHERE match_id = %s ORDER BY number",
                          (match_id,))
        records = []
        for number, record, finished_at in rounds:
            record = load(record)
            if finished_at is None or record is None:
                continue
            logged = [r for r in by_match.get(match_id, []) if r[2] == number]
            recorded = record["moves"]
            plain = [load(r[5]) for r in logged if load(r[5]).get("action") != "resign"]
            assert len(recorded) == len(plain), (
                f"match {match_id} round {number}: {len(recorded)} moves recorded, {len(plain)} logged")
            records.append(record)
        if status != "finished":
            continue
        record = {"game": game, "options": load(options), "players": [p.get("name") for p in load(match_players)],
                  "rounds": records}
        if records:
            summary = replay_record(record)
            replayed += 1
            if len(records) == len(rounds) and not any(load(r[5]).get("action") == "resign"
                                                       for r in by_match.get(match_id, [])):
                assert summary["final"] == load(final), f"match {match_id}: the replay scores differ"
    return {"moves": len(moves), "matches": len(matches), "replayed": replayed}
