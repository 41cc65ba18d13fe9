"""Each game's points (games/kinds/<game>/points.py) turn the engine's facts into points; the registry entry serves them to the live layer.

The points are those the engine itself computed before issue 9: ``golden/states.json`` holds match states
stored by that engine, with the result, score sheet and last round it showed for them. Loading each with
today's engine and scoring its facts must give the same (the score sheet's ``mode`` is now ``masters`` where
it said ``tournament``).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from games import registry
from games.engine.gin import match as gin
from games.engine.romme import match as romme
from games.kinds.romme import points as romme_points
from tests import points as outcomes

STATES = json.loads((Path(__file__).parent / "golden" / "states.json").read_text())


@pytest.mark.parametrize("case", STATES, ids=[case["name"] for case in STATES])
def test_a_state_stored_before_issue_9_scores_as_it_did(case):
    state = registry.get(case["game"]).engine.Match.from_json(json.loads(json.dumps(case["state"])))
    view = registry.get(case["game"]).view(state, None)
    assert registry.get(case["game"]).result(state) == case["outcome"]
    assert view["result"] == case["outcome"]
    assert view["scores"] == case["scores"]
    assert view["last_round"] == case["last_round"]
    # Saved again, it loads to the same facts.
    again = registry.get(case["game"]).engine.Match.from_json(json.loads(json.dumps(state.to_json())))
    assert again.facts() == state.facts()


def test_an_old_romme_state_finds_the_lay_off_on_another_players_meld_again_from_the_moves():
    (case,) = [c for c in STATES if c["name"].startswith("Masters list, round 1")]
    assert "laid_off" not in case["state"]["summaries"][0]
    state = romme.Match.from_json(case["state"])
    facts = state.facts()["rounds"][0]
    assert facts["laid_off"] == [True, False] and "wertungspunkte" not in facts
    assert romme_points.round_wertungspunkte(facts) == [8, 2]


# -- gin: the match bonuses and the winner of a Hollywood match ---------------------------------------------


def gin_facts(**changes) -> dict:
    facts = {"game": "gin", "options": gin.normalize_options({}), "rounds": [], "totals": [0, 0],
             "boxes": [0, 0], "columns": [], "over": False, "winner": None, "resigned": None}
    return {**facts, **changes}


def test_gin_final_is_the_round_points_while_the_match_runs():
    facts = gin_facts(totals=[40, 90], boxes=[2, 3])
    assert outcomes.outcome(facts) is None
    assert outcomes.summary(facts)["final"] == [40, 90] and outcomes.summary(facts)["winner"] is None


def test_gin_match_bonuses_box_bonus_per_round_won_and_the_game_bonus_for_the_winner():
    result = outcomes.outcome(gin_facts(totals=[40, 105], boxes=[2, 3], over=True, winner=1))
    assert result["final"] == [40 + 50, 105 + 75 + 100] and result["places"] == [2, 1]


def test_gin_shutout_doubles_the_game_bonus():
    result = outcomes.outcome(gin_facts(totals=[0, 100], boxes=[0, 4], over=True, winner=1))
    assert result["final"] == [0, 100 + 100 + 200]


def test_gin_no_bonuses_in_the_one_round_game_or_with_the_option_off():
    quick = gin_facts(options=gin.normalize_options({"target": 0}), totals=[0, 12], boxes=[0, 1], over=True,
                      winner=1)
    assert outcomes.outcome(quick)["final"] == [0, 12]
    off = gin_facts(options=gin.normalize_options({"match_bonuses": False}), totals=[30, 100], boxes=[1, 3],
                    over=True, winner=1)
    assert outcomes.outcome(off)["final"] == [30, 100]


def hollywood(*columns, **changes) -> dict:
    changes.setdefault("options", gin.normalize_options({"hollywood": True, "target": 50}))
    return gin_facts(columns=[{"scores": s, "boxes": b, "finished": True, "winner": w} for s, b, w in columns],
                     over=True, **changes)


def test_hollywood_the_higher_final_with_bonuses_wins_even_against_more_round_points():
    # Seat 1 has more round points (150 to 160) but seat 0 won two columns with shutouts.
    facts = hollywood(([60, 0], [2, 0], 0), ([50, 0], [1, 0], 0), ([40, 160], [1, 3], 1))
    result = outcomes.outcome(facts)
    assert result["final"] == [60 + 250 + 50 + 225 + 40 + 25, 160 + 175] and result["winner"] == 0
    assert [c["bonuses"] for c in result["columns"]] == [[250, 0], [225, 0], [25, 175]]


def test_hollywood_equal_finals_share_first_place():
    facts = hollywood(([50, 0], [1, 0], 0), ([0, 50], [0, 1], 1), ([10, 10], [0, 0], 0),
                      options=gin.normalize_options({"hollywood": True, "target": 50, "match_bonuses": False}))
    result = outcomes.outcome(facts)
    assert result["winner"] is None and result["places"] == [1, 1] and result["final"] == [60, 60]


def test_hollywood_the_stayer_wins_when_the_other_player_left():
    facts = hollywood(([60, 0], [2, 0], 0), ([0, 10], [0, 1], 1), ([0, 0], [0, 0], 1), resigned=0, winner=1)
    assert outcomes.outcome(facts)["winner"] == 1


# -- Rommé: Wertungspunkte, list results, places --------------------------------------------------------------


def romme_round(winner, augen, *, hand_romme=False, opened=None, laid_off=None) -> dict:
    seats = len(augen)
    return {"result": "hand_romme" if hand_romme else "romme", "winner": winner, "hand_romme": hand_romme,
            "augen": augen, "minus": [0 if s == winner else a * (2 if hand_romme else 1) for s, a in enumerate(augen)],
            "opened": opened or [True] * seats, "laid_off": laid_off or [False] * seats, "hands": [], "melds": []}


@pytest.mark.parametrize(("opened", "laid_off", "wp"), [
    ([True, False, False], [False] * 3, 12),  # nobody else had laid out
    ([True, True, False], [False] * 3, 10),
    ([True, True, False], [True, False, False], 8),  # laid off (or swapped) on another player's meld
])
def test_hand_romme_wertungspunkte_from_the_facts(opened, laid_off, wp):
    facts = romme_round(0, [0, 20, 40], hand_romme=True, opened=opened, laid_off=laid_off)
    assert romme_points.round_wertungspunkte(facts)[0] == wp


def test_losers_wertungspunkte_by_opened_and_augen():
    facts = romme_round(0, [0, 10, 11, 31, 100, 101], opened=[True] * 4 + [False] * 2)
    assert romme_points.round_wertungspunkte(facts) == [5, 3, 2, 1, 0, -1]


def romme_facts(rounds, *, scoring="masters", left=None) -> dict:
    seats = len(rounds[0]["augen"])
    won = [sum(1 for r in rounds if r["winner"] == s) for s in range(seats)]
    return {"game": "romme", "options": romme.normalize_options({"scoring": scoring}, seats=seats), "seats": seats,
            "rounds": rounds, "left": left or [False] * seats, "over": True,
            "totals": {"minus": [sum(r["minus"][s] for r in rounds) for s in range(seats)],
                       "augen": [sum(r["augen"][s] for r in rounds) for s in range(seats)], "rounds_won": won}}


def test_masters_list_result_ten_times_wp_minus_augen_and_minus_700_for_an_abbruch():
    rounds = [romme_round(0, [0, 8, 104], opened=[True, True, False]), romme_round(1, [5, 0, 40])]
    result = outcomes.outcome(romme_facts(rounds, left=[False, False, True]))
    assert result["wertungspunkte"] == [5 + 3, 3 + 5, -1 + 1]
    assert result["final"] == [10 * 8 - 5, 10 * 8 - 8, -700] and result["tournament"] is True
    assert result["places"] == [1, 2, 3] and result["winner"] == 0


def test_casual_list_final_is_the_minus_points_and_fewest_wins():
    rounds = [romme_round(0, [0, 8, 104]), romme_round(1, [5, 0, 40])]
    result = outcomes.outcome(romme_facts(rounds, scoring="casual"))
    assert result["final"] == [5, 8, 144] and result["places"] == [1, 2, 3] and result["tournament"] is False
    assert outcomes.score_sheet(romme_facts(rounds, scoring="casual"))["mode"] == "casual"
    assert outcomes.score_sheet(romme_facts(rounds))["mode"] == "masters"


# -- the live layer's door: the registry entry ----------------------------------------------------------------


def play_out(game: str, options: dict, seats: int, seed: int):
    rng = random.Random(seed)
    module = registry.get(game).engine
    m = module.new_match(options, seats=seats, rng=rng)
    while not m.over:
        if m.to_act is None:
            m = module.deal_next_round(m, rng)
        else:
            m = module.apply_action(m, m.to_act, registry.get(game).bot_action(m, m.to_act, "simple", rng), rng=rng)
    return m


@pytest.mark.parametrize(("game", "options", "seats"), [
    ("gin", {"target": 50}, 2), ("gin", {"hollywood": True, "target": 50}, 2),
    ("romme", {"rounds": 2, "scoring": "masters"}, 3), ("romme", {"rounds": 2}, 2),
])
def test_outcome_view_and_replay_agree(game, options, seats):
    m = play_out(game, options, seats, seed=3)
    result = registry.get(game).result(m)
    assert result == outcomes.outcome(m.facts()) and result["final"]
    assert registry.get(game).view(m, 0)["result"] == result
    assert registry.get(game).view(m, None)["scores"] == outcomes.score_sheet(m.facts())
    summary = outcomes.replay(json.loads(json.dumps(m.record())))
    assert summary["final"] == result["final"] and summary["winner"] == result["winner"]


def test_outcome_is_none_while_the_match_runs():
    m = gin.new_match({}, rng=random.Random(1))
    assert registry.get("gin").result(m) is None and registry.get("gin").view(m, 0)["result"] is None


def test_masters_scoring_is_read_from_the_options_as_stored():
    # Masters scoring is tournament play: its tables have no chat (games.reads.policy).
    assert not registry.get("gin").masters_scoring({}) and not registry.get("romme").masters_scoring({"scoring": "casual"})
    assert registry.get("romme").masters_scoring({"scoring": "masters"})
    assert registry.get("romme").masters_scoring({"tournament": True})  # a table stored with the old name
