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
