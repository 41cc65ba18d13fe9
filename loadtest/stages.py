"""Where a move's time goes inside the servers, the site's and the bare stack's, side by side (issue 24).

``python -m loadtest --stages`` starts every daphne process through this module: it imports the
application, wraps a few of its functions to note the moment a move passes each stage, and then runs
daphne as ``python -m daphne`` would. The notes are ``time.monotonic_ns()`` (one clock for every process of
the machine), keyed by the table and the version the move was sent with, written to a file per process;
the load generator notes when it sent the move and when both seats held the new version. Nothing of the
site changes: the wrappers call what they wrap.

The stages, in the order a move passes them::

    site:  sent → received → db start → db end → fan-out start → fan-out end → frame in → frame out → both
    bare:  sent → received → db start → fan-out start → fan-out end → db end → frame in → frame out → both

(the bare stack sends its group message from the database thread, inside ``transaction.on_commit``; the
site from the event loop after the thread returned). ``frame in``/``out`` are the receiving consumer's
``table_frame``/``table_event`` of the last of the two seats.

Every garbage collection's pause is timed too, those while starting up apart from those while serving, and
after the play, every socket still open, each daphne takes a ``census`` of what a full collection walks
(by generation, by type, and what the site's caches per table hold).
"""

from __future__ import annotations

import atexit
import contextvars
import gc
import json
import os
import runpy
import signal
import sys
import threading
import time
import types
from pathlib import Path

KEY: contextvars.ContextVar[tuple[int, int] | None] = contextvars.ContextVar("loadtest_stage_key", default=None)

_notes: list[tuple[int, int, str, int]] = []
_lock = threading.Lock()


def note(key: tuple[int, int] | None, stage: str) -> None:
    if key is not None:
        _notes.append((key[0], key[1], stage, time.monotonic_ns()))


#: The load generator notes ``sent`` and ``both`` only while this is on (``python -m loadtest --stages``).
client = False


def client_note(key: tuple[int, int], stage: str) -> None:
    if client:
        note(key, stage)


def flush(path: Path) -> None:
    """Append the notes taken so far to ``path``, one JSON row a line."""
    global _notes
    with _lock:
        taken, _notes = _notes, []
        if taken:
            with open(path, "a") as fh:
                fh.writelines(json.dumps(row) + "\n" for row in taken)


def _flusher(path: Path) -> None:
    while True:
        time.sleep(0.5)
        flush(path)


# --- the site ---------------------------------------------------------------------------------------------

def install_site() -> None:
    import ginsite.asgi  # noqa: F401 - sets Django up and builds the application the wrappers reach
    from games.delivery import events
    from games.web import consumers

    table = consumers.TableConsumer
    receive, table_frame, in_thread, send_now = table.receive, table.table_frame, consumers.in_thread, events.send_now

    async def traced_receive(self, text_data=None, bytes_data=None):
        key = None
        if text_data and '"move"' in text_data:
            try:
                message = json.loads(text_data)
                if message.get("type") == "move" and isinstance(message.get("version"), int):
                    key = (self.table_id, message["version"])
            except (ValueError, AttributeError):
                pass
        if key is None:
            return await receive(self, text_data, bytes_data)
        note(key, "received")
        token = KEY.set(key)
        try:
            return await receive(self, text_data, bytes_data)
        finally:
            KEY.reset(token)

    def traced_in_thread(function):
        key = KEY.get()
        if key is None:
            return in_thread(function)

        def run(*args, **kwargs):
            note(key, "db start")
            try:
                return function(*args, **kwargs)
            finally:
                note(key, "db end")

        return in_thread(run)

    async def traced_send_now(layer, messages):
        key = KEY.get()
        note(key, "fan-out start")
        try:
            return await send_now(layer, messages)
        finally:
            note(key, "fan-out end")

    async def traced_table_frame(self, event):
        version = event.get("version")
        key = (self.table_id, version - 1) if isinstance(version, int) else None
        note(key, "frame in")
        try:
            return await table_frame(self, event)
        finally:
            note(key, "frame out")

    from games.web import handshakes

    connect, open_table = table.connect, handshakes.open_table
    count = iter(range(1, 1 << 62))

    async def traced_connect(self):
        # A handshake's key: the table and a negative number of its own (moves have versions ≥ 0).
        key = (int(self.scope["url_route"]["kwargs"]["table_id"]), -next(count))
        note(key, "connect")
        token = KEY.set(key)
        try:
            return await connect(self)
        finally:
            note(key, "connect end")
            KEY.reset(token)

    async def traced_open_table(scope, table_id, invite):
        key = KEY.get()
        note(key, "read start")
        try:
            return await open_table(scope, table_id, invite)
        finally:
            note(key, "read end")

    # Inside the database call: the locked read, the engine's change, the writes, the commit, the frames.
    from games.services import _common, _course

    locked_read, finish, wire = _common.locked_table_and_seats, _course.Play.finish, events.wire

    def traced_locked_read(*args, **kwargs):
        try:
            return locked_read(*args, **kwargs)
        finally:
            note(KEY.get(), "locked")

    def traced_finish(self, *args, **kwargs):
        key = KEY.get()
        note(key, "applied")
        try:
            return finish(self, *args, **kwargs)
        finally:
            note(key, "written")

    def traced_wire(messages):
        key = KEY.get()
        note(key, "committed")
        try:
            return wire(messages)
        finally:
            note(key, "framed")

    _common.locked_table_and_seats = traced_locked_read
    _course.Play.finish = traced_finish
    events.wire = traced_wire
    table.connect = traced_connect
    handshakes.open_table = traced_open_table
    table.receive = traced_receive
    table.table_frame = traced_table_frame
    consumers.in_thread = traced_in_thread
    events.send_now = traced_send_now


