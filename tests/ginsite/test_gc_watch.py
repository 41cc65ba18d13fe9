"""``bench.gc_watch`` notes every collection of a process that starts with ``GC_WATCH_DIR`` set and its hook on
``PYTHONPATH`` (as the load test's servers start), with the generation, the objects it collected and its time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import gc
gc.disable()
for _ in range(300):
    a = []; a.append(a)   # a cycle: only the collector frees it
del a
gc.collect(0)
gc.collect(2)
"""


def _rows(folder: Path) -> list[dict]:
    files = list(folder.glob("gc-*.jsonl"))
    assert len(files) == 1, files
    return [json.loads(line) for line in files[0].read_text().splitlines()]


def test_a_process_started_with_the_hook_notes_each_collection_with_what_it_collected(tmp_path):
    env = {**os.environ, "GC_WATCH_DIR": str(tmp_path), "PYTHONPATH": str(ROOT / "bench" / "gc_watch_hook")}
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    head, *collections = _rows(tmp_path)
    assert head["argv"][1:] == ["-c", PROBE]
    explicit = [row for row in collections if row["gen"] in (0, 2)][-2:]
    assert [row["gen"] for row in explicit] == [0, 2]
    assert explicit[0]["collected"] >= 300  # the 300 cycles, freed by the young collection
    assert all(row["cpu_ms"] >= 0 and row["wall_ms"] >= 0 and row["thread"] == "MainThread" for row in explicit)


def test_without_the_folder_set_the_hook_notes_nothing(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "GC_WATCH_DIR"}
    env["PYTHONPATH"] = str(ROOT / "bench" / "gc_watch_hook")
    done = subprocess.run([sys.executable, "-c", PROBE + "\nimport sys; print('bench.gc_watch' in sys.modules)"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "False"
    assert not list(tmp_path.glob("gc-*.jsonl"))


def test_the_load_generators_thresholds_are_set_in_its_process_only(monkeypatch):
    import gc

    from bench import gc_watch

    before = gc.get_threshold()
    try:
        monkeypatch.setattr(sys, "orig_argv", ["python", "manage.py", "referee"])
        gc_watch.load_generator_thresholds("100000,50,1000")
        assert gc.get_threshold() == before
        monkeypatch.setattr(sys, "orig_argv", ["python", "-m", "loadtest.stages", "site"])
        gc_watch.load_generator_thresholds("100000,50,1000")
        assert gc.get_threshold() == before
        monkeypatch.setattr(sys, "orig_argv", ["python", "-m", "loadtest", "--profile", "evening"])
        gc_watch.load_generator_thresholds("")
        assert gc.get_threshold() == before
        gc_watch.load_generator_thresholds("100000,50,1000")
        assert gc.get_threshold() == (100000, 50, 1000)
    finally:
        gc.set_threshold(*before)
