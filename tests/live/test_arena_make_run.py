"""An arena of six played out through the process ``make run`` starts: one daphne on an SQLite file with the
in-memory channel layer and the referee inside it, nothing else. Nobody calls a tick or a pairing by hand:
the referee's clock starts the arena at its time and pairs whoever is free on every pass; six people keep its
page open over real HTTP (which marks them present), open each table they are given over a real WebSocket and
play it to its end; one pauses after a match and comes back. The arena's time is the site's own setting
shortened (``TOURNAMENTS_MINUTE_SECONDS``); the code paths are those of every site.

What must hold afterwards: every player was re-paired after their first match, nobody sat at two tables at
once, nobody was paired while paused, no table opened in the last minutes, the matches still running at the
end were played out and counted, and the frozen final standings are the spec's points of the recorded
results.
"""

from __future__ import annotations

import asyncio
import json
import re
import time

import pytest

from tests.live.test_clocks_make_run import Visitor, make_run_environment, start_as_make_run
from tests.servers import free_port, manage_shell, stop

# `make run`'s own stack (an SQLite file, the in-memory layer) whatever the run's DATABASE_URL and REDIS_URL: stackless.
pytestmark = [pytest.mark.slow, pytest.mark.stackless]

#: A tournament minute in seconds: the arena's 20 minutes are 24 s, its last 2 minutes (2.4 s) pair nobody.
MINUTE_SECONDS = 1.2
ARENA_MINUTES = 20
START_LEAD = 6
#: The whole scenario must be over within this many seconds once daphne listens.
TIME_LIMIT = 120
PLAYERS = ["anna", "ben", "carla", "dora", "emil", "fritz"]
#: Who pauses after their first match, and for how long (seconds).
PAUSER, PAUSE_SECONDS = "carla", 4.0

SETUP = """
import json
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.utils import timezone
from tournaments import services as tournaments
from tests.servers import session_key

spec = json.loads({spec!r})
User = get_user_model()
users, sessions = {{}}, {{}}
for name in spec["players"]:
    user = User.objects.create_user(name, name + "@example.org")
    users[name], sessions[name] = user, session_key(user)
staff = User.objects.create_user("leitung", "leitung@example.org", is_staff=True)
t = tournaments.tournament_create(
    by=staff, name="Arena live", game="gin", format="arena", settings={{"minutes": spec["minutes"]}},
    options={{"target": 0, "turn_seconds": 30}}, starts_at=timezone.now() + timedelta(seconds=spec["start_lead"]),
)
tournaments.tournament_publish(tournament_id=t.pk, by=staff)
for name in spec["players"]:
    tournaments.tournament_register(tournament_id=t.pk, user=users[name])
print("E2E " + json.dumps({{"sessions": sessions, "ids": {{n: u.pk for n, u in users.items()}}, "tournament": t.pk}}))
"""

FACTS = """
import json
from tournaments import arena, formats
from tournaments.models import StageTable, Tournament
t = Tournament.objects.get(pk={tournament_id})
fmt = formats.of(t)
tables = [{{"users": st.users, "result": st.result, "opened": st.table.created_at.timestamp(),
            "ended": st.table.current_match.finished_at.timestamp() if st.table.current_match.finished_at else None,
            "recorded": st.finished_at.timestamp() if st.finished_at else None}}
          for st in StageTable.objects.filter(stage__tournament=t).select_related("table__current_match").order_by("number")]
print("E2E " + json.dumps({{"status": t.status, "started_at": t.started_at.timestamp() if t.started_at else None,
    "finished_at": t.finished_at.timestamp() if t.finished_at else None,
    "ends_at": fmt.ends_at().timestamp(), "pairing_ends_at": fmt.pairing_ends_at().timestamp(),
    "final": t.final_standings, "tables": tables}}))
"""

_MY_TABLE = re.compile(r'href="/spielen/tisch/(\d+)/" data-role="my-table"')


async def play_table(visitor: Visitor, table_id: int, deadline: float) -> dict:
    """Open the table and play this seat's turns (knock when it can, else draw and shed the worst card; ready
    between rounds) until the match is over."""
    from websockets.asyncio.client import connect

    port = visitor.base.rsplit(":", 1)[1]
    readied: set[int] = set()
    async with connect(f"ws://127.0.0.1:{port}/ws/table/{table_id}/", origin=visitor.base,
                       additional_headers={"Cookie": f"sessionid={visitor.session}"}, open_timeout=10) as ws:
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), timeout=max(0.1, deadline - time.monotonic())))
            if frame["type"] != "state":
                continue
            table, view = frame["table"], frame.get("view") or {}
            if table["status"] in ("finished", "aborted"):
                return frame
            if table["status"] != "playing":
                continue
            if view.get("to_act") is None:
                if frame["version"] not in readied:
                    readied.add(frame["version"])
                    await ws.send(json.dumps({"type": "ready", "version": frame["version"]}))
                continue
            if view["to_act"] != table["you"]:
                continue
            legal = view["legal_actions"]
            best = (view.get("meter") or {}).get("best_discard")
            knocks = [a for a in legal if a["action"] in ("knock", "gin")]
            action = (next((a for a in knocks if a.get("card") == best), knocks[0]) if knocks else None) \
                or next((a for a in legal if a["action"] == "pass"), None) \
                or next((a for a in legal if a == {"action": "draw", "from": "stock"}), None) \
                or next((a for a in legal if a["action"] == "discard" and a.get("card") == best), None) \
                or next(a for a in legal if a["action"] == "discard")
            await ws.send(json.dumps({"type": "move", "version": frame["version"], "action": action}))


