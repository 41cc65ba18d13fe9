"""``kill -9`` of a daphne in the middle of matches while a second one serves: every client reconnects to the
second, the matches play to their end, and no move is lost or applied twice."""

from __future__ import annotations

import asyncio

import pytest

from tests.faults.harness import audit, play_all, players_for

pytestmark = pytest.mark.faults

TIME_LIMIT = 150


def test_kill_9_of_a_daphne_mid_match_loses_and_doubles_nothing(site):
    # Matches long enough to be still on at the kill (gin to 100 is several rounds, Rommé two rounds): a
    # match over before it has no client to go over to the second server.
    tables = [{"game": "gin", "preset": "klassisch", "options": {"target": 100}, "players": [f"k{i}a", f"k{i}b"]}
              for i in range(2)]
    tables.append({"game": "romme", "preset": "standard", "options": {"seats": 3, "rounds": 2},
                   "players": ["kra", "krb", "krc"]})
    setup = site.setup([p for t in tables for p in t["players"]], tables)
    table_ids = [t["id"] for t in setup["tables"]]
    first, second = site.daphne("daphne-1"), site.daphne("daphne-2")
    site.referee("referee")
    players = players_for(setup, [first.port, second.port])
    counted = {}

    async def fault():
        # Let every match get going on the first server (each seat has moved), then kill it without warning.
        for _ in range(200):
            await asyncio.sleep(0.1)
            if min(site.move_counts(table_ids).values()) >= 6:
                break
        counted["before"] = site.move_count(table_ids)
        counted["playing"] = list(site.statuses(table_ids).values()).count("playing")
        first.kill9()

    finals = asyncio.run(play_all(players, seconds=TIME_LIMIT, during=fault()))
    assert all(f is not None and f["table"]["status"] == "finished" for f in finals), [
        (p.table_id, p.seat_name, p.state and p.state["version"]) for p in players]
    assert not first.alive and second.alive
    assert counted["playing"] == len(tables), "a match was over before the kill: nothing to fail over"
    assert all(p.reconnects >= 1 for p in players)  # every client went over to the second server
    after = site.move_count(table_ids)
    assert 6 * len(tables) <= counted["before"] < after
    report = audit(site, table_ids, players)
    print(f"\ndaphne killed after {counted['before']} moves; {after} moves in the end; audit {report}")
    assert report["replayed"] == len(tables)
    # The end each client saw is the one stored.
    versions = site.versions(table_ids)
    assert all(f["version"] == versions[f["table"]["id"]] for f in finals)


def test_a_real_daphne_closes_unknown_paths_with_4404_and_logs_no_traceback(site):
    daphne = site.daphne("daphne")

    async def knock(path: str) -> int | None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed

        async with connect(f"ws://127.0.0.1:{daphne.port}{path}", origin=f"http://127.0.0.1:{daphne.port}",
                           open_timeout=5) as ws:
            try:
                await asyncio.wait_for(ws.recv(), timeout=5)
            except ConnectionClosed as closed:
                return closed.rcvd.code if closed.rcvd else None
        return None

    codes = [asyncio.run(knock(path)) for path in ("/ws/table/abc/", "/ws/nothing/", "/ws/table/1/x/")]
    assert codes == [4404, 4404, 4404]
    daphne.stop()
    log = daphne.log_text()
    assert "Traceback" not in log and "No route found" not in log, log[-2000:]