# --- the bare stack ---------------------------------------------------------------------------------------

def install_bare() -> None:
    import stack  # the bare stack's module (its folder is the working directory)

    consumer = stack.TableConsumer
    receive_json, table_event, apply_move, async_to_sync = (
        consumer.receive_json, consumer.table_event, stack.apply_move, stack.async_to_sync)

    async def traced_receive_json(self, content):
        key = (self.table, content.get("version"))
        note(key, "received")
        token = KEY.set(key)
        try:
            return await receive_json(self, content)
        finally:
            KEY.reset(token)

    def traced_apply_move(table_id, seat, version):
        key = KEY.get()
        note(key, "db start")
        try:
            return apply_move(table_id, seat, version)
        finally:
            note(key, "db end")

    def traced_async_to_sync(function):
        sync = async_to_sync(function)

        def run(*args, **kwargs):
            key = KEY.get()
            note(key, "fan-out start")
            try:
                return sync(*args, **kwargs)
            finally:
                note(key, "fan-out end")

        return run

    async def traced_table_event(self, event):
        key = (self.table, event["version"] - 1)
        note(key, "frame in")
        try:
            return await table_event(self, event)
        finally:
            note(key, "frame out")

    consumer.receive_json = traced_receive_json
    consumer.table_event = traced_table_event
    stack.apply_move = traced_apply_move
    stack.async_to_sync = traced_async_to_sync


# --- reading the notes ------------------------------------------------------------------------------------

ORDER = {
    "site": ["sent", "received", "db start", "db end", "fan-out start", "fan-out end", "frame in", "frame out", "both"],
    "bare": ["sent", "received", "db start", "fan-out start", "fan-out end", "db end", "frame in", "frame out", "both"],
}


#: Inside the site's database call of a move (``games.services.move_apply``): the locked read of table and
#: seats, the engine's change, the writes (``Play.finish``), the commit, the frames (``events.wire``).
INSIDE = ["db start", "locked", "applied", "written", "committed", "framed", "db end"]

#: A site handshake's stages (keys with a negative second part): accepted and in its groups, then the batched
#: read of session, user and table (``handshakes.open_table``), then its state and chat sent.
CONNECT = ["connect", "read start", "read end", "connect end"]


def read(folder: Path, prefix: str) -> dict[tuple[int, int], dict[str, int]]:
    """Every traced move's stages: the first note of a stage, but the last of ``frame in``/``frame out``/
    ``both`` (the move counts when the second seat has it). Garbage collections' pauses (ns) are listed under
    ``(-1, generation)``, stage ``"gc"``, as ``{"gc": [...]}``."""
    moves: dict[tuple[int, int], dict[str, int]] = {}
    for path in sorted(folder.glob(f"{prefix}-*.jsonl")):
        for line in path.read_text().splitlines():
            table, version, stage, at = json.loads(line)
            if stage in ("gc", "gc start", "gc cpu", "gc start cpu"):
                moves.setdefault((-1, version), {}).setdefault(stage, []).append(at)  # type: ignore[attr-defined]
                continue
            stages = moves.setdefault((table, version), {})
            if stage in ("frame in", "frame out", "both"):
                stages[stage] = max(stages.get(stage, at), at)
            else:
                stages.setdefault(stage, at)
    return moves


async def ask_census(processes: list, folder: Path, prefix: str, timeout: float = 30) -> None:
    """Ask every daphne process this module runs for its ``census`` (SIGUSR1; not the referee's process)
    and wait until each has written it."""
    import asyncio

    processes = [process for process in processes if "loadtest.stages" in process.args]

    for old in folder.glob(f"{prefix}-*.census.json"):
        old.unlink()
    for process in processes:
        process.send_signal(signal.SIGUSR1)
    waited = 0.0
    while len(list(folder.glob(f"{prefix}-*.census.json"))) < len(processes) and waited < timeout:
        await asyncio.sleep(0.2)
        waited += 0.2


