"""Redis and PostgreSQL restarted under running matches: the site carries on by itself once they are back
(clients resync or reconnect), nothing is lost or doubled, and the referee keeps running throughout."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request

import pytest

from tests.faults.harness import audit, play_all, players_for

pytestmark = pytest.mark.faults

TIME_LIMIT = 150


def tables_for(prefix: str) -> list[dict]:
    tables = [{"game": "gin", "preset": "klassisch", "options": {"target": 50},
               "players": [f"{prefix}{i}a", f"{prefix}{i}b"]} for i in range(2)]
    tables.append({"game": "romme", "preset": "standard", "options": {"seats": 3, "rounds": 1},
                   "players": [f"{prefix}ra", f"{prefix}rb", f"{prefix}rc"]})
    # Computer players move through the referee: their moves show it kept running.
    tables.append({"game": "romme", "preset": "standard", "options": {"seats": 3, "rounds": 2},
                   "players": [f"{prefix}bot"], "bots": "simple"})
    return tables


async def wait_moves(site, table_ids, at_least: int) -> int:
    for _ in range(300):
        count = site.move_count(table_ids)
        if count >= at_least:
            return count
        await asyncio.sleep(0.1)
    return site.move_count(table_ids)


def test_redis_restarted_mid_match(site, redis):
    tables = tables_for("rs")
    setup = site.setup([p for t in tables for p in t["players"]], tables)
    table_ids = [t["id"] for t in setup["tables"]]
    daphne = site.daphne("daphne")
    referee = site.referee("referee")
    players = players_for(setup, [daphne.port])
    counted = {}

    async def fault():
        counted["before"] = await wait_moves(site, table_ids, 20)
        await asyncio.to_thread(redis.stop)
        await asyncio.sleep(2.0)  # play goes on in the database; the fan-out fails meanwhile
        counted["during"] = site.move_count(table_ids)
        await asyncio.to_thread(redis.start)

    finals = asyncio.run(play_all(players, seconds=TIME_LIMIT, during=fault()))
    assert all(f is not None and f["table"]["status"] == "finished" for f in finals), [
        (p.table_id, p.seat_name, p.state and p.state["version"], p.errors[-3:]) for p in players]
    assert daphne.alive and referee.alive
    after = site.move_count(table_ids)
    assert counted["before"] < after
    report = audit(site, table_ids, players)
    assert report["replayed"] == len(tables)
    bot_table = table_ids[-1]
    assert site.sql("SELECT status FROM games_table WHERE id = %s", (bot_table,))[0][0] == "finished"
    print(f"\nredis restarted after {counted['before']} moves ({counted['during']} while it was down); "
          f"{after} in the end; audit {report}")


def http_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_postgresql_restarted_mid_match(site, postgres):
    tables = tables_for("pg")
    setup = site.setup([p for t in tables for p in t["players"]], tables)
    table_ids = [t["id"] for t in setup["tables"]]
    daphne = site.daphne("daphne")
    referee = site.referee("referee")
    players = players_for(setup, [daphne.port])
    seen: dict = {}

    async def probe_while_down() -> None:
        from websockets.asyncio.client import connect

        url = f"ws://127.0.0.1:{daphne.port}/ws/table/{table_ids[0]}/"
        async with connect(url, origin=f"http://127.0.0.1:{daphne.port}", open_timeout=5,
                           additional_headers={"Cookie": f"sessionid={setup['sessions']['pg0a']}"}) as ws:
            json.loads(await ws.recv())  # the state on connect, while the database is still there
            seen["ws_ready"] = True
            while not seen.get("down"):
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.3)
            errors = []
            for _ in range(20):  # drain whatever was under way, until the answer to our sync comes
                await ws.send(json.dumps({"type": "sync"}))
                frame = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
                if frame["type"] == "error":
                    errors.append(frame["code"])
                    break
            seen["ws_errors"] = errors
            await ws.send(json.dumps({"type": "ping"}))
            while True:  # the socket itself still answers
                frame = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
                if frame["type"] == "pong":
                    seen["pong"] = True
                    break
            while not seen.get("up"):
                await asyncio.sleep(0.05)
            for _ in range(50):  # and recovers by itself: the next sync is a state again
                await ws.send(json.dumps({"type": "sync"}))
                frame = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
                if frame["type"] == "state":
                    seen["recovered"] = True
                    break
                await asyncio.sleep(0.2)

    async def fault():
        probe = asyncio.create_task(probe_while_down())
        seen["before"] = await wait_moves(site, table_ids, 20)
        while not seen.get("ws_ready"):
            await asyncio.sleep(0.05)
        await asyncio.to_thread(postgres.stop)
        seen["down"] = True
        await asyncio.sleep(0.5)
        seen["http"] = await asyncio.to_thread(http_status, f"http://127.0.0.1:{daphne.port}/spielen/")
        await asyncio.sleep(2.0)
        await asyncio.to_thread(postgres.start)
        seen["restarted_at"] = time.time()
        seen["up"] = True
        await asyncio.wait_for(probe, timeout=60)

    finals = asyncio.run(play_all(players, seconds=TIME_LIMIT, during=fault()))
    assert seen["ws_errors"] == ["server_error"]
    assert seen.get("pong") and seen.get("recovered")
    assert seen["http"] == 500
    assert all(f is not None and f["table"]["status"] == "finished" for f in finals), [
        (p.table_id, p.seat_name, p.state and p.state["version"], p.errors[-3:]) for p in players]
    assert daphne.alive and referee.alive  # nobody had to restart them
    # The referee went on keeping time after the restart: computer moves were played after it.
    late_bot_moves = site.sql(
        "SELECT count(*) FROM games_move WHERE table_id = %s AND by = 'bot' AND created_at > to_timestamp(%s)",
        (table_ids[-1], seen["restarted_at"]))[0][0]
    assert late_bot_moves > 0
    after = site.move_count(table_ids)
    assert seen["before"] < after
    report = audit(site, table_ids, players)
    assert report["replayed"] == len(tables)
    print(f"\npostgresql restarted after {seen['before']} moves; {after} in the end; audit {report}")
