"""End to end through a real daphne process on 127.0.0.1: scripted clients (the ``websockets`` library),
signed in with real session cookies, play complete gin and Rommé matches concurrently while daphne is
restarted once under them; the results land in the database. Prints the move round-trip p50 and p99."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

import pytest
from django.db import connection

from tests.games.helpers import choose_action
from tests.servers import ROOT, free_port, manage_shell, migrated_sqlite, start_daphne, stop

#: The whole test must finish within this many seconds (the clients stop and the test fails after it).
TIME_LIMIT = 150
#: How many tables play at once; raise them by environment for a bigger run (the figures, not the test).
GIN_TABLES = int(os.environ.get("E2E_GIN_TABLES", "3"))
ROMME_TABLES = int(os.environ.get("E2E_ROMME_TABLES", "2"))
ROMME_SEATS = 3

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SETUP = """
import json
from django.contrib.auth import get_user_model
from games import services
from tests.servers import session_key

spec = json.loads({spec!r})
users, sessions, tables = {{}}, {{}}, []
for name in spec["players"]:
    user = get_user_model().objects.create_user(name, name + "@example.org", "pw-" + name)
    users[name], sessions[name] = user, session_key(user)
for table in spec["tables"]:
    created = services.table_create(user=users[table["players"][0]], game=table["game"], preset=table["preset"],
                                    options=table["options"])
    if table.get("bots"):
        services.table_fill_with_bots(table_id=created.pk, user=users[table["players"][0]], level=table["bots"])
    tables.append({{**table, "id": created.pk}})
print("E2E " + json.dumps({{"sessions": sessions, "tables": tables}}))
"""

RESULTS = """
import json
from games.models import Match, Move, Table
ids = json.loads({ids!r})
out = []
for table in Table.objects.filter(pk__in=ids).order_by("pk"):
    match = table.current_match
    out.append({{"id": table.pk, "status": table.status, "match": match.status if match else None,
                "final": match.final_scores if match else None, "moves": Move.objects.filter(table=table).count()}})
