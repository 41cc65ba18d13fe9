"""A smoke run of every ``make loadtest`` profile (ceiling, evening, burst, tournament start, arena) at tiny sizes, so
that the harness cannot rot: the run completes, both stacks report, the tournament is started through the
staff page and every player is told their table, the record check finds nothing lost or applied twice, and
the servers note every stage of a move (``--stages``); the ceiling runs two rounds per side, taking turns. The arena (no bare counterpart) only has to run and lose
nothing here: ``test_loadtest_arena_smoke.py`` looks at it closer.
No timing is asserted (speed is ``make loadtest``'s business, as a ratio in one run).

The embedded stack (SQLite + in-memory, one daphne) always runs; the scaled one (PostgreSQL + Redis, two
daphne) where the scale-out test runs (``REDIS_URL`` set or ``SCALE_TEST=1``), failed instead of skipped
without its services when ``REQUIRE_SCALE=1``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from loadtest.stages import INSIDE

ROOT = Path(__file__).resolve().parents[2]
PROFILES = ("ceiling", "evening", "burst", "tournament")
TABLES = 2  # per profile: four sockets (a tournament of four players)


def _run(stack: str, tmp_path: Path) -> list[dict]:
    out = tmp_path / f"loadtest-{stack}.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    done = subprocess.run(
        [sys.executable, "-m", "loadtest", "--stack", stack, "--tables", str(TABLES), "--ceiling-tables", "2",
         "--ceiling-rounds", "2", "--evening-rounds", "1", "--seconds", "3", "--ramp", "1", "--stages", "--json", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    # Exit 1 is a goal not met (tiny, noisy runs miss ratios); anything else is the harness failing.
    assert done.returncode in (0, 1), f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    for name in PROFILES:
        assert f"=== {name}:" in done.stdout, done.stdout
    return json.loads(out.read_text())


def _check(results: list[dict], stack: str) -> None:
    assert [r["profile"] for r in results] == [*PROFILES, "arena"]
    arena = results.pop()
    assert arena["stack"] == stack and "bare" not in arena and arena["site"]["failed_connects"] == 0, arena
    assert arena["site"]["arena"]["check"]["paired"] == 2 * TABLES, arena["site"]["arena"]
    assert "of the bare ceiling" in arena["settings"]["pace"], arena["settings"]  # paced as the others
    assert any(goal.startswith("  goal: nothing lost") and goal.endswith(": met") for goal in arena["goals"])
    for r in results:
        assert r["stack"] == stack
        for kind in ("bare", "site"):
            assert kind in r, f"{r['profile']}: no {kind} figures"
            assert r[kind]["failed_connects"] == 0, (r["profile"], kind, r[kind]["error_kinds"])
        assert r["bare"]["moves_per_s"] > 0 and r["site"]["moves_per_s"] > 0, r
        # the ceiling in two rounds per side, taking turns; the other profiles once
        assert len(r["rounds"]) == (2 if r["profile"] == "ceiling" else 1), r["rounds"]
        assert all(set(one) == {"bare", "site"} and one["site"]["moves_per_s"] > 0 for one in r["rounds"]), r["rounds"]
        for kind in ("bare", "site"):  # the host's share of the machine during each side's run (steal)
            assert 0.0 <= r[kind]["steal"] <= 1.0, (r["profile"], kind, r[kind]["steal"])
        for kind in ("bare", "site"):  # --stages: the servers noted every stage of the moves (loadtest.stages)
            stages = r[kind]["stages"]
            assert stages["moves"] > 0, (r["profile"], kind, stages)
            assert all(step["p50"] is not None for step in stages["steps"].values()), (r["profile"], kind, stages)
            # each daphne's census after the play, every socket still open (a tournament's notice sockets too)
            assert stages["census"] and all(c["tracked"] > 0 for c in stages["census"]), (r["profile"], kind)
        assert all(c["frozen"] > 0 for c in r["site"]["stages"].get("census", [])), r["profile"]  # gc.freeze
        inside = r["site"]["stages"]  # and inside the site's database call, and its handshakes' stages
        assert list(inside["database"]) == [f"{a} → {b}" for a, b in zip(INSIDE, INSIDE[1:], strict=False)], inside
        assert all(step["p50"] is not None for step in inside["database"].values()), (r["profile"], inside)
        assert inside["handshakes"] > 0 and all(step["p50"] is not None for step in inside["connect"].values()), inside
        for kind in ("bare", "site"):  # CPU per change, by whom; on the scaled stack the services count too
            parts = r[kind]["cpu_parts"]
            assert parts["server"] > 0 and parts["machine"] >= parts["server"], (r["profile"], kind, parts)
            if stack == "scaled":
                assert parts["services"] > 0, (r["profile"], kind, parts)
                assert r[kind]["cpu_per_change"] == pytest.approx(parts["server"] + parts["services"])
        check = r["site"]["check"]
        assert check["seen"] > 0 and check["logged"] >= check["seen"], check
        assert (check["lost"], check["twice"], check["unknown"], check["behind"]) == (0, 0, 0, 0), check
        assert any(goal.startswith("  goal: nothing lost") for goal in r["goals"]), r["goals"]
        if r["profile"] != "ceiling":  # the pace was set from the bare stack's ceiling of this run
            assert r["settings"]["think"] > 0 and "of the bare ceiling" in r["settings"]["pace"], r["settings"]
    start = results[-1]["site"]["start"]
    assert start["start_status"] == 302, start  # the staff page's start button, answered with a redirect
    assert (start["notice_sockets"], len(start["told"]), start["not_told"], start["tables"]) == (
        2 * TABLES, 2 * TABLES, 0, TABLES), start
    assert start["start_seconds"] is not None


@pytest.mark.stackless  # the embedded stack is an SQLite file and the in-memory layer whatever the run's URLs say
def test_every_profile_on_the_embedded_stack(tmp_path):
    _check(_run("embedded", tmp_path), "embedded")


def test_every_profile_on_the_scaled_stack(tmp_path):
    if not (os.environ.get("REDIS_URL") or os.environ.get("SCALE_TEST") == "1"):
        pytest.skip("the scaled stack runs with Redis (REDIS_URL set, as in CI's PostgreSQL + Redis run) "
                    "or SCALE_TEST=1")
    from loadtest import servers

    missing = servers.services_available()
    if missing:
        if os.environ.get("REQUIRE_SCALE") == "1":
            pytest.fail(f"REQUIRE_SCALE=1 but {missing}")
        pytest.skip(missing)
    _check(_run("scaled", tmp_path), "scaled")
