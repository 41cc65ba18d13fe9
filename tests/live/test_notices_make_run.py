"""Notices through the process ``make run`` starts (one daphne, SQLite in a file, the in-memory channel layer,
no Redis): a signed-in person's ``/ws/notices/`` socket, open on some page, is told "your table is ready" with
their table's link the moment staff start the tournament with a POST on the staff page, and a socket
opened afterwards (a reload, another tab) is told the same table as pending."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from tests.live.test_clocks_make_run import Visitor, make_run_environment, start_as_make_run
from tests.servers import free_port, manage_shell, stop

# `make run`'s own stack (an SQLite file, the in-memory layer) whatever the run's DATABASE_URL and REDIS_URL: stackless.
pytestmark = [pytest.mark.slow, pytest.mark.stackless]

SETUP = """
import json
from django.contrib.auth import get_user_model
from tournaments import services as tournaments
from tests.servers import session_key

User = get_user_model()
sessions, ids = {}, {}
for name, staff in (("leitung", True), ("nora", False), ("nils", False)):
    user = User.objects.create_user(name, name + "@example.org", is_staff=staff)
    sessions[name], ids[name] = session_key(user), user.pk
staff = User.objects.get(username="leitung")
t = tournaments.tournament_create(by=staff, name="Live-Hinweis", game="gin", format="swiss",
                                  settings={"rounds": 1, "check_in_minutes": 0, "break_minutes": 0}, options={})
tournaments.tournament_publish(tournament_id=t.pk, by=staff)
for name in ("nora", "nils"):
    tournaments.tournament_register(tournament_id=t.pk, user=User.objects.get(username=name))
print("E2E " + json.dumps({"sessions": sessions, "ids": ids, "tournament": t.pk}))
"""

TABLE = """
import json
from tournaments.models import StageTable
(st,) = StageTable.objects.filter(stage__tournament_id={tournament_id})
print("E2E " + json.dumps({{"table": st.table_id, "users": st.users}}))
"""


async def notices_of(visitor: Visitor, port: int, ready: asyncio.Event, frames: list[dict], count: int) -> None:
    from websockets.asyncio.client import connect

    async with connect(f"ws://127.0.0.1:{port}/ws/notices/", origin=visitor.base,
                       additional_headers={"Cookie": f"sessionid={visitor.session}"}, open_timeout=10) as ws:
        ready.set()
        while len(frames) < count:
            frames.append(json.loads(await asyncio.wait_for(ws.recv(), timeout=20)))


def test_a_staff_start_reaches_the_players_notice_socket_at_once(tmp_path):
    env = make_run_environment(tmp_path)
    setup = manage_shell(SETUP, env)
    port = free_port()
    log = tmp_path / "daphne.log"
    daphne = start_as_make_run(port, env, log)
    visitors = {name: Visitor(port, session) for name, session in setup["sessions"].items()}
    tournament_id = setup["tournament"]

    async def scenario():
        frames = {"nora": [], "nils": []}
        ready = {name: asyncio.Event() for name in frames}
        listening = [asyncio.create_task(notices_of(visitors[name], port, ready[name], frames[name], 1))
                     for name in frames]
        await asyncio.gather(*(event.wait() for event in ready.values()))
        await asyncio.sleep(0.3)  # the sockets are in their groups (nothing is pending before the start)
        assert frames == {"nora": [], "nils": []}
        started = time.monotonic()
        status, body = await asyncio.to_thread(
            visitors["leitung"]._request, "POST", f"/turniere/{tournament_id}/leitung/start/", json_wanted=False)
        assert status == 200, body[:500]  # the redirect to the staff page, followed
        await asyncio.wait_for(asyncio.gather(*listening), timeout=20)
        waited = time.monotonic() - started
        late: list[dict] = []
        await notices_of(visitors["nora"], port, asyncio.Event(), late, 1)
        return frames, late, waited

    try:
        frames, late, waited = asyncio.run(asyncio.wait_for(scenario(), timeout=60))
    except BaseException:
        stop(daphne)
        print(log.read_text()[-4000:])
        raise
    stop(daphne)
    table = manage_shell(TABLE.format(tournament_id=tournament_id), env)
    assert sorted(table["users"]) == sorted([setup["ids"]["nora"], setup["ids"]["nils"]])
    for name in ("nora", "nils"):
        (notice,) = frames[name]
        assert notice["kind"] == "table_ready" and notice["table_id"] == table["table"]
        assert notice["url"] == f"/spielen/tisch/{table['table']}/"
        assert notice["tournament"] == "Live-Hinweis" and notice["stage"] == 1 and "pending" not in notice
    assert waited < 10  # told with the start's response, not by a later poll
    (pending,) = late
    assert pending["kind"] == "table_ready" and pending["table_id"] == table["table"] and pending["pending"] is True
