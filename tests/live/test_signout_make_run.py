"""Sign-out through the process ``make run`` starts: a person's old table and notice sockets are closed
(``signed_out``, 4401) the moment they sign out on allauth's page, so the old table socket can no longer chat
or resign, and a socket opened again with the old session cookie is nobody's: its resign and chat are refused
and the match and the chat are as they were."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.live.test_clocks_make_run import Visitor, make_run_environment, start_as_make_run
from tests.servers import free_port, manage_shell, stop

# `make run`'s own stack (an SQLite file, the in-memory layer) whatever the run's DATABASE_URL and REDIS_URL: stackless.
pytestmark = [pytest.mark.slow, pytest.mark.stackless]

SETUP = """
import json
from django.contrib.auth import get_user_model
from games import services
from tests.servers import session_key

User = get_user_model()
sessions, users = {}, {}
for name in ("anna", "ben"):
    user = User.objects.create_user(name, name + "@example.org")
    sessions[name], users[name] = session_key(user), user
table = services.table_create(user=users["anna"], game="gin", preset="klassisch", options={})
services.table_join(table_id=table.pk, user=users["ben"])
print("E2E " + json.dumps({"sessions": sessions, "table": table.pk}))
"""

RECORD = """
import json
from games.models import ChatMessage, Table
table = Table.objects.select_related("current_match").get(pk={table_id})
print("E2E " + json.dumps({{"status": table.status, "match": table.current_match.status,
                            "chat": ChatMessage.objects.filter(table=table).count()}}))
"""


async def _until(ws, wanted, timeout: float = 10) -> dict:
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), timeout=timeout))
        if wanted(frame):
            return frame


def test_signing_out_closes_the_persons_sockets(tmp_path):
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    env = make_run_environment(tmp_path)
    setup = manage_shell(SETUP, env)
    table_id = setup["table"]
    port = free_port()
    log = tmp_path / "daphne.log"
    daphne = start_as_make_run(port, env, log)
    anna = Visitor(port, setup["sessions"]["anna"])
    cookie = {"Cookie": f"sessionid={anna.session}"}
    table_url = f"ws://127.0.0.1:{port}/ws/table/{table_id}/"

    async def scenario():
        async with connect(table_url, origin=anna.base, additional_headers=cookie, open_timeout=10) as table_ws, \
                connect(f"ws://127.0.0.1:{port}/ws/notices/", origin=anna.base, additional_headers=cookie,
                        open_timeout=10) as notice_ws:
            state = await _until(table_ws, lambda f: f["type"] == "state")
            assert state["table"]["you"] == 0 and state["table"]["status"] == "playing"
            await table_ws.send(json.dumps({"type": "ping"}))
            await _until(table_ws, lambda f: f["type"] == "pong")  # the socket is in its groups
            await asyncio.sleep(0.3)  # the notice socket too
            status, body = await asyncio.to_thread(anna._request, "POST", "/accounts/logout/", json_wanted=False)
            assert status == 200, body[:500]
            told = {}
            for name, ws in (("table", table_ws), ("notices", notice_ws)):
                error = await _until(ws, lambda f: f["type"] == "error")
                assert error["code"] == "signed_out", error
                with pytest.raises(ConnectionClosed):
                    await asyncio.wait_for(ws.recv(), timeout=10)
                told[name] = ws.close_code
            assert told == {"table": 4401, "notices": 4401}
            # The old socket can no longer chat or resign: it is closed.
            with pytest.raises(ConnectionClosed):
                await table_ws.send(json.dumps({"type": "chat", "text": "noch da?"}))
                await table_ws.send(json.dumps({"type": "resign"}))
                await asyncio.wait_for(table_ws.recv(), timeout=5)
        # The old cookie opens a spectator's socket at most: no seat, and resign and chat are refused.
        async with connect(table_url, origin=anna.base, additional_headers=cookie, open_timeout=10) as again:
            state = await _until(again, lambda f: f["type"] == "state")
            assert state["table"]["you"] is None and state["view"].get("hand") is None
            answers = []
            for message in ({"type": "resign"}, {"type": "chat", "text": "noch da?"}):
                await again.send(json.dumps(message))
                answers.append((await _until(again, lambda f: f["type"] == "error"))["code"])
            return answers

    try:
        answers = asyncio.run(asyncio.wait_for(scenario(), timeout=60))
    except BaseException:
        stop(daphne)
        print(log.read_text()[-4000:])
        raise
    stop(daphne)
    assert all(code in ("not_seated", "not_signed_in") for code in answers), answers
    record = manage_shell(RECORD.format(table_id=table_id), env)
    assert record == {"status": "playing", "match": "playing", "chat": 0}
