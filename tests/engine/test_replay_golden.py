"""``manage.py replay`` prints, byte for byte, what it printed when these records were captured.

``golden/replays.json`` holds records (the complete example of docs/records-romme.md, seeded self-play of
every gin variant and of casual and Masters Rommé lists, resignations included, empty records) with the
command's output captured before the engine stopped computing points (issue 9): the summary must not move
when the same facts are turned into points somewhere else. Every unfinished prefix of each match (its first
``rounds`` rounds) is checked too.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

CASES = json.loads((Path(__file__).parent / "golden" / "replays.json").read_text())


def replay_output(record: dict, tmp_path: Path) -> str:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record, ensure_ascii=False))
    out = io.StringIO()
    call_command("replay", str(path), stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_replay_prints_the_captured_summary(case, tmp_path):
    assert replay_output(case["record"], tmp_path) == case["stdout"] + "\n"
    for prefix in case["prefixes"]:
        record = {key: value for key, value in case["record"].items() if key != "resigned"}
        record["rounds"] = case["record"]["rounds"][: prefix["rounds"]]
        assert replay_output(record, tmp_path) == prefix["stdout"] + "\n", prefix["rounds"]
