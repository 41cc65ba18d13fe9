"""Records and replay (records.md): good records of every result type, and each kind of illegal record."""

from __future__ import annotations

import copy
import json
import random

import pytest

from games.engine import records
from games.engine.errors import InvalidRecord
from games.engine.gin import match as gin
from games.engine.gin.bots import choose_action
from games.engine.records import load_record, replay_record
from tests.engine.gin.helpers import PASS, STOCK, deal, knock
from tests.points import replay

LOOSE = "7H 8H 2D TC TD TH 3S 4S 5S 9D"
KNOCKER = "4H 5H 6H KC KD KS QC QD QS AC"


def one_round(hand0: str, hand1: str, upcard: str, stock_top: str, moves: list[tuple[int, dict]], *,
              dealer: int = 0) -> dict:
    return {"dealer": dealer, **deal(hand0, hand1, upcard, stock_top),
            "moves": [{"seat": seat, **action} for seat, action in moves]}


def record(*rounds: dict, **options) -> dict:
    return {"game": "gin", "options": options, "players": ["anna", "ben"], "rounds": list(rounds)}


KNOCK_ROUND = one_round(LOOSE, KNOCKER, "9C", "JH", [(1, PASS), (0, PASS), (1, STOCK), (1, knock("JH"))])
UNDERCUT_ROUND = one_round("AH 2H 3H 9C 9D 9S KC KD KS 8D", "2S 6S QC QD QH 4C 5C 6C 7C 8C", "TH", "JH",
                           [(0, PASS), (1, PASS), (0, STOCK), (0, knock("JH"))], dealer=1)
GIN_ROUND = one_round("8H 2D TC TD TH 3S 4S 5S 9D AD", "4H 5H 6H KC KD KS QC QD QS 7H", "9C", "JH",
                      [(1, PASS), (0, PASS), (1, STOCK), (1, knock("JH"))])
BIG_GIN_ROUND = one_round("2C 2D TC TD TH 3S 4S 5S 9D AD", "4H 5H 6H KC KD KS QC QD QS 7H", "9C", "8H",
                          [(1, PASS), (0, PASS), (1, STOCK), (1, {"action": "big_gin"})])


def dead_round(dealer: int = 0) -> dict:
    d = deal(LOOSE, "4H 5H 6H KC KD KS QC QD 2S 9S", "9C")
    moves = []
    seat = 1 - dealer
    moves.append({"seat": seat, "action": "pass"})
    moves.append({"seat": dealer, "action": "pass"})
    for card in d["stock"][:29]:
        moves.append({"seat": seat, "action": "draw", "from": "stock"})
        moves.append({"seat": seat, "action": "discard", "card": card})
        seat = 1 - seat
    return {"dealer": dealer, **d, "moves": moves}


def test_replay_knock_record_summary_matches_records_md():
    summary = replay(record(KNOCK_ROUND))
    r = summary["rounds"][0]
    assert {k: r[k] for k in ("result", "knocker", "winner", "points", "deadwood")} == {
        "result": "knock", "knocker": 1, "winner": 1, "points": 10, "deadwood": [11, 1]}
    assert sorted(r["layoffs"]) == ["7H", "8H"]
    assert r["melds"][1] == [["4H", "5H", "6H"], ["QC", "QD", "QS"], ["KC", "KD", "KS"]]
    assert (summary["totals"], summary["boxes"], summary["final"], summary["winner"]) == ([0, 10], [0, 1], [0, 10],
                                                                                         None)


def test_replay_undercut_record():
    r = replay_record(record(UNDERCUT_ROUND))["rounds"][0]
    assert (r["result"], r["knocker"], r["winner"], r["points"], r["deadwood"]) == ("undercut", 0, 1, 25, [8, 8])


def test_replay_gin_record():
    r = replay_record(record(GIN_ROUND))["rounds"][0]
    assert (r["result"], r["winner"], r["points"], r["layoffs"]) == ("gin", 1, 20 + 25, [])


