"""The referee killed and restarted, and two referees at once: every overdue timeout is played exactly once
(late when no referee ran, never twice), and matches the referee drives (computer players) play to their end
with nothing lost or doubled."""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from tests.faults.harness import audit, play_all, players_for, wait_until

pytestmark = pytest.mark.faults

OVERDUE_TABLES = 24


def idle_tables(site, prefix: str, *, overdue: bool = True) -> tuple[list[int], dict[int, int]]:
    """Gin tables of two people who do not move, their turn time run out (``overdue``): ids and versions.

    The turn time is ten minutes, so no turn runs out on its own while a test lasts: neither a table's first turn
    before the test makes it overdue (a referee would play it, and making it overdue then would bring a second,
    rightful timeout), nor the turn after its timeout."""
    tables = [{"game": "gin", "preset": "klassisch", "options": {"turn_seconds": 600},
               "players": [f"{prefix}{i}a", f"{prefix}{i}b"]} for i in range(OVERDUE_TABLES)]
    setup = site.setup([p for t in tables for p in t["players"]], tables)
    ids = [t["id"] for t in setup["tables"]]
    if overdue:
        site.make_overdue(ids)
    return ids, site.versions(ids)


def assert_each_timeout_once(site, ids: list[int], before: dict[int, int]) -> None:
    after = site.versions(ids)
    assert {i: after[i] - before[i] for i in ids} == {i: 1 for i in ids}, "a timeout was missed or played twice"
    marks = ",".join(["%s"] * len(ids))
    timeouts = dict(site.sql(
        f"SELECT table_id, count(DISTINCT version) FROM games_move WHERE table_id IN ({marks}) AND by = 'timeout' "
        f"GROUP BY table_id", tuple(ids)))
    assert timeouts == {i: 1 for i in ids}
    counted = dict(site.sql(
        f"SELECT table_id, sum(consecutive_timeouts) FROM games_seat WHERE table_id IN ({marks}) GROUP BY table_id",
        tuple(ids)))
    assert {i: int(v) for i, v in counted.items()} == {i: 1 for i in ids}
    assert site.sql(f"SELECT count(*) FROM games_move WHERE table_id IN ({marks}) AND by <> 'timeout'",
                    tuple(ids))[0][0] == 0


def all_played(site, ids, before) -> bool:
    after = site.versions(ids)
    return all(after[i] > before[i] for i in ids)


def test_timeouts_overdue_while_the_referee_was_dead_are_played_once_late(referee_site):
    site = referee_site
    # Four groups of tables; each referee below finds a group of its own newly overdue (a referee may play a
    # whole group before the kill lands: a pass over 24 tables takes tens of milliseconds on PostgreSQL), and
    # the last group runs out while no referee is alive.
    groups = [idle_tables(site, f"rk{g}x", overdue=False) for g in range(4)]
    ids = [i for group, _ in groups for i in group]
    before = {i: v for _, versions in groups for i, v in versions.items()}
    # The referee dies mid-pass (kill -9), several times, with overdue tables left and right of it.
    for attempt in range(3):
        site.make_overdue(groups[attempt][0])
        referee = site.referee(f"referee-{attempt}")
        played = sum(site.versions(ids)[i] - before[i] for i in ids)
        wait_until(lambda played=played: sum(site.versions(ids)[i] - before[i] for i in ids) > played,
                   timeout=30, interval=0.02, what="the referee's first timeout")
        referee.kill9()  # in the middle of its pass, or just after it
    site.make_overdue(groups[3][0])  # overdue while the referee is dead
    time.sleep(1.0)
    frozen = site.versions(ids)
    time.sleep(1.0)
    assert site.versions(ids) == frozen  # no referee, no timeouts
    played_while_alive = sum(frozen[i] - before[i] for i in ids)
    referee = site.referee("referee-last")
    wait_until(lambda: all_played(site, ids, before), timeout=60, what="every overdue timeout")
    time.sleep(1.5)  # a referee that kept going would play them again now
    assert referee.alive
    assert_each_timeout_once(site, ids, before)
    print(f"\n{played_while_alive} of {len(ids)} timeouts played before the last kill, the rest late, each once")


def test_two_referees_apply_each_timeout_once(referee_site):
    site = referee_site
    ids, before = idle_tables(site, "rt")
    referees = [site.referee("referee-1"), site.referee("referee-2")]
    wait_until(lambda: all_played(site, ids, before), timeout=60, what="every overdue timeout")
    time.sleep(1.5)
    assert all(r.alive for r in referees)
    assert_each_timeout_once(site, ids, before)


def bot_tables(prefix: str, count: int) -> list[dict]:
    return [{"game": "romme", "preset": "standard", "options": {"seats": 3, "rounds": 1},
             "players": [f"{prefix}{i}"], "bots": "simple"} for i in range(count)]


def test_matches_of_computer_players_survive_a_killed_referee_and_two_at_once(referee_site):
    site = referee_site
    tables = bot_tables("rb", 4)
    setup = site.setup([p for t in tables for p in t["players"]], tables)
    ids = [t["id"] for t in setup["tables"]]
    daphne = site.daphne("daphne")
    players = players_for(setup, [daphne.port])
    rng = random.Random(11)
    counted = {}

    async def fault():
        referee = site.referee("referee-a")
        kills = []
        for attempt in range(3):  # kill -9 while it plays (at a random moment), a pause, then a new one
            start = site.move_count(ids)
            for _ in range(300):
                if site.move_count(ids) >= start + 5:
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.3 * rng.random())
            referee.kill9()
            kills.append(site.move_count(ids))
            await asyncio.sleep(0.5)
            referee = site.referee(f"referee-{attempt}")
        counted["kills"] = kills
        counted["before"] = site.move_count(ids)
        site.referee("referee-twin")  # and from now on two at once

    finals = asyncio.run(play_all(players, seconds=150, during=fault()))
    assert all(f is not None and f["table"]["status"] == "finished" for f in finals), [
        (p.table_id, p.state and p.state["version"], p.errors[-3:]) for p in players]
    after = site.move_count(ids)
    report = audit(site, ids, players)
    assert report["replayed"] == len(tables) and counted["before"] < after
    assert counted["kills"][0] > 0
    print(f"\ncomputer matches: referee killed at {counted['kills']} moves, {counted['before']} moves when the twin started, {after} in the end; {report}")
