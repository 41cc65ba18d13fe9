"""The handshakes' helper process (games/web/handshake_process.py) through the process ``make run`` starts: daphne
spawns it while it warms up, the sockets' handshakes are read there (each seat its own view, a spectator the
public one), a helper that dies is noticed at the next batch, that batch is read in daphne instead, and
another helper takes over; a daphne killed outright takes its helper with it."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import time

import pytest

from tests.games.helpers import assert_own_views
from tests.live.test_clocks_make_run import make_run_environment, start_as_make_run
from tests.servers import alive, children_of, free_port, manage_shell, stop

# `make run`'s own stack (an SQLite file, the in-memory layer) whatever the run's DATABASE_URL and REDIS_URL: stackless.
pytestmark = [pytest.mark.slow, pytest.mark.stackless]

SETUP = """
import json
from django.contrib.auth import get_user_model
from games import services
from tests.servers import session_key

User = get_user_model()
sessions, users = {}, {}
for name in ("anna", "ben", "sven"):
    user = User.objects.create_user(name, name + "@example.org")
    sessions[name], users[name] = session_key(user), user
table = services.table_create(user=users["anna"], game="gin", preset="klassisch", options={})
services.table_join(table_id=table.pk, user=users["ben"])
print("E2E " + json.dumps({"sessions": sessions, "table": table.pk}))
"""


def _helper_of(pid: int) -> int:
    helpers = [child for child, command in children_of(pid).items() if "multiprocessing.spawn" in command]
    assert len(helpers) == 1, children_of(pid)
    return helpers[0]


def _wait_for(what, timeout: float = 20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(0.1)
    return what()


async def _states(port: int, table_id: int, sessions: list[str | None]) -> list[dict]:
    """Open a socket per session together (None: no cookie) and return each one's first state."""
    from websockets.asyncio.client import connect

    base = f"http://127.0.0.1:{port}"

    async def one(session):
        headers = {"Cookie": f"sessionid={session}"} if session else {}
        async with connect(f"ws://127.0.0.1:{port}/ws/table/{table_id}/", origin=base, additional_headers=headers,
                           open_timeout=10) as ws:
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
                if frame["type"] == "state":
                    return frame

    return await asyncio.gather(*(one(session) for session in sessions))


def _check_views(states: list[dict]) -> None:
    anna, ben, sven, nobody = states
    assert_own_views([anna, ben], [sven, nobody])


def test_make_runs_handshakes_are_read_by_a_helper_process_that_is_replaced_when_it_dies(tmp_path):
    env = make_run_environment(tmp_path)
    env.pop("LOG_LEVEL", None)
    setup = manage_shell(SETUP, env)
    sessions = [setup["sessions"]["anna"], setup["sessions"]["ben"], setup["sessions"]["sven"], None]
    port = free_port()
    log = tmp_path / "daphne.log"
    daphne = start_as_make_run(port, env, log)
    try:
        assert _wait_for(lambda: "handshake helper process ready" in log.read_text(errors="replace")), \
            log.read_text()[-3000:]
        helper = _helper_of(daphne.pid)
        _check_views(asyncio.run(_states(port, setup["table"], sessions)))
        assert "could not read" not in log.read_text(errors="replace")

        # The helper dies: the next batch finds it gone and is read in daphne, every socket still served.
        os.kill(helper, signal.SIGKILL)
        assert _wait_for(lambda: not alive(helper))
        _check_views(asyncio.run(_states(port, setup["table"], sessions)))
        text = log.read_text(errors="replace")
        assert "the handshake helper process died" in text and "reading them here" in text

        # Another helper starts (RESTART_SECONDS after) with the next batch, and reads the batches after it.
        time.sleep(5.5)
        asyncio.run(_states(port, setup["table"], [None]))
        assert _wait_for(lambda: len(re.findall(r"handshake helper process \d+ ready",
                                                 log.read_text(errors="replace"))) == 2), \
            [line for line in log.read_text().splitlines() if "helper" in line]
        replacement = _helper_of(daphne.pid)
        assert replacement != helper
        mark = len(log.read_text(errors="replace"))
        _check_views(asyncio.run(_states(port, setup["table"], sessions)))
        assert "could not read" not in log.read_text(errors="replace")[mark:]

        # daphne killed outright: its helper does not outlive it.
        daphne.send_signal(signal.SIGKILL)
        daphne.wait(timeout=10)
        assert _wait_for(lambda: not alive(replacement), timeout=15), "the helper outlived daphne"
    finally:
        stop(daphne)
    text = log.read_text(errors="replace")
    assert "Traceback" not in text.split("the handshake helper process died")[0], text[-3000:]
