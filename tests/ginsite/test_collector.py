"""The served application freezes what starting up made out of the garbage collector's full collections
(``ginsite.collector``): those pause every thread of a daphne process, and most of what they walked was Django
and the engines' lookup tables."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import gc, json
before = gc.get_freeze_count()
import ginsite.asgi
print(json.dumps({"before": before, "frozen": gc.get_freeze_count(), "tracked": len(gc.get_objects()),
                  "thresholds": gc.get_threshold()}))
"""


def _probe(**environ: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_") and k != "GC_THRESHOLDS"}
    env.update({"DJANGO_SETTINGS_MODULE": "ginsite.settings", "GAMES_REFEREE_IN_PROCESS": "0", **environ})
    return subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)


def test_importing_the_application_freezes_what_starting_up_made():
    done = _probe()
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["before"] == 0
    # Most of the process is frozen: far more objects than a full collection still walks.
    assert out["frozen"] > 10 * out["tracked"], out


def test_the_serving_process_collects_with_the_thresholds_of_its_settings():
    done = _probe()
    assert done.returncode == 0, done.stderr[-3000:]
    assert tuple(json.loads(done.stdout.strip().splitlines()[-1])["thresholds"]) == (20000, 20, 10)
    done = _probe(GC_THRESHOLDS="30000,15,12")
    assert done.returncode == 0, done.stderr[-3000:]
    assert tuple(json.loads(done.stdout.strip().splitlines()[-1])["thresholds"]) == (30000, 15, 12)


def test_thresholds_that_are_not_three_whole_numbers_stop_the_start_with_a_clear_error():
    for wrong in ("30000,15", "30000,15,ten", "0,10,10"):
        done = _probe(GC_THRESHOLDS=wrong)
        assert done.returncode != 0
        assert "GC_THRESHOLDS must be three whole numbers" in done.stderr, done.stderr[-2000:]