async def arena_player(name: str, visitor: Visitor, tournament_id: int, deadline: float) -> dict:
    """Keep the arena's page open (its live part every half second), play every table it shows as one's own,
    pause after the first match if one is the pauser; until the arena is over."""
    played: list[int] = []
    paused: tuple[float, float] | None = None
    while time.monotonic() < deadline:
        status, html = await visitor.get(f"/turniere/{tournament_id}/live/")
        assert status == 200, html[:500]
        state = re.search(r'data-live-part="head" data-status="([a-z]+)"', html)
        if state and state.group(1) in ("finished", "cancelled"):
            return {"played": played, "paused": paused}
        mine = _MY_TABLE.search(html)
        if mine and int(mine.group(1)) not in played:
            table_id = int(mine.group(1))
            final = await play_table(visitor, table_id, deadline)
            assert final["table"]["status"] == "finished", final["table"]["status"]
            played.append(table_id)
            if name == PAUSER and paused is None:
                await asyncio.to_thread(visitor._request, "POST", f"/turniere/{tournament_id}/pause/",
                                        json_wanted=False)
                began = time.time()
                await asyncio.sleep(PAUSE_SECONDS)
                await asyncio.to_thread(visitor._request, "POST", f"/turniere/{tournament_id}/weiter/",
                                        json_wanted=False)
                paused = (began, time.time())
            continue
        await asyncio.sleep(0.5)
    raise AssertionError(f"{name}: the arena did not end in time")


def test_an_arena_of_six_is_paired_and_played_out_by_the_referee_inside_make_run(tmp_path):
    env = make_run_environment(tmp_path)
    env["TOURNAMENTS_MINUTE_SECONDS"] = str(MINUTE_SECONDS)
    env["GAMES_TEST_DEAL_SEED"] = "live-arena"
    spec = {"players": PLAYERS, "minutes": ARENA_MINUTES, "start_lead": START_LEAD}
    setup = manage_shell(SETUP.format(spec=json.dumps(spec)), env)
    port = free_port()
    log = tmp_path / "daphne.log"
    daphne = start_as_make_run(port, env, log)
    visitors = {name: Visitor(port, session) for name, session in setup["sessions"].items()}

    async def scenario():
        deadline = time.monotonic() + TIME_LIMIT
        return await asyncio.gather(*(arena_player(name, visitors[name], setup["tournament"], deadline)
                                      for name in PLAYERS))

    try:
        outcomes = dict(zip(PLAYERS, asyncio.run(asyncio.wait_for(scenario(), timeout=TIME_LIMIT + 5)), strict=True))
    except BaseException:
        stop(daphne)
        print(log.read_text()[-4000:])
        raise
    stop(daphne)
    facts = manage_shell(FACTS.format(tournament_id=setup["tournament"]), env)
    ids = setup["ids"]
    tables = facts["tables"]

    print(f"\nmake-run arena: {len(tables)} tables, matches per player "
          f"{ {name: len(outcomes[name]['played']) for name in PLAYERS} }, final {facts['final']}")
    assert facts["status"] == "finished"
    # Every table was played to its end and recorded; none opened in the last minutes.
    assert tables and all(t["result"] and t["recorded"] for t in tables)
    assert all(t["opened"] < facts["pairing_ends_at"] + 0.5 for t in tables)
    # The referee re-paired everyone after their first match (each played at least twice).
    for name in PLAYERS:
        mine = [t for t in tables if ids[name] in t["users"]]
        assert len(mine) >= 2, (name, len(mine))
        assert len(outcomes[name]["played"]) == len(mine)
        # Never at two tables at once: each table opened after the previous one ended.
        for before, after in zip(mine, mine[1:], strict=False):
            assert after["opened"] >= before["ended"] - 0.01
    # Not paired while paused.
    began, ended = outcomes[PAUSER]["paused"]
    assert not [t for t in tables if ids[PAUSER] in t["users"] and began + 0.2 < t["opened"] < ended - 0.2]
    # Matches still running at the end were played out and counted: the arena finished after the last one.
    assert facts["finished_at"] >= max(t["recorded"] for t in tables)
    # The frozen standings are the spec's points of the recorded results, in the order they ended.
    final = {row["user_id"]: row for row in facts["final"]}
    for name in PLAYERS:
        strip = []
        in_a_row = 0
        for t in sorted((t for t in tables if ids[name] in t["users"]), key=lambda t: t["opened"]):
            seat = next(s for s in t["result"]["seats"] if s["user_id"] == ids[name])
            won = seat["place"] == 1 and not seat["left"]
            strip.append((4 if in_a_row >= 2 else 2) if won else 0)
            in_a_row = in_a_row + 1 if won else 0
        row = final[ids[name]]
        assert row["strip"] == strip[-10:] and row["points"] == sum(strip) and row["matches"] == len(strip)
        assert row["fire"] == (in_a_row >= 2)
    assert [row["place"] for row in facts["final"]] == sorted(row["place"] for row in facts["final"])