def censuses(folder: Path, prefix: str) -> list[dict]:
    """Each server process's ``census``, taken after the play while every socket was still open."""
    return [json.loads(path.read_text()) for path in sorted(folder.glob(f"{prefix}-*.census.json"))]


def summary(moves: dict[tuple[int, int], dict[str, int]], side: str) -> dict:
    """p50 / p99 in ms of each step between consecutive stages, over the moves that passed every stage."""
    order = ORDER[side]
    complete = [stages for key, stages in moves.items()
                if key[0] >= 0 and key[1] >= 0 and all(stage in stages for stage in order)]
    steps: dict[str, dict] = {}
    for before, after in zip(order, order[1:], strict=False):
        gaps = sorted((stages[after] - stages[before]) / 1e6 for stages in complete)
        steps[f"{before} → {after}"] = _quantiles(gaps)
    steps["total"] = _quantiles(sorted((stages["both"] - stages["sent"]) / 1e6 for stages in complete))
    handshakes = [stages for key, stages in moves.items()
                  if key[0] >= 0 and key[1] < 0 and all(s in stages for s in CONNECT)]
    collections: dict[str, dict] = {}
    starting: dict[str, dict] = {}
    for generation in (0, 1, 2):
        for stage, into in (("gc", collections), ("gc start", starting)):
            pauses = sorted(ns / 1e6 for ns in moves.get((-1, generation), {}).get(stage, []))  # type: ignore[attr-defined]
            cpu = sorted(ns / 1e6 for ns in moves.get((-1, generation), {}).get(f"{stage} cpu", []))  # type: ignore[attr-defined]
            into[str(generation)] = {"count": len(pauses), "total": sum(pauses),
                                     "max": pauses[-1] if pauses else None, **_quantiles(pauses),
                                     "cpu_total": sum(cpu), "cpu_max": cpu[-1] if cpu else None}
    connect = {f"{before} → {after}": _quantiles(sorted((stages[after] - stages[before]) / 1e6 for stages in handshakes))
               for before, after in zip(CONNECT, CONNECT[1:], strict=False)}
    inside = [stages for stages in complete if all(stage in stages for stage in INSIDE)]
    database = {f"{before} → {after}": _quantiles(sorted((stages[after] - stages[before]) / 1e6 for stages in inside))
                for before, after in zip(INSIDE, INSIDE[1:], strict=False)} if inside else {}
    return {"moves": len(complete), "steps": steps, "database": database, "handshakes": len(handshakes), "connect": connect,
            "gc": collections, "gc start": starting}


