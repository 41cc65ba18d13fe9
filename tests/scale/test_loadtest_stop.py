"""``kill`` of a running ``python -m loadtest`` stops the servers it started: they run in sessions of their own
(so that a terminal's Ctrl-C reaches the load generator only), and a SIGTERM used to end the load generator and
leave its daphne processes serving."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.servers import alive, children_of

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.stackless  # the embedded stack is an SQLite file and the in-memory layer whatever the run's URLs say
def test_a_killed_load_test_stops_the_servers_it_started():
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    run = subprocess.Popen(
        [sys.executable, "-m", "loadtest", "--profile", "ceiling", "--stack", "embedded", "--only", "site",
         "--ceiling-tables", "2", "--ceiling-rounds", "1", "--seconds", "120"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        daphnes: dict[int, str] = {}
        while time.monotonic() < deadline and not daphnes:
            assert run.poll() is None, run.communicate()
            daphnes = {pid: cmd for pid, cmd in children_of(run.pid).items() if "daphne" in cmd}
            time.sleep(0.2)
        assert daphnes, "the load test started no daphne"
        time.sleep(1.0)  # serving
        run.send_signal(signal.SIGTERM)
        out, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 130, (run.returncode, out[-2000:], err[-3000:])
    assert "every server the run started is stopped" in err
    assert not [pid for pid in daphnes if alive(pid)], daphnes
