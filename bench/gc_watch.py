"""Every garbage collection of a server process, one JSON row each: what it walked and what it cost.

``loadtest.stages`` times each collection's pause; this says why a pause is long. Installed in a process
(``install``), it notes for every collection: the generation, the wall and the collector's own CPU time, the
objects collected and uncollectable (``gc.callbacks``' ``info``), how many objects each generation held as it
started (``gc.get_count`` and, with ``census=True``, the young generation's objects by type and the largest
containers in it, with their length: a collection's cost is its objects plus their references). Rows go to
``<folder>/gc-<pid>.jsonl``, with the process's command line first.

To watch the daphnes of a load test without changing it, put ``bench/gc_watch_hook`` on ``PYTHONPATH`` (its
``sitecustomize`` installs this in every Python process that starts with ``GC_WATCH_DIR`` set; the load test
hands its environment to the servers)::

    GC_WATCH_DIR=/tmp/gcw PYTHONPATH=bench/gc_watch_hook flock /tmp/bench.lock timeout 600 \\
        .venv/bin/python -m loadtest --profile evening --stack scaled --only site --think 2.5 --seconds 30
    .venv/bin/python -m bench.gc_watch /tmp/gcw        # the summary per process and generation

The load generator is a Python process too, with 1,000 sockets: its own collections (Python's thresholds; a
full one took 120-245 ms) stall its loop, and the moves it then sends together queue in the servers.
``GC_WATCH_LOADGEN_THRESHOLDS=100000,50,1000`` sets its thresholds (``load_generator_thresholds``) to measure what
that adds; both stacks of a run share that process, so it changes the reference as much as the site.

``GC_WATCH_CENSUS=1`` adds the young generation's census to each collection of generation 0 or 1: it walks
that generation in Python before the collection starts (not counted in the pause), which with 1,000 sockets
takes seconds of the process's time, so a run with it says *what* a collection walks, not how long it takes.
"""

from __future__ import annotations

import atexit
import gc
import json
import os
import sys
import threading
import time
from pathlib import Path


def _young_census(generation: int) -> dict:
    """The objects of generations 0..``generation`` by type (top 10) and the 5 largest containers."""
    objects = [o for g in range(generation + 1) for o in gc.get_objects(g)]
    by_type: dict[str, int] = {}
    largest: list[tuple[int, str]] = []
    references = 0
    for obj in objects:
        name = type(obj).__qualname__
        by_type[name] = by_type.get(name, 0) + 1
        try:
            size = len(obj) if isinstance(obj, (dict, list, set, tuple, frozenset)) else 0
        except TypeError:
            size = 0
        references += size
        if size > 200:
            largest.append((size, name))
    largest.sort(reverse=True)
    return {"objects": len(objects), "entries": references,
            "types": dict(sorted(by_type.items(), key=lambda item: -item[1])[:10]), "largest": largest[:5]}


def install(folder: str | Path, *, census: bool = False) -> Path:
    """Note every collection of this process into ``folder/gc-<pid>.jsonl`` (flushed every second and at exit)."""
    out = Path(folder) / f"gc-{os.getpid()}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = [{"argv": list(sys.orig_argv), "pid": os.getpid(), "at": time.monotonic()}]
    lock = threading.Lock()
    local = threading.local()  # a collection's start and end are noted by the thread that runs it

    def callback(phase: str, info: dict) -> None:
        generation = info["generation"]
        if phase == "start":
            local.pending = {"count": gc.get_count()}
            if census and generation < 2:
                local.pending["young"] = _young_census(generation)
            local.started = (time.monotonic_ns(), time.thread_time_ns())
            return
        wall, cpu = time.monotonic_ns() - local.started[0], time.thread_time_ns() - local.started[1]
        row = {"at": time.monotonic(), "gen": generation, "wall_ms": wall / 1e6, "cpu_ms": cpu / 1e6,
               "collected": info["collected"], "uncollectable": info["uncollectable"],
               "thread": threading.current_thread().name, **local.pending}
        with lock:
            rows.append(row)

    def flush() -> None:
        with lock:
            taken = rows[:]
            rows.clear()
        if taken:
            with out.open("a") as fh:
                fh.writelines(json.dumps(row) + "\n" for row in taken)

    def flusher() -> None:
        while True:
            time.sleep(1)
            flush()

    gc.callbacks.append(callback)
    threading.Thread(target=flusher, daemon=True, name="gc-watch").start()
    atexit.register(flush)
    return out


def load_generator_thresholds(value: str) -> None:
    """In the load generator's process (``python -m loadtest``) set the collector's thresholds to ``value``
    ("700,10,10" is Python's own); elsewhere, or empty, nothing. (At start-up ``sys.argv`` says only ``-m``.)"""
    argv = sys.orig_argv
    if value and any(a == "-m" and b == "loadtest" for a, b in zip(argv, argv[1:], strict=False)):
        gc.set_threshold(*(int(n) for n in value.split(",")))


def summary(folder: str | Path) -> str:
    """Per process that collected while serving (daphne): per generation the count, collected objects,
    wall and CPU (total, p50, max), and the young generation's census of the costliest collections."""
    lines = []
    for path in sorted(Path(folder).glob("gc-*.jsonl")):
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        head = next((r for r in rows if "argv" in r), {"argv": ["?"]})
        if not any("daphne" in part or "asgi" in part for part in head["argv"]):
            continue
        collections = [r for r in rows if "gen" in r]
        # Serving: after the last collection of generation 2 (the start's gc.collect() in freeze_start).
        last_full = max((i for i, r in enumerate(collections) if r["gen"] == 2), default=-1)
        serving = collections[last_full + 1:]
        lines.append(f"{path.name}: {' '.join(head['argv'])[:100]}")
        for generation in (0, 1, 2):
            these = [r for r in serving if r["gen"] == generation]
            if not these:
                continue
            cpu = sorted(r["cpu_ms"] for r in these)
            wall = sorted(r["wall_ms"] for r in these)
            collected = sum(r["collected"] for r in these)
            lines.append(f"  gen {generation}: {len(these)}×, collected {collected} ({collected / len(these):.0f} each), "
                         f"CPU total {sum(cpu):.0f} ms, p50 {cpu[len(cpu) // 2]:.1f}, max {cpu[-1]:.1f}; "
                         f"wall total {sum(wall):.0f}, max {wall[-1]:.1f} ms")
            for r in sorted(these, key=lambda r: -r["cpu_ms"])[:3]:
                young = r.get("young")
                lines.append(f"    CPU {r['cpu_ms']:.1f} ms, counts {r.get('count')}, collected {r['collected']}, "
                             f"thread {r['thread']}" + (f"; young {young['objects']} objects, {young['entries']} "
                                                         f"entries, {young['types']}, largest {young['largest']}"
                                                         if young else ""))
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary(sys.argv[1]))