def test_replay_big_gin_record():
    r = replay_record(record(BIG_GIN_ROUND, big_gin=True))["rounds"][0]
    assert (r["result"], r["winner"], r["points"]) == ("big_gin", 1, 14 + 31)


def test_replay_dead_round_record():
    summary = replay(record(dead_round()))
    r = summary["rounds"][0]
    assert (r["result"], r["knocker"], r["winner"], r["deadwood"], r["points"]) == ("dead", None, None, None, 0)
    assert summary["totals"] == [0, 0] and summary["winner"] is None


def test_replay_finished_match_final_includes_bonuses():
    summary = replay(record(KNOCK_ROUND, target=0))
    assert summary["winner"] == 1 and summary["final"] == [0, 10]


def test_replay_same_dealer_after_dead_round_is_accepted():
    second = copy.deepcopy(KNOCK_ROUND)
    summary = replay_record(record(dead_round(dealer=0), second))
    assert [r["result"] for r in summary["rounds"]] == ["dead", "knock"]


def test_replay_a_record_with_options_left_out_uses_defaults():
    rec = record(KNOCK_ROUND)
    del rec["options"]
    del rec["players"]
    assert replay_record(rec)["rounds"][0]["result"] == "knock"


def test_replay_reproduces_played_matches_exactly():
    rng = random.Random(11)
    for options in ({}, {"target": 0}, {"hollywood": True, "target": 50}, {"variant": "oklahoma", "big_gin": True},
                    {"next_dealer": "alternate", "first_turn": "free"}):
        m = gin.new_match(options, rng=rng)
        while not m.over:
            if m.phase == "round_over":
                m = gin.deal_next_round(m, rng)
                continue
            m = gin.apply_action(m, m.to_act, choose_action(gin.view(m, m.to_act), "simple", rng))
        assert replay_record(m.record()) == json.loads(json.dumps(m.facts()))


def test_replay_a_resigned_match():
    m = gin.new_match({}, rng=random.Random(2))
    m = gin.resign(m, 0)
    assert m.record()["resigned"] == 0
    rec = record(KNOCK_ROUND)
    rec["resigned"] = 0
    summary = replay(rec)
    assert summary["winner"] == 1 and summary["final"] == [0, 10 + 25 + 200]


# ---------------------------------------------------------------------------------------------- illegal records


def invalid(rec: dict) -> InvalidRecord:
    with pytest.raises(InvalidRecord) as info:
        replay_record(rec)
    return info.value


def test_illegal_deal_with_a_card_twice():
    bad = copy.deepcopy(KNOCK_ROUND)
    bad["stock"][5] = bad["hands"][0][0]
    err = invalid(record(bad))
    assert err.round_number == 1 and "not the 52 cards" in err.reason and "7H" in err.reason


def test_illegal_deal_with_a_wrong_count():
    bad = copy.deepcopy(KNOCK_ROUND)
    bad["hands"][1] = bad["hands"][1][:9]
    assert "9 cards" in invalid(record(bad)).reason
    bad = copy.deepcopy(KNOCK_ROUND)
    bad["stock"].pop()
    assert "30 cards" in invalid(record(bad)).reason


def test_illegal_deal_with_a_bad_card_code():
    bad = copy.deepcopy(KNOCK_ROUND)
    bad["upcard"] = "1H"
    assert "1H" in invalid(record(bad)).reason


def test_illegal_wrong_dealer_in_round_two():
    # Seat 1 won round 1, so with next_dealer=winner seat 1 deals round 2.
    second = copy.deepcopy(KNOCK_ROUND)  # dealt by seat 0
    err = invalid(record(KNOCK_ROUND, second))
    assert (err.round_number, err.move_index) == (2, None) and "seat 1 must deal" in err.reason


def test_illegal_wrong_dealer_after_a_dead_round():
    second = copy.deepcopy(UNDERCUT_ROUND)  # dealt by seat 1, but the dead round's dealer (0) deals again
    err = invalid(record(dead_round(dealer=0), second))
    assert err.round_number == 2 and "seat 0 must deal" in err.reason


