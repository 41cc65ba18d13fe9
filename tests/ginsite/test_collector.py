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
print(json.dumps({"before": before, "frozen": gc.get_freeze_count(), "tracked": len(gc.get_objects())}))
"""


def test_importing_the_application_freezes_what_starting_up_made():
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update({"DJANGO_SETTINGS_MODULE": "ginsite.settings", "GAMES_REFEREE_IN_PROCESS": "0"})
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["before"] == 0
    # Most of the process is frozen: far more objects than a full collection still walks.
    assert out["frozen"] > 10 * out["tracked"], out
