"""Rommé records: the example of docs/records-romme.md replays to its summary; bad records say where and why."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from games.engine.errors import InvalidRecord
from games.engine.romme.replay import replay
from tests.points import summary as summarise

DOC = Path(__file__).resolve().parents[3] / "docs" / "records-romme.md"


def doc_blocks():
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", DOC.read_text(), re.S)]


@pytest.fixture
def example():
    return copy.deepcopy(doc_blocks()[0])


def test_documented_example_replays_to_the_documented_summary(example):
    record, summary = doc_blocks()
    assert summarise(replay(record)) == summary


def test_documented_example_is_a_complete_short_round(example):
    summary = summarise(replay(example))
    assert summary["over"] and summary["winner"] == 1
    assert [r["result"] for r in summary["rounds"]] == ["romme"]


def test_wrong_dealer_in_second_round_is_refused(example):
    example["options"]["rounds"] = 2
    second = copy.deepcopy(example["rounds"][0])
    second["dealer"] = 0  # must be 1
    example["rounds"].append(second)
    with pytest.raises(InvalidRecord, match="wrong dealer") as info:
        replay(example)
    assert info.value.round_number == 2


def test_deal_that_is_not_the_full_deck_is_refused(example):
    example["rounds"][0]["stock"][-1] = "AS"
    with pytest.raises(InvalidRecord, match="not the full 110-card deck"):
        replay(example)


def test_illegal_move_names_round_and_move_index(example):
    example["rounds"][0]["moves"][3] = {"seat": 1, "action": "discard", "card": "JK"}
    with pytest.raises(InvalidRecord) as info:
        replay(example)
    assert (info.value.round_number, info.value.move_index) == (1, 3)
    assert "not in your hand" in info.value.reason


def test_move_after_the_round_is_refused(example):
    example["rounds"][0]["moves"].append({"seat": 0, "action": "draw", "from": "stock"})
    with pytest.raises(InvalidRecord, match="after the list was over|after the round"):
        replay(example)


def test_unfinished_round_is_refused(example):
    del example["rounds"][0]["moves"][-1]
    with pytest.raises(InvalidRecord, match="not complete") as info:
        replay(example)
    assert info.value.move_index == 16


def test_empty_foreign_and_bad_option_records():
    record = {"game": "romme", "options": {"seats": 2, "rounds": 1}, "rounds": []}
    assert replay(record)["rounds"] == []
    with pytest.raises(InvalidRecord, match="not a Rommé record"):
        replay({"game": "gin", "rounds": []})
    with pytest.raises(InvalidRecord, match="options"):
        replay({"game": "romme", "options": {"seats": 9}, "rounds": []})


@pytest.mark.parametrize("bad_move", [
    {"seat": 1, "action": "draw"},
    {"seat": 1, "action": ["draw"]},
    {"seat": 1, "action": "draw", "from": ["stock"]},
    {"seat": 1, "action": "reshuffle", "stock": [["KD"]]},
    {"seat": 1, "action": "lay", "melds": "7H JK 9H"},
    {"seat": 1, "action": "lay", "melds": [[["7H"], "JK", "9H"]]},
    {"seat": "1", "action": "draw", "from": "stock"},
    "draw",
])
def test_malformed_moves_are_invalid_records_not_crashes(example, bad_move):
    example["rounds"][0]["moves"][0] = bad_move
    with pytest.raises(InvalidRecord) as info:
        replay(example)
    assert info.value.move_index == 0
