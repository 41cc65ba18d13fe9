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

ROOT = Path(__file__).resolve().parents[2]


def _children(pid: int) -> dict[int, str]:
    """The live processes whose parent is ``pid``, with their command lines."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found[int(entry.name)] = cmdline
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


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
            daphnes = {pid: cmd for pid, cmd in _children(run.pid).items() if "daphne" in cmd}
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
    assert not [pid for pid in daphnes if _alive(pid)], daphnes
