"""A smoke run of ``make loadtest``'s arena profile (``python -m loadtest --profile arena``) at a tiny size on the
embedded stack (the process ``make run`` starts: one daphne, the referee inside it), so that the harness cannot
rot: every player opens a notice socket, the arena is started through the staff page, the referee pairs on its
clock, the players are told their tables, play them to their end and are paired again; the report and its
figures come out, and the checks find nothing lost. No timing is asserted (the pass time's goal is the full
profile's business, at 1,000 players).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = 6


@pytest.mark.stackless  # the embedded stack is an SQLite file and the in-memory layer whatever the run's URLs say
def test_the_arena_profile_pairs_every_player_again_and_loses_nothing(tmp_path):
    out = tmp_path / "arena.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    done = subprocess.run(
        [sys.executable, "-m", "loadtest", "--profile", "arena", "--stack", "embedded", "--players", str(PLAYERS),
         "--seconds", "12", "--think", "0.05", "--json", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    # Exit 1 is a goal not met (a tiny run on a busy machine may miss the pass count); anything else is the
    # harness failing.
    assert done.returncode in (0, 1), f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    assert "=== arena:" in done.stdout and "no bare counterpart" in done.stdout, done.stdout
    [result] = json.loads(out.read_text())
    assert result["profile"] == "arena" and result["stack"] == "embedded" and "bare" not in result
    site = result["site"]
    arena, check = site["arena"], site["arena"]["check"]
    assert arena["start_status"] == 302, arena  # the staff page's start button, answered with a redirect
    assert arena["notice_sockets"] == PLAYERS and site["failed_connects"] == 0, site["error_kinds"]
    assert arena["partner_missing"] == 0 and site["errors"] == 0, site["error_kinds"]
    # Every player was paired by the referee, and again after a match: tables were played to their end.
    assert check["players"] == PLAYERS and check["paired"] == PLAYERS and check["paired_twice"] == PLAYERS, check
    assert arena["matches"] >= PLAYERS // 2 and arena["passes"] > 0 and arena["pass_p99"] is not None, arena
    # Nothing lost: every move both seats saw is in the move log once, every ended match recorded, every table
    # told to both its players (and to nobody else), nobody at two tables at once.
    moves = site["check"]
    assert moves["seen"] > 0 and moves["logged"] >= moves["seen"], moves
    assert (moves["lost"], moves["twice"], moves["unknown"], moves["behind"]) == (0, 0, 0, 0), moves
    assert (check["unrecorded"], check["at_two_tables"], check["not_told"], check["told_wrong"]) == (0, 0, 0, 0), check
    assert check["recorded"] >= arena["matches"], (check, arena)
    assert any(goal.startswith("  goal: nothing lost") and goal.endswith(": met") for goal in result["goals"])