def _quantiles(values: list[float]) -> dict:
    if not values:
        return {"p50": None, "p99": None, "mean": None}
    return {"p50": values[len(values) // 2], "p99": values[min(len(values) - 1, int(len(values) * 0.99))],
            "mean": sum(values) / len(values)}


def table(site: dict, bare: dict) -> str:
    """The two sides' steps side by side (ms)."""
    lines = [f"  moves traced: site {site['moves']}, bare {bare['moves']}",
             f"  {'step':34} {'site p50':>9} {'p99':>8} {'mean':>8} │ {'bare step':34} {'p50':>7} {'p99':>8} {'mean':>8}"]
    rows = list(site["steps"].items())
    bare_rows = list(bare["steps"].items())
    for i in range(max(len(rows), len(bare_rows))):
        left = _row(*rows[i]) if i < len(rows) else " " * 62
        right = _row(*bare_rows[i]) if i < len(bare_rows) else ""
        lines.append(f"  {left} │ {right}")
    for side, figures in (("site", site), ("bare", bare)):
        pauses = ", ".join(
            f"gen {g}: {c['count']}× (max {c['max']:.1f} ms, total {c['total']:.0f} ms"
            + (f"; CPU max {c['cpu_max']:.1f}, total {c['cpu_total']:.0f} ms)" if c.get("cpu_max") is not None else ")")
            for g, c in figures.get("gc", {}).items() if c["count"])
        if pauses:
            lines.append(f"  {side} garbage collections while serving (every thread waits): {pauses}")
    for side, figures in (("site", site), ("bare", bare)):
        pauses = ", ".join(
            f"gen {g}: {c['count']}× (max {c['max']:.1f} ms)"
            for g, c in figures.get("gc start", {}).items() if c["count"])
        if pauses:
            lines.append(f"  {side} collections while starting up (before the application served): {pauses}")
    for side, figures in (("site", site), ("bare", bare)):
        for number, taken in enumerate(figures.get("census", [])):
            caches = ", ".join(f"{name.rsplit('.', 1)[-1]} ({taken.get('sizes', {}).get(name, '?')} entries) {count}"
                               for name, count in taken["caches"].items() if count)
            types = ", ".join(f"{name} {count}" for name, count in list(taken["types"].items())[:6])
            lines.append(f"  {side} daphne {number} after the play: {taken['tracked']} objects walked by a full collection "
                         f"(gen 0/1/2 {'/'.join(map(str, taken['generations']))}, frozen {taken['frozen']}); "
                         f"{types}" + (f"; held by {caches}" if caches else ""))
    if site.get("database"):
        lines.append("  inside the site's database call:")
        lines.extend(f"  {_row(name, q)}" for name, q in site["database"].items())
    if site.get("handshakes"):
        lines.append(f"  site handshakes traced: {site['handshakes']}")
        lines.extend(f"  {_row(name, q)}" for name, q in site["connect"].items())
    return "\n".join(lines)


def _row(name: str, q: dict) -> str:
    def ms(value):
        return f"{value:8.2f}" if value is not None else "       —"
    return f"{name:34} {ms(q['p50'])} {ms(q['p99'])} {ms(q['mean'])}"


# --- the wrapper ------------------------------------------------------------------------------------------

#: Whether the application is built: collections before (importing, ``ginsite.collector.freeze_start``) stall
#: no socket, and are noted apart (``gc start``).
_serving = False


def _time_collections() -> None:
    """Note every garbage collection's pause (all threads stop while it runs): key ``(-1, generation)``, stage
    ``gc`` once the application is built, ``gc start`` before."""
    started: list[int] = [0, 0]

    def callback(phase: str, info: dict) -> None:
        if phase == "start":
            started[0], started[1] = time.monotonic_ns(), time.thread_time_ns()
        else:
            stage = "gc" if _serving else "gc start"
            _notes.append((-1, info["generation"], stage, time.monotonic_ns() - started[0]))
            # The collector's own CPU time: the pause less the time the process waited for a core.
            _notes.append((-1, info["generation"], f"{stage} cpu", time.thread_time_ns() - started[1]))

    gc.callbacks.append(callback)


#: Where the site keeps things per table or per group between moves: (module, attribute) of each root whose
#: tracked containers ``census`` counts.
CACHES = [("games.delivery.framecache", "_entries"), ("games.delivery.events", "_last_sent"),
          ("games.web.handshakes", "_batchers"), ("games.web.handshakes", "_presence_pending"),
          ("games.web.timekeeper", "_announced"), ("channels.layers", "channel_layers")]


def census() -> dict:
    """What the garbage collector walks in this process now: the objects it tracks outside the frozen
    permanent generation (``gc.freeze``), by generation and by type, and how many of them each cache of
    ``CACHES`` holds (reachable from it)."""
    walked = gc.get_objects()
    ids = {id(o) for o in walked}
    by_type: dict[str, int] = {}
    for obj in walked:
        name = type(obj).__qualname__
        by_type[name] = by_type.get(name, 0) + 1
    caches: dict[str, int] = {}
    sizes: dict[str, int] = {}
    for module_name, attribute in CACHES:
        module = sys.modules.get(module_name)
        if module is None or not hasattr(module, attribute):
            continue
        # The root and what it held at the freeze are frozen: walked through (two steps), not counted.
        seen: set[int] = set()
        counted = 0
        stack = [(getattr(module, attribute), 0)]
        while stack:
            obj, depth = stack.pop()
            walked_here = id(obj) in ids
            if (id(obj) in seen or (not walked_here and depth > 2)
                    or isinstance(obj, (type, types.ModuleType, types.FunctionType))):
                continue
            seen.add(id(obj))
            counted += walked_here
            stack.extend((referent, depth + 1) for referent in gc.get_referents(obj))
        root = getattr(module, attribute)
        size = len(root) if hasattr(root, "__len__") else len(getattr(root, "parts", ()))
        caches[f"{module_name}.{attribute}"] = counted
        sizes[f"{module_name}.{attribute}"] = size
    top = dict(sorted(by_type.items(), key=lambda item: -item[1])[:12])
    return {"tracked": len(walked), "generations": [len(gc.get_objects(g)) for g in range(3)],
            "frozen": gc.get_freeze_count(), "types": top, "caches": caches, "sizes": sizes}


def _write_census(path: Path) -> None:
    taken = census()
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(taken))
    partial.rename(path)  # whole or not there: ask_census waits for it


def main(argv: list[str]) -> None:
    side, path, *daphne = argv
    out = Path(path)
    threading.Thread(target=_flusher, args=(out,), daemon=True).start()
    atexit.register(flush, out)
    signal.signal(signal.SIGUSR1, lambda *_: _write_census(out.with_suffix(".census.json")))  # ask_census
    _time_collections()
    if side == "site":
        install_site()
    else:
        sys.path.insert(0, os.getcwd())
        install_bare()
    global _serving
    _serving = True
    sys.argv = ["daphne", *daphne]
    runpy.run_module("daphne", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
