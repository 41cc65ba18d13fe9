"""Match length, match bonuses, Hollywood, leaving, options and views (gin.md), with the cards written out."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from games.engine.errors import IllegalAction
from games.engine.gin import match as gin
from tests import points as outcomes
from tests.engine.gin.helpers import PILE, STOCK, both_pass_then, knock, play, start

LOOSE = "7H 8H 2D TC TD TH 3S 4S 5S 9D"
KNOCKER = "4H 5H 6H KC KD KS QC QD QS AC"  # knocks for 10 against LOOSE (7H 8H laid off)


def final(m: gin.Match) -> tuple[int, int]:
    """The final scores: round points plus, at the end, the match bonuses (games.kinds.gin.points adds them)."""
    return tuple(outcomes.summary(m.facts())["final"])


def match_winner(m: gin.Match) -> int | None:
    return outcomes.summary(m.facts())["winner"]


def result(m: gin.Match) -> dict | None:
    return outcomes.outcome(m.facts())


def knock_round(**options) -> gin.Match:
    """Seat 1 (non-dealer) knocks with JH and wins 10 points."""
    return start(LOOSE, KNOCKER, "9C", "JH", dealer=0, **options)


def finish_knock(m: gin.Match) -> gin.Match:
    return play(both_pass_then(m), (1, STOCK), (1, knock("JH")))


def undercut_round(**options) -> gin.Match:
    """Seat 0 knocks with 8 and seat 1 ties at 8: seat 1 wins 25 by undercut. Seat 1 deals."""
    return start("AH 2H 3H 9C 9D 9S KC KD KS 8D", "2S 6S QC QD QH 4C 5C 6C 7C 8C", "TH", "JH", dealer=1,
                 **options)


def finish_undercut(m: gin.Match) -> gin.Match:
    return play(both_pass_then(m), (0, STOCK), (0, knock("JH")))


# ---------------------------------------------------------------------------------------------- match length


def test_target_0_one_scored_round_decides_the_match():
    m = finish_knock(knock_round(target=0))
    assert m.over and m.winner == 1 and m.phase == "match_over" and m.to_act is None
    assert final(m) == (0, 10)  # no match bonuses in the one-round game
    assert result(m)["places"] == [2, 1]


def test_target_0_a_dead_round_decides_nothing():
    m = start(LOOSE, KNOCKER, "9C", dealer=0, target=0, first_turn="free")
    while m.phase != "round_over":
        seat = m.to_act
        m = gin.apply_action(m, seat, STOCK)
        m = gin.apply_action(m, seat, {"action": "discard", "card": gin.ALL_CARDS[m.round.stock[m.round.stock_pos - 1]]})
    assert m.round.summary["result"] == "dead" and not m.over


def test_match_goes_on_below_the_target():
    m = finish_knock(knock_round())
    assert not m.over and m.phase == "round_over" and final(m) == (0, 10) and m.winner is None


def test_match_ends_the_moment_a_total_reaches_the_target_with_shutout_bonus():
    m = replace(knock_round(), totals=(0, 95), boxes=(0, 3))
    m = finish_knock(m)
    assert m.over and m.winner == 1 and m.totals == (0, 105) and m.boxes == (0, 4)
    # 105 points + 4 boxes x 25 + game bonus 100 doubled for the shutout.
    assert final(m) == (0, 105 + 100 + 200)
    with pytest.raises(IllegalAction, match="match is over"):
        gin.deal_next_round(m, random.Random(1))


def test_undercut_that_takes_the_defender_past_the_target_wins_the_match_for_the_defender():
    m = replace(undercut_round(), totals=(95, 80), boxes=(3, 1))
    m = finish_undercut(m)
    assert m.round.summary["result"] == "undercut"
    assert m.over and m.winner == 1 and m.totals == (95, 105)
    # The game bonus is the defender's; the knocker keeps only their boxes.
    assert final(m) == (95 + 3 * 25, 105 + 2 * 25 + 100)


def test_match_bonuses_box_bonus_for_each_round_won_game_bonus_not_doubled_when_loser_won_a_round():
    m = finish_knock(replace(knock_round(), totals=(40, 90), boxes=(2, 2)))
    assert m.over and final(m) == (40 + 50, 100 + 75 + 100)


def test_match_bonuses_off_final_is_the_points():
    m = finish_knock(replace(knock_round(match_bonuses=False), totals=(40, 90), boxes=(2, 2)))
    assert m.over and final(m) == (40, 100)


@pytest.mark.parametrize("target", [50, 150, 200])
def test_target_options(target):
    m = finish_knock(replace(knock_round(target=target), totals=(0, target - 10), boxes=(1, 1)))
    assert m.over and m.winner == 1
    m = finish_knock(replace(knock_round(target=target), totals=(0, target - 11), boxes=(1, 1)))
    assert not m.over


# ---------------------------------------------------------------------------------------------- Hollywood


def _won(m: gin.Match, seat: int, points: int) -> gin.Match:
    return gin._score_round(m, seat, points)


def test_hollywood_first_win_column_1_second_columns_1_2_third_all_three():
    m = knock_round(hollywood=True, target=50)
    m = _won(m, 0, 10)
    assert [c.scores for c in m.columns] == [(10, 0), (0, 0), (0, 0)]
    m = _won(m, 0, 10)
    assert [c.scores for c in m.columns] == [(20, 0), (10, 0), (0, 0)]
    m = _won(m, 1, 5)  # seat 1's first win: column 1 only
    assert [c.scores for c in m.columns] == [(20, 5), (10, 0), (0, 0)]
    m = _won(m, 0, 10)
    assert [c.scores for c in m.columns] == [(30, 5), (20, 0), (10, 0)]
    assert [c.boxes for c in m.columns] == [(3, 1), (2, 0), (1, 0)]


def test_hollywood_a_finished_column_takes_no_more_entries_and_gets_its_own_bonuses():
    m = knock_round(hollywood=True, target=50)
    m = _won(m, 0, 30)
    m = _won(m, 0, 30)  # column 1: 60, finished for seat 0, seat 1 won nothing there: shutout
    c1 = m.columns[0]
    assert c1.finished and c1.winner == 0
    assert outcomes.summary(m.facts())["columns"][0]["bonuses"] == [2 * 25 + 200, 0]
    m = _won(m, 1, 20)  # seat 1's first win would go to column 1, which is finished
    assert m.columns[0].scores == (60, 0)
    assert [c.scores for c in m.columns[1:]] == [(30, 0), (0, 0)]
    assert not m.over
    assert final(m) == (60 + 250 + 30, 0)  # finished columns count with their bonuses


def test_hollywood_match_ends_when_all_three_columns_are_finished_final_is_the_sum():
    m = knock_round(hollywood=True, target=50)
    for _ in range(4):
        m = _won(m, 0, 30)
    # Column 1: 120 (done after 2), column 2: 90 (done after win 3), column 3: 60 (wins 3 and 4).
    # The engine ends the match; the finals, bonuses included, name its winner.
    assert m.over and m.winner is None and match_winner(m) == 0
    assert [c.scores for c in m.columns] == [(60, 0), (60, 0), (60, 0)]
    assert final(m) == (3 * 60 + 250 + 250 + 250, 0)


def test_hollywood_equal_finals_are_a_drawn_match():
    m = knock_round(hollywood=True, target=50)
    done = gin.Column(scores=(50, 0), boxes=(1, 0), finished=True, winner=0)
    other = gin.Column(scores=(0, 50), boxes=(0, 1), finished=True, winner=1)
    third = gin.Column(scores=(10, 10), finished=True, winner=0)
    drawn = replace(m, columns=(done, other, third), over=True, options={**m.options, "match_bonuses": False})
    assert match_winner(drawn) is None and final(drawn) == (60, 60)
    assert result(drawn)["places"] == [1, 1]


def test_hollywood_needs_a_target_above_0():
    with pytest.raises(ValueError, match="hollywood.*target"):
        gin.normalize_options({"hollywood": True, "target": 0})


def test_hollywood_real_round_enters_column_one():
    m = finish_knock(knock_round(hollywood=True, target=50))
    assert [c.scores for c in m.columns] == [(0, 10), (0, 0), (0, 0)]
    assert outcomes.summary(m.facts())["columns"][0]["scores"] == [0, 10]


# ---------------------------------------------------------------------------------------------- leaving


def test_resign_the_other_player_wins_with_game_and_box_bonuses():
    m = replace(knock_round(), totals=(30, 10), boxes=(2, 1))
    m = gin.resign(m, 0)
    assert m.over and m.winner == 1 and m.resigned == 0
    assert final(m) == (30 + 50, 10 + 25 + 100)
    assert result(m)["places"] == [2, 1]


def test_resign_shutout_doubles_the_game_bonus_for_the_stayer():
    m = gin.resign(replace(knock_round(), totals=(0, 10), boxes=(0, 1)), 0)
    assert final(m) == (0, 10 + 25 + 200)


def test_resign_in_the_one_round_game_has_no_bonuses():
    m = gin.resign(knock_round(target=0), 1)
    assert m.winner == 0 and final(m) == (0, 0)


def test_resign_in_hollywood_finishes_every_open_column_for_the_stayer():
    m = knock_round(hollywood=True, target=50)
    m = gin._score_round(m, 0, 20)
    m = gin.resign(m, 0)
    assert m.winner == 1 and all(c.finished and c.winner == 1 for c in m.columns)
    # Column 1: seat 0 has a box, so no shutout there; columns 2, 3: seat 0 won nothing there.
    assert final(m) == (20 + 25, 100 + 200 + 200)


def test_resign_after_the_match_is_over_is_refused():
    m = finish_knock(knock_round(target=0))
    with pytest.raises(IllegalAction, match="over"):
        gin.resign(m, 0)


def test_moves_after_resigning_are_refused():
    m = gin.resign(knock_round(), 1)
    with pytest.raises(IllegalAction, match="match is over"):
        gin.apply_action(m, 1, PILE)


def test_started_play_is_false_until_the_first_move_so_the_match_may_be_aborted():
    m = knock_round()
    assert not m.started_play
    assert gin.apply_action(m, 1, {"action": "pass"}).started_play


# ---------------------------------------------------------------------------------------------- options


def test_options_defaults():
    assert gin.normalize_options({}) == {
        "target": 100, "first_turn": "pass", "next_dealer": "winner", "big_gin": False, "variant": "standard",
        "undercut_bonus": 25, "gin_bonus": 25, "big_gin_bonus": 31, "match_bonuses": True, "game_bonus": 100,
        "box_bonus": 25, "hollywood": False, "turn_seconds": 45,
    }


@pytest.mark.parametrize(
    "options, name",
    [
        ({"colour": "red"}, "colour"),
        ({"target": 75}, "target"),
        ({"target": "100"}, "target"),
        ({"target": True}, "target"),
        ({"big_gin": 1}, "big_gin"),
        ({"first_turn": "skip"}, "first_turn"),
        ({"next_dealer": "random"}, "next_dealer"),
        ({"variant": "hollywood"}, "variant"),
        ({"undercut_bonus": 15}, "undercut_bonus"),
        ({"gin_bonus": 31}, "gin_bonus"),
        ({"big_gin_bonus": 25}, "big_gin_bonus"),
        ({"game_bonus": 200}, "game_bonus"),
        ({"box_bonus": 20}, "box_bonus"),
        ({"turn_seconds": 15}, "turn_seconds"),
        ({"match_bonuses": "yes"}, "match_bonuses"),
    ],
)
def test_unknown_option_or_bad_value_is_a_value_error_naming_it(options, name):
    with pytest.raises(ValueError, match=name):
        gin.normalize_options(options)


def test_gin_is_for_two_players_exactly():
    with pytest.raises(ValueError, match="exactly 2"):
        gin.normalize_options({}, seats=3)


# ---------------------------------------------------------------------------------------------- views


def test_view_shows_own_hand_and_never_the_other_hand_or_the_stock():
    m = knock_round()
    for seat in (0, 1):
        text = json.dumps(gin.view(m, seat))
        other = gin.cards_of(m.round.hands[1 - seat])
        assert all(f'"{c}"' not in text for c in other)
        assert all(f'"{c}"' not in text for c in m.current_deal()["stock"])
        assert gin.view(m, seat)["hand"] == gin.cards_of(m.round.hands[seat])


def test_spectator_view_has_no_hand_no_meter_no_legal_actions():
    v = gin.view(knock_round(), None)
    assert "hand" not in v and "meter" not in v and "legal_actions" not in v
    assert v["hand_counts"] == [10, 10] and v["stock_size"] == 31 and v["discard_top"] == "9C"


def test_legal_actions_only_in_the_view_of_the_seat_to_act():
    m = knock_round()
    assert gin.view(m, 1)["legal_actions"] == gin.legal_actions(m)
    assert "legal_actions" not in gin.view(m, 0)


def test_history_shows_a_pile_draw_with_its_card_and_a_stock_draw_without():
    m = play(start(LOOSE, KNOCKER, "9C", "JH", dealer=0), (1, PILE), (1, {"action": "discard", "card": "AC"}),
             (0, STOCK))
    history = gin.view(m, 1)["history"]
    assert history == [
        {"seat": 1, "action": "draw", "from": "discard", "card": "9C"},
        {"seat": 1, "action": "discard", "card": "AC"},
        {"seat": 0, "action": "draw", "from": "stock"},
    ]
    assert '"JH"' not in json.dumps(gin.view(m, 1))


def test_deadwood_meter_after_drawing_lists_each_discard_and_respects_the_card_just_taken():
    m = play(start(LOOSE, KNOCKER, "2C", dealer=0), (1, PILE))
    meter = gin.view(m, 1)["meter"]
    assert meter["deadwood"] == 3  # 11 cards: AC and 2C loose
    cards = {c["card"]: c for c in meter["discards"]}
    assert "2C" not in cards  # just taken: not discardable
    assert cards["AC"] == {"card": "AC", "deadwood": 2, "knock": True, "gin": False}
    assert meter["best_discard"] == "AC" and meter["can_knock"] and not meter["can_gin"]


def test_deadwood_meter_knock_flag_follows_the_variant():
    m = play(both_pass_then(start(LOOSE, KNOCKER, "9C", "JH", dealer=0, variant="straight")), (1, STOCK))
    meter = gin.view(m, 1)["meter"]
    assert meter["best_deadwood"] == 1 and not meter["can_knock"] and meter["knock_limit"] == 0


def test_last_round_reveals_both_hands_once_the_round_is_over():
    m = finish_knock(knock_round())
    v = gin.view(m, 0)
    assert v["last_round"]["hands"][1] == sorted(KNOCKER.split(), key=gin.ALL_CARDS.index)
    assert v["phase"] == "round_over" and v["to_act"] is None
    m2 = gin.deal_next_round(m, random.Random(2))
    assert gin.view(m2, 0)["last_round"]["round"] == 1


def test_match_json_round_trip_keeps_everything():
    m = play(start(LOOSE, KNOCKER, "9C", "JH", dealer=0), (1, PILE))
    again = gin.Match.from_json(json.loads(json.dumps(m.to_json())))
    assert again == m
    assert gin.legal_actions(again) == gin.legal_actions(m)