def test_illegal_move_names_round_move_and_reason():
    bad = copy.deepcopy(KNOCK_ROUND)
    bad["moves"][3] = {"seat": 1, "action": "discard", "card": "2D"}
    err = invalid(record(bad))
    assert (err.round_number, err.move_index) == (1, 3) and "not in your hand" in err.reason
    assert str(err).startswith("round 1, move 3: ")


def test_illegal_move_out_of_turn():
    bad = copy.deepcopy(KNOCK_ROUND)
    bad["moves"][0]["seat"] = 0
    err = invalid(record(bad))
    assert err.move_index == 0 and "turn" in err.reason


def test_illegal_knock_over_the_limit():
    bad = one_round(LOOSE, "4H 5H 6H KC KD KS QC QD 2S AC", "9C", "JH",
                    [(1, PASS), (0, PASS), (1, STOCK), (1, knock("JH"))])
    err = invalid(record(bad))
    assert err.move_index == 3 and "knock limit" in err.reason


def test_illegal_move_after_the_round_ended():
    bad = copy.deepcopy(KNOCK_ROUND)
    bad["moves"].append({"seat": 0, "action": "draw", "from": "stock"})
    err = invalid(record(bad))
    assert err.move_index == 4 and "after the round" in err.reason


def test_illegal_round_after_the_match_ended():
    second = copy.deepcopy(UNDERCUT_ROUND)
    err = invalid(record(KNOCK_ROUND, second, target=0))
    assert err.round_number == 2 and "already over" in err.reason


def test_illegal_incomplete_round():
    bad = copy.deepcopy(KNOCK_ROUND)
    bad["moves"] = bad["moves"][:3]
    err = invalid(record(bad))
    assert (err.round_number, err.move_index) == (1, 3) and "incomplete" in err.reason


@pytest.mark.parametrize(
    "mutate, words",
    [
        (lambda r: r.update(options={"target": 75}), "target"),
        (lambda r: r.update(options={"colour": 1}), "colour"),
        (lambda r: r.update(rounds="none"), "rounds"),
        (lambda r: r.update(game="chess"), "unknown game"),
        (lambda r: r["rounds"][0].pop("stock"), "stock"),
        (lambda r: r["rounds"][0].update(dealer=2), "dealer"),
        (lambda r: r["rounds"][0].update(dealer=0.0), "dealer"),
        (lambda r: r["rounds"][0]["moves"][2].update(seat=1.0), "seat"),
        (lambda r: r["rounds"][0]["moves"][0].update(action=["pass"]), "unknown action"),
        (lambda r: r["rounds"][0]["moves"][2].update({"from": "sky"}), "sky"),
        (lambda r: r.update(resigned=3), "resigned"),
    ],
)
def test_illegal_malformed_records_are_invalid_record(mutate, words):
    rec = record(copy.deepcopy(KNOCK_ROUND))
    mutate(rec)
    assert words in str(invalid(rec))


def test_load_record_reports_broken_json():
    with pytest.raises(InvalidRecord, match="not valid JSON"):
        load_record('{"game": "gin",')
    with pytest.raises(InvalidRecord, match="JSON object"):
        load_record("[1, 2]")


def test_replay_record_dispatches_romme_to_the_romme_engine(monkeypatch):
    monkeypatch.setitem(records.REPLAYS, "romme", lambda rec: {"game": "romme seen"})
    assert replay_record({"game": "romme", "rounds": []}) == {"game": "romme seen"}


def test_replay_record_gives_the_facts_and_outcomes_the_summary():
    facts = replay_record(record(KNOCK_ROUND))
    assert "final" not in facts and facts["totals"] == [0, 10] and facts["over"] is False
    assert replay(record(KNOCK_ROUND))["final"] == [0, 10]


def test_illegal_move_after_the_match_ended_in_its_last_round():
    bad = copy.deepcopy(KNOCK_ROUND)
    bad["moves"].append({"seat": 0, "action": "draw", "from": "stock"})
    err = invalid(record(bad, target=0))
    assert (err.round_number, err.move_index) == (1, 4) and "after the match had ended" in err.reason
