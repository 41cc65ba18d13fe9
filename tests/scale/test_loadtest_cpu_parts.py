"""What the load test counts as a stack's CPU: the shared services (PostgreSQL, PgBouncer, Redis) only for the
scaled stack, which uses them; on the embedded stack whatever they spend is another user's of the machine."""

from __future__ import annotations

from pathlib import Path

from loadtest import __main__ as loadtest
from loadtest import servers


def test_the_services_cpu_is_the_scaled_stacks_only(monkeypatch):
    spent = iter([10.0, 25.0, 10.0, 25.0])  # the services busy with something else meanwhile
    monkeypatch.setattr(servers, "services_cpu_seconds", lambda: next(spent))
    monkeypatch.setattr(servers, "machine_cpu_seconds", lambda: 100.0)
    for stack, counted in (("embedded", 0.0), ("scaled", 15.0)):
        srv = servers.Servers("site", stack, {}, Path("."))
        before = loadtest._cpu_readings(srv)
        after = loadtest._cpu_readings(srv)
        assert after[2] - before[2] == counted


def test_the_share_the_host_stole_is_read_from_proc_stat_and_warned_of_when_large(monkeypatch):
    """/proc/stat's eighth column is the time the host gave to other guests while this machine had work: the
    load test reports its share of the machine's time per side, and says a run is the host's when it is large."""
    readings = iter([[100, 0, 50, 800, 0, 0, 0, 50], [300, 0, 100, 1300, 0, 0, 0, 300]])  # ticks
    monkeypatch.setattr(servers, "_proc_stat_cpu", lambda: next(readings))
    before, after = servers.machine_steal(), servers.machine_steal()
    assert servers.stolen_share(before, after) == 250 / 1000  # steal 250 ticks of 1,000 in all
    assert servers.stolen_share(before, before) == 0.0
    quiet = loadtest._steal_lines({"bare": {"steal": 0.01}, "site": {"steal": 0.02}})
    assert quiet == ["  taken by the host (steal) during the run: bare 1.0%, site 2.0% of the machine's time"]
    stolen = loadtest._steal_lines({"bare": {"steal": 0.01}, "site": {"steal": 0.31}})
    assert "site 31.0%" in stolen[0] and "run the profile again" in stolen[0]
    assert loadtest._steal_lines({"site": {"steal": None}}) == []


def test_the_machine_s_steal_reading_is_a_share_of_its_whole_time():
    before = servers.machine_steal()
    after = servers.machine_steal()
    assert 0 <= before[0] <= before[1] and after[1] >= before[1]
    assert 0.0 <= servers.stolen_share(before, after) <= 1.0


def test_a_stacks_cpu_counts_the_processes_its_servers_started(tmp_path):
    """daphne's handshake helper (and the workers of previews and computer players) are processes of their own,
    started by a server: the stack's CPU counts them, live or ended."""
    import subprocess
    import sys
    import time

    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.4: pass\n"
    parent = subprocess.Popen([sys.executable, "-c", (
        "import subprocess, sys, time\n"
        f"live = subprocess.Popen([sys.executable, '-c', {burn + 'time.sleep(30)'!r}])\n"
        f"subprocess.run([sys.executable, '-c', {burn!r}])\n"  # ended and waited for
        "print('ready', flush=True)\n"
        "live.wait()\n")], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None and parent.stdout.readline().strip() == "ready"
        time.sleep(0.3)  # the live child has burnt its share by now (it started first)
        srv = servers.Servers("site", "embedded", {}, tmp_path, processes=[parent])
        own = servers._process_cpu(str(parent.pid))[1]
        assert own < 0.3  # the parent itself barely ran
        assert srv.cpu_seconds() >= own + 0.7  # both children's 0.4 s, the live one's and the ended one's
    finally:
        for pid in servers._descendants([parent.pid])[1:]:
            subprocess.run(["kill", pid], check=False)
        parent.kill()
        parent.wait()
