"""Ten sockets flooding meld previews do not slow a seated player down, through a real daphne started as
``make run`` starts it (issue 25, High). The flood is the worst the site allows: ten sockets of the player to
act (the one person whose previews are answered) each send 150 previews of the costliest input (four jokers
and a long heart run) as fast as they can. Each socket gets its burst answered, then ``rate_limited``, then
is closed with 4429; another seated player's ping meanwhile stays within 2x of its idle median, measured in
the same run (a ratio: these machines are shared and their absolute times noisy). Before, every preview gave
its token back and ran the solver on the event loop: 1,500 of them, about 11 ms each, were all answered.

The handshake's Origin check is tried on the same daphne: the page's own origin is accepted, another port
or scheme is refused."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time

import pytest

from tests.games.test_live_daphne import e2e_environment
from tests.servers import free_port, manage_shell, start_daphne, stop

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

FLOODERS = 10
PREVIEWS_EACH = 150
IDLE_PINGS = 80
WORST = ["JK", "JK", "JK", "JK", "AH", "2H", "4H", "5H", "6H", "8H", "9H", "JH", "QH", "AH"]

SETUP = """
import json
from django.contrib.auth import get_user_model
from games import registry, services
from games.models import Table
from tests.servers import session_key

sessions, users = {}, []
for name in ("flo", "pia", "quentin"):
    user = get_user_model().objects.create_user(name, name + "@example.org", "pw-" + name)
    sessions[name] = session_key(user)
    users.append(user)
table = services.table_create(user=users[0], game="romme", preset="standard",
                              options={"seats": 3, "turn_seconds": 600})
for user in users[1:]:
    services.table_join(table_id=table.pk, user=user)
table = Table.objects.get(pk=table.pk)
to_act = registry.get("romme").engine.Match.from_json(table.state).to_act
seat_user = {s.index: s.user.username for s in table.seats.select_related("user")}
print("E2E " + json.dumps({"sessions": sessions, "table": table.pk, "to_act": seat_user[to_act],
                           "other": seat_user[(to_act + 1) % 3]}))
"""


async def opened(port: int, path: str, session: str | None, origin: str | None = None):
    from websockets.asyncio.client import connect

    headers = {"Cookie": f"sessionid={session}"} if session else {}
    return await connect(f"ws://127.0.0.1:{port}{path}", origin=origin or f"http://127.0.0.1:{port}",
                         additional_headers=headers, open_timeout=15, max_queue=None)


async def until(ws, predicate) -> dict:
    while True:
        frame = json.loads(await ws.recv())
        if predicate(frame):
            return frame


async def ping(ws) -> float:
    started = time.perf_counter()
    await ws.send('{"type": "ping"}')
    await until(ws, lambda f: f["type"] == "pong")
    return time.perf_counter() - started


#: The flooding clients, in a process of their own: their answers are not read on the pinger's event loop,
#: so what the ping shows is the server's delay, not the test client's.
FLOOD = r"""
import asyncio, json, sys
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

port, path, session, count, each = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
text = sys.argv[6]

async def until_state(ws):
    while json.loads(await ws.recv())["type"] != "state":
        pass

async def flood(ws):
    counts = {}
    try:
        for _ in range(each):
            await ws.send(text)
        while sum(counts.values()) < each:
            frame = json.loads(await ws.recv())
            if frame["type"] in ("meld_preview", "error"):
                key = frame["type"] if frame["type"] == "meld_preview" else frame["code"]
                counts[key] = counts.get(key, 0) + 1
    except ConnectionClosed:
        pass
    return counts, ws.close_code