print("E2E " + json.dumps(out))
"""


def e2e_environment(tmp_path) -> dict:
    # Deals of a seed of the test's own (the server reads it from the environment): a failing run replays
    # with the same cards. The deals of the operating system's generator are tested in test_services.
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "ginsite.settings", "DEBUG": "1",
           "GAMES_BOT_DELAY_SECONDS": "0", "PYTHONUNBUFFERED": "1", "GAMES_TEST_DEAL_SEED": "live-daphne"}
    if connection.vendor == "postgresql":
        # The test database pytest-django made; the transactional test empties it afterwards.
        s = connection.settings_dict
        env["DATABASE_URL"] = f"postgres://{s['USER']}:{s['PASSWORD']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"
    else:
        # SQLite's test database lives in this process's memory: the server gets a file of its own.
        env.pop("DATABASE_URL", None)
        env["SQLITE_PATH"] = str(tmp_path / "e2e.sqlite3")
        migrated_sqlite(env)
    return env


class Player:
    """One scripted person at one table: joins, plays from its own view, confirms rounds, reconnects."""

    def __init__(self, port: int, table_id: int, session: str, rtts: list[float]):
        self.url = f"ws://127.0.0.1:{port}/ws/table/{table_id}/"
        self.headers = {"Cookie": f"sessionid={session}"}
        self.origin = f"http://127.0.0.1:{port}"
        self.rtts = rtts
        self.state: dict | None = None
        self.reconnects = 0

    async def play(self) -> dict:
        from websockets.asyncio.client import connect
        from websockets.exceptions import WebSocketException

        while True:
            try:
                async with connect(self.url, origin=self.origin, additional_headers=self.headers,
                                   open_timeout=5) as ws:
                    result = await self._session(ws)
                    if result is not None:
                        return result
            except (WebSocketException, OSError, TimeoutError):
                pass
            # The server went away (a restart): come back and carry on from the full state it sends.
            self.reconnects += 1
            await asyncio.sleep(0.3)

    async def _session(self, ws) -> dict | None:
        pending: tuple[int, float] | None = None
        readied = None
        async for raw in ws:
            frame = json.loads(raw)
            if frame["type"] != "state":
                continue
            if self.state is not None and frame["version"] < self.state["version"]:
                continue
            self.state = frame
            if pending is not None and frame["version"] > pending[0]:
                self.rtts.append(time.perf_counter() - pending[1])
                pending = None
            table, view = frame["table"], frame["view"]
            if table["you"] is None:
                if table["status"] == "open":
                    await ws.send(json.dumps({"type": "join"}))
                continue
            if table["status"] in ("finished", "aborted"):
                return frame
            if view is None or table["status"] != "playing":
                continue
            version = frame["version"]
            if view["to_act"] == table["you"]:
                action = choose_action(view)
                pending = (version, time.perf_counter())
                await ws.send(json.dumps({"type": "move", "version": version, "action": action}))
            elif view["to_act"] is None and not view["over"] and readied != view["round_number"]:
                readied = view["round_number"]
                # No version: a ready is harmless whatever changed meanwhile (the other players' readies).
                await ws.send(json.dumps({"type": "ready"}))
        return None


def test_complete_matches_of_both_games_through_daphne(tmp_path, transactional_db):
    env = e2e_environment(tmp_path)
    tables = [{"game": "gin", "preset": "klassisch", "options": {"target": 50}, "players": [f"g{i}a", f"g{i}b"]}
              for i in range(GIN_TABLES)]
    tables += [{"game": "romme", "preset": "standard", "options": {"seats": ROMME_SEATS, "rounds": 2},
                "players": [f"r{i}{s}" for s in "abc"[:ROMME_SEATS]]} for i in range(ROMME_TABLES)]
    # Computer players move in the referee's process: their moves must reach the person at the table too.
    tables += [{"game": "romme", "preset": "standard", "options": {"seats": 3, "rounds": 1}, "players": ["bot0a"],
                "bots": "expert"}]
    spec = {"players": [p for t in tables for p in t["players"]], "tables": tables}
    setup = manage_shell(SETUP.format(spec=json.dumps(spec)), env)
    port = free_port()
    daphne = start_daphne(port, env)
    referee = subprocess.Popen([sys.executable, "manage.py", "referee"], cwd=ROOT, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rtts: list[float] = []
    players = [Player(port, t["id"], setup["sessions"][name], rtts) for t in setup["tables"] for name in t["players"]]

    running: list[Player] = []

    async def run_all():
        games = asyncio.gather(*(p.play() for p in players))
        # Restart daphne once while the matches run (every table a few moves in, none over): no move may be
        # lost. Waiting on a condition, not a clock: how far two seconds get depends on the machine.
        for _ in range(600):
            if all(p.state is not None and p.state["version"] >= 6 for p in players):
                break
            await asyncio.sleep(0.05)
        nonlocal daphne
        # Who still plays when daphne goes: on a busy machine a table (the computer players' one) may keep the
        # others waiting above long enough for a match to end first; its client has nothing to come back to.
        running.extend(p for p in players if p.state is None or p.state["table"]["status"] != "finished")
        await asyncio.to_thread(stop, daphne)
        daphne = await asyncio.to_thread(start_daphne, port, env)
        return await games

    started = time.perf_counter()
    try:
        finals = asyncio.run(asyncio.wait_for(run_all(), timeout=TIME_LIMIT))
    except TimeoutError:
        stuck = [(p.url, p.state and p.state["version"], p.state and p.state["view"] and p.state["view"]["to_act"])
                 for p in players]
        raise AssertionError(f"the matches did not finish within {TIME_LIMIT} s: {stuck}") from None
    finally:
        stop(daphne)
        stop(referee)
    elapsed = time.perf_counter() - started

    assert all(f["table"]["status"] == "finished" for f in finals)
    stored = manage_shell(RESULTS.format(ids=json.dumps([t["id"] for t in setup["tables"]])), env)
    assert [t["status"] for t in stored] == ["finished"] * len(tables)
    assert all(t["match"] == "finished" and t["final"] is not None and t["moves"] > 0 for t in stored)
    by_id = {t["id"]: t for t in stored}
    for final in finals:
        assert final["view"]["result"]["final"] == by_id[final["table"]["id"]]["final"]
    assert running  # the restart came while matches ran
    assert all(p.reconnects >= 1 for p in running)  # every client still playing lived through the restart
    ordered = sorted(rtts)
    p50 = statistics.median(ordered) * 1000
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000
    print(f"\nend to end: {len(tables)} tables, {len(players)} clients, {len(rtts)} moves in {elapsed:.1f} s "
          f"(one daphne restart); move round trip p50 {p50:.1f} ms, p99 {p99:.1f} ms "
          f"[{connection.vendor}, {'redis' if os.environ.get('REDIS_URL') else 'in-memory'} channel layer]")
