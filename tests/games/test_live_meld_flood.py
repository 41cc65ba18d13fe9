"""Ten sockets flooding meld previews are answered, limited and closed, and the preview worker solves them,
not daphne: through a real daphne started as ``make run`` starts it (issue 25, High). The flood is the worst
the site allows: ten sockets of the player to act (the one person whose previews are answered) each send 150 previews
of the costliest input (four jokers and a long heart run) as fast as they can. Each socket gets its burst
answered, then ``rate_limited``, then is closed with 4429. The solver's work is done by the preview worker (a
child process of daphne's, ``games.reads.previews``), not by daphne: seen in the CPU time each process used,
read from /proc (no wall-clock time is asserted: a busy machine stretches it). Before, every preview gave its
token back and ran the solver on the event loop: 1,500 of them, about 11 ms each, were all answered. Another
seated player's pings are printed beside (idle, under each flood), for the note, not asserted.

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

#: CPU seconds a process must have used over a flood to count as having solved its previews (the preview
#: worker used 0.5-0.6 s over the flood of 650 answered previews, 2026-12-06).
WORKER_CPU = 0.1
#: Seconds between the seated player's pings during a flood.
PING_EVERY = 0.02

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


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) process ``pid`` has used so far, its live children not counted: /proc."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_of(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as fh:
        return [int(child) for child in fh.read().split()]


def test_ten_sockets_flooding_previews_are_solved_in_the_preview_worker_not_in_daphne(tmp_path, transactional_db):
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
        async def flooded(text: str) -> tuple[list[float], list, dict[int, float]]:
            """Ten sockets of the player to act send ``text`` 150 times each; the pings meanwhile, and the CPU
            seconds daphne and each of its child processes used over the flood."""
            flooders = await asyncio.create_subprocess_exec(
                sys.executable, "-c", FLOOD, str(port), table_path, setup["sessions"][setup["to_act"]],
                str(FLOODERS), str(PREVIEWS_EACH), text, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
            assert (await flooders.stdout.readline()).startswith(b"READY")
            await asyncio.sleep(1)  # the presence frames of ten new sockets settle
            pings: list[float] = []
            cpu = {pid: cpu_seconds(pid) for pid in (daphne.pid, *children_of(daphne.pid))}
            done = asyncio.ensure_future(flooders.stdout.readline())
            flooders.stdin.write(b"go\n")
            await flooders.stdin.drain()
            while not done.done():
                pings.append(await ping(pinger))
                await asyncio.sleep(PING_EVERY)  # a few pings: their own CPU in daphne stays small
            line = (await done).decode()
            await flooders.wait()
            assert line.startswith("DONE "), line
            # A child started during the flood (the preview worker, at the first preview) counts from 0.
            used = {pid: cpu_seconds(pid) - cpu.get(pid, 0.0) for pid in (daphne.pid, *children_of(daphne.pid))}
            return pings, json.loads(line[5:]), used

        for _ in range(20):  # warm up: the first pings of a new process are slower
            await ping(pinger)
        before = [await ping(pinger) for _ in range(IDLE_PINGS)]
        # The reference: the same flood of messages that are refused unread by the solver (bad_message).
        garbage, garbage_results, garbage_cpu = await flooded(json.dumps({"type": "meld_preview", "id": 1, "cards": "JK JK"}))
        under, results, preview_cpu = await flooded(json.dumps({"type": "meld_preview", "id": 1, "cards": WORST}))
        after = [await ping(pinger) for _ in range(IDLE_PINGS)]
        await pinger.close()
        return before, garbage, garbage_results, garbage_cpu, under, results, preview_cpu, after

    try:
        (before, garbage, garbage_results, garbage_cpu, under, results, preview_cpu,
         after) = asyncio.run(asyncio.wait_for(scenario(), timeout=200))
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
          f"previews/idle {ms['previews'] / ms['idle']:.2f}; CPU seconds over the garbage flood {garbage_cpu}, "
          f"over the preview flood {preview_cpu} (daphne {daphne.pid} and its children)")
    # Every flooding socket got its burst answered (of previews: the solver ran), then was refused and closed.
    for counts, close_code in results:
        assert 60 <= counts.get("meld_preview", 0) < PREVIEWS_EACH, counts
        assert close_code == 4429, (counts, close_code)
    for counts, close_code in garbage_results:
        assert counts.get("bad_message", 0) >= 60 and close_code == 4429, (counts, close_code)
    # The event loop kept answering the seated player's pings while each flood ran.
    assert under and garbage, "no ping was answered while a flood ran"
    # The solver ran in the preview worker, a child process of daphne's started by the first preview (none used
    # any CPU over the flood of refused messages): over the preview flood it used a good part of a second (650
    # previews), not daphne (issue 25; before, the solver ran on daphne's event loop and no worker existed).
    assert max((s for pid, s in garbage_cpu.items() if pid != daphne.pid), default=0.0) < WORKER_CPU, garbage_cpu
    assert max((s for pid, s in preview_cpu.items() if pid != daphne.pid), default=0.0) >= WORKER_CPU, preview_cpu
