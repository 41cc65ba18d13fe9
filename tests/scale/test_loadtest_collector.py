"""The load generator drives a stack with its garbage collector off (``loadtest.__main__.no_collector_pauses``):
one process holds every client socket, and a collection in it stalled them all at once, then sent their moves in
a burst, which the load test would have charged to the server. After the run the collector is as it was.

Run in a process of its own, as the load generator is: freezing, disabling and collecting in the test process
would touch every earlier test's garbage (their event loops and executors) under the tests that follow."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHECK = """
import gc
from loadtest.__main__ import no_collector_pauses

assert gc.isenabled()
with no_collector_pauses():
    assert not gc.isenabled()
    assert gc.get_freeze_count() > 0
    for _ in range(3 * max(gc.get_threshold()[0], 1000)):  # more than a collection's worth of cycles
        cycle = []
        cycle.append(cycle)
    assert gc.get_count()[0] > gc.get_threshold()[0], "a collection ran during the drive"
assert gc.isenabled() and gc.get_freeze_count() == 0
assert gc.get_count()[0] < 100, "the drive's garbage was not collected after it"
print("ok")
"""


def test_the_load_generator_never_collects_while_it_drives_and_collects_again_afterwards():
    done = subprocess.run([sys.executable, "-c", CHECK], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