async def main():
    sockets = [await connect(f"ws://127.0.0.1:{port}{path}", origin=f"http://127.0.0.1:{port}",
                             additional_headers={"Cookie": f"sessionid={session}"}, open_timeout=15, max_queue=None)
               for _ in range(count)]
    for ws in sockets:
        await until_state(ws)
    print("READY", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    results = await asyncio.gather(*(flood(ws) for ws in sockets))
    print("DONE " + json.dumps(results), flush=True)

asyncio.run(main())
"""


def test_ten_sockets_flooding_previews_leave_a_seated_players_ping_within_twice_idle(tmp_path, transactional_db):
    env = e2e_environment(tmp_path)
    env.pop("REDIS_URL", None)  # make run: one daphne, the in-memory channel layer
    setup = manage_shell(SETUP, env)
    port = free_port()
    daphne = start_daphne(port, env)
    table_path = f"/ws/table/{setup['table']}/"

    async def scenario():
        from websockets.exceptions import InvalidStatus

        # The Origin check on the real server: another port or scheme of the same host is refused.
        for origin in (f"http://127.0.0.1:{port + 1}", f"https://127.0.0.1:{port}", "http://evil.example"):
            with pytest.raises(InvalidStatus) as refused:
                await opened(port, table_path, setup["sessions"]["pia"], origin=origin)
            assert refused.value.response.status_code == 403, origin

        pinger = await opened(port, table_path, setup["sessions"][setup["other"]])
        await until(pinger, lambda f: f["type"] == "state")
        async def flooded(text: str) -> tuple[list[float], list]:
            """Ten sockets of the player to act send ``text`` 150 times each; the pings meanwhile."""
            flooders = await asyncio.create_subprocess_exec(
                sys.executable, "-c", FLOOD, str(port), table_path, setup["sessions"][setup["to_act"]],
                str(FLOODERS), str(PREVIEWS_EACH), text, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
            assert (await flooders.stdout.readline()).startswith(b"READY")
            await asyncio.sleep(1)  # the presence frames of ten new sockets settle
            pings: list[float] = []
            done = asyncio.ensure_future(flooders.stdout.readline())
            flooders.stdin.write(b"go\n")
            await flooders.stdin.drain()
            while not done.done():
                pings.append(await ping(pinger))
            line = (await done).decode()
            await flooders.wait()
            assert line.startswith("DONE "), line
            return pings, json.loads(line[5:])

        for _ in range(20):  # warm up: the first pings of a new process are slower
            await ping(pinger)
        before = [await ping(pinger) for _ in range(IDLE_PINGS)]
        # The reference: the same flood of messages that are refused unread by the solver (bad_message).
        garbage, garbage_results = await flooded(json.dumps({"type": "meld_preview", "id": 1, "cards": "JK JK"}))
        under, results = await flooded(json.dumps({"type": "meld_preview", "id": 1, "cards": WORST}))
        after = [await ping(pinger) for _ in range(IDLE_PINGS)]
        await pinger.close()
        return before, garbage, garbage_results, under, results, after

    try:
        before, garbage, garbage_results, under, results, after = asyncio.run(asyncio.wait_for(scenario(), timeout=200))
    finally:
        stop(daphne)

    idle = before + after  # the machine's load drifts: idle on both sides of the floods
    ms = {name: statistics.median(pings) * 1000 for name, pings in
          (("idle", idle), ("garbage", garbage), ("previews", under))}
    print(f"\nflood through daphne: {FLOODERS} sockets x {PREVIEWS_EACH} messages; previews of {' '.join(WORST)} "
          f"answered {[c.get('meld_preview', 0) for c, _ in results]}; seated player's ping median: idle "
          f"{ms['idle']:.2f} ms (before {statistics.median(before) * 1000:.2f}, after "
          f"{statistics.median(after) * 1000:.2f}), under a garbage flood {ms['garbage']:.2f} ms ({len(garbage)} "
          f"pings), under the preview flood {ms['previews']:.2f} ms ({len(under)} pings, worst "
          f"{max(under) * 1000:.1f} ms); previews/garbage {ms['previews'] / ms['garbage']:.2f}, "
          f"previews/idle {ms['previews'] / ms['idle']:.2f}")
    # Every flooding socket got its burst answered (of previews: the solver ran), then was refused and closed.
    for counts, close_code in results:
        assert 60 <= counts.get("meld_preview", 0) < PREVIEWS_EACH, counts
        assert close_code == 4429, (counts, close_code)
    for counts, close_code in garbage_results:
        assert counts.get("bad_message", 0) >= 60 and close_code == 4429, (counts, close_code)
    assert len(under) >= 5 and len(garbage) >= 5, "a flood ended before the pings could measure it"
    # Ten sockets of worst previews leave the seated player's ping within 2x of idle (issue 25): the solver
    # runs in a worker process of its own (games.reads.previews), so neither the event loop nor the GIL waits
    # for it. (Before: 1,500 previews of ~11 ms each on the event loop, seconds of delay; then in a thread of
    # daphne's, 5 ms a ping behind the GIL.) And a preview costs the server no more than a refused message.
    assert ms["previews"] <= float(os.environ.get("FLOOD_IDLE_RATIO", "2")) * ms["idle"], ms
    assert ms["previews"] <= 2 * ms["garbage"], ms
