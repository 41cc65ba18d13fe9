"""``manage.py replay FILE|-`` (records.md): summary on stdout and exit 0, or one stderr line and exit != 0."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.engine.gin.test_records import KNOCK_ROUND, record

ROOT = Path(__file__).resolve().parents[2]


def run_replay(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "manage.py", "replay", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=60)


def test_replay_file_prints_the_summary_as_one_json_object(tmp_path):
    path = tmp_path / "match.json"
    path.write_text(json.dumps(record(KNOCK_ROUND)))
    out = io.StringIO()
    call_command("replay", str(path), stdout=out)
    summary = json.loads(out.getvalue())
    assert summary["rounds"][0]["result"] == "knock" and summary["totals"] == [0, 10]


def test_replay_illegal_record_is_a_command_error_naming_round_and_move(tmp_path):
    bad = record(json.loads(json.dumps(KNOCK_ROUND)))
    bad["rounds"][0]["moves"][3] = {"seat": 1, "action": "discard", "card": "2D"}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    out = io.StringIO()
    with pytest.raises(CommandError, match=r"round 1, move 3: 2D is not in your hand"):
        call_command("replay", str(path), stdout=out)
    assert out.getvalue() == ""


def test_replay_from_stdin_exit_0_and_nothing_on_stderr():
    done = run_replay(["-"], stdin=json.dumps(record(KNOCK_ROUND)))
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout)["rounds"][0]["winner"] == 1


def test_replay_bad_record_one_stderr_line_nothing_on_stdout():
    # (A subprocess costs seconds of Django start-up here: one for the good path, one for the bad.)
    done = run_replay(["-"], stdin=json.dumps({"game": "gin", "rounds": [{"dealer": 0}]}))
    assert done.returncode != 0 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "round 1, move -: the round has no 'hands'" in lines[0]


def test_replay_malformed_json_is_one_clear_line(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"game": "gin", "rounds": [')
    with pytest.raises(CommandError, match="not valid JSON") as info:
        call_command("replay", str(path))
    assert "\n" not in str(info.value)


def test_replay_unreadable_file_is_one_clear_line(tmp_path):
    with pytest.raises(CommandError, match="cannot read .*missing.json"):
        call_command("replay", str(tmp_path / "missing.json"))
