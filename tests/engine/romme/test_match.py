"""The match interface of docs/engine.md for Rommé: options, immutability, views, timeouts, leaving, lists."""

from __future__ import annotations

import json
import random

import pytest

from games.engine.cards import romme_deck
from games.engine.errors import IllegalAction
from games.engine.romme import match as romme
from games.engine.romme.melds import hand_augen
from games.engine.romme.round import DISCARD
from tests.engine.romme.helpers import position
from tests.points import outcome, score_sheet

RNG = random.Random(0)  # reshuffles only where a test says so


def fresh(options=None, seats=None, seed=1, players=None):
    return romme.new_match(options or {}, seats=seats, rng=random.Random(seed), players=players)


def result(m):
    """The list's result, its facts scored as the live layer scores them."""
    return outcome(m.facts())


# -- options ------------------------------------------------------------------------------------------------

def test_options_defaults():
    assert romme.normalize_options({}) == {"seats": 4, "opening_points": 40, "turn_seconds": 45,
                                           "scoring": "casual", "rounds": 8}


def test_option_scoring_casual_or_masters_and_its_old_name_tournament():
    assert romme.normalize_options({"scoring": "masters"})["scoring"] == "masters"
    assert romme.normalize_options({"tournament": True}) == romme.normalize_options({"scoring": "masters"})
    assert romme.normalize_options({"tournament": False})["scoring"] == "casual"
    assert "tournament" not in romme.normalize_options({"tournament": True})
    # A preset stored with the old name and a choice made with the new one: the new name decides.
    assert romme.normalize_options({"tournament": True, "scoring": "casual"})["scoring"] == "casual"
    assert [romme.scoring_mode(o) for o in ({}, {"tournament": True}, {"scoring": "masters"})] == [
        "casual", "masters", "masters"]


def test_rounds_default_twice_the_seats():
    assert romme.normalize_options({}, seats=3)["rounds"] == 6
    assert romme.normalize_options({"seats": 6})["rounds"] == 12
    assert romme.normalize_options({"seats": 2, "rounds": 3})["rounds"] == 3


@pytest.mark.parametrize(("options", "named"), [
    ({"seats": 1}, "seats"), ({"seats": 7}, "seats"), ({"seats": "4"}, "seats"),
    ({"opening_points": 35}, "opening_points"), ({"opening_points": True}, "opening_points"),
    ({"rounds": 0}, "rounds"), ({"rounds": 2.5}, "rounds"),
    ({"turn_seconds": 40}, "turn_seconds"), ({"tournament": "yes"}, "tournament"),
    ({"scoring": "tournament"}, "scoring"), ({"scoring": True}, "scoring"),
    ({"target": 100}, "target"),
])
def test_bad_option_is_named(options, named):
    with pytest.raises(ValueError, match=named):
        romme.normalize_options(options)


def test_seats_argument_must_agree_with_option():
    with pytest.raises(ValueError, match="seats"):
        romme.normalize_options({"seats": 3}, seats=4)


# -- the match object ---------------------------------------------------------------------------------------

def test_new_match_for_two_to_six_seats():
    for seats in range(2, 7):
        m = fresh(seats=seats)
        assert m.seats == seats and len(m.round.hands) == seats
        assert (m.round_number, m.phase, m.over) == (1, "draw", False)


def test_apply_action_returns_a_new_match_and_leaves_the_old_one():
    m = fresh()
    seat = m.to_act
    m2 = romme.apply_action(m, seat, {"action": "draw", "from": "stock"}, rng=RNG)
    assert m.phase == "draw" and len(m.round.hands[seat]) == 13
    assert m2.phase == DISCARD and len(m2.round.hands[seat]) == 14


def test_refused_action_changes_nothing():
    m = fresh()
    before = m.to_json()
    with pytest.raises(IllegalAction):
        romme.apply_action(m, m.to_act, {"action": "discard", "card": "KD"}, rng=RNG)
    with pytest.raises(IllegalAction, match="unknown action"):
        romme.apply_action(m, m.to_act, {"action": "fly"}, rng=RNG)
    with pytest.raises(IllegalAction, match="unknown field"):
        romme.apply_action(m, m.to_act, {"action": "draw", "from": "stock", "x": 1}, rng=RNG)
    with pytest.raises(IllegalAction, match="no seat"):
        romme.apply_action(m, 9, {"action": "draw", "from": "stock"}, rng=RNG)
    with pytest.raises(IllegalAction, match="system move"):
        romme.apply_action(m, m.to_act, {"action": "reshuffle", "stock": []}, rng=RNG)
    assert m.to_json() == before


def test_json_round_trip_keeps_everything():
    m = fresh(seed=5)
    m = romme.apply_action(m, m.to_act, {"action": "draw", "from": "stock"}, rng=RNG)
    again = romme.Match.from_json(json.loads(json.dumps(m.to_json())))
    assert again.to_json() == m.to_json()
    assert romme.legal_actions(again) == romme.legal_actions(m)


def test_current_deal_is_the_full_deck():
    deal = fresh().current_deal()
    cards = [c for h in deal["hands"] for c in h] + [deal["upcard"]] + deal["stock"]
    assert sorted(cards) == sorted(romme_deck())


# -- views --------------------------------------------------------------------------------------------------

def test_view_shows_own_hand_counts_and_no_other_hand():
    m = fresh(seed=3)
    seat = m.to_act
    other = (seat + 1) % 4
    v = romme.view(m, seat)
    assert sorted(v["hand"]) == sorted(m.round.hands[seat])
    assert v["hand_counts"] == [13, 13, 13, 13]
    assert v["stock_size"] == len(m.round.stock) and v["discard_size"] == 1
    assert "legal_actions" in v
    assert "legal_actions" not in romme.view(m, other)
    text = json.dumps(romme.view(m, other))
    assert "stock\": [" not in text
    spectator = romme.view(m, None)
    assert "hand" not in spectator and "legal_actions" not in spectator


def test_view_has_augen_best_opening_melds_and_opened():
    m = fresh(seed=4)
    v = romme.view(m, m.to_act)
    assert v["hand_augen"] == sum(hand_augen(c) for c in v["hand"])
    assert set(v["best_opening"]) == {"value", "melds", "reaches"}
    assert v["melds"] == [] and v["opened"] == [False] * 4
    assert v["scores"] == m.facts() and v["result"] is None  # points are games.kinds.romme.points'
    assert score_sheet(v["scores"])["mode"] == "casual"


def test_view_names_the_cards_that_fit_both_ends_of_a_run_before_opening():
    # Seat 0 has not opened and has drawn: its joker fits below 5H and above 7H; its 8H only above; the ace of
    # spades both ends of 2S … KS. Lay-offs before opening go with the opening lay, which must say the end.
    m = fresh(seats=2, seed=2)
    m.round = position(["JK 8H AS 3C 9D", "4D 5D"], melds=((1, "5H 6H 7H"), (1, "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS")),
                       drawn="KC")
    assert romme.view(m, 0)["lay_off_both_ends"] == [{"card": "AS", "meld": 2}, {"card": "JK", "meld": 1},
                                                     {"card": "JK", "meld": 2}]
    assert "lay_off_both_ends" not in romme.view(m, 1)  # not to act
    assert "lay_off_both_ends" not in romme.view(m, None)
    m.round.opened[0] = True  # opened: the legal lay-offs say the ends themselves
    assert romme.view(m, 0)["lay_off_both_ends"] == []
    assert {(a["card"], a["meld"], a["end"]) for a in romme.view(m, 0)["legal_actions"]
            if a["action"] == "lay_off" and "end" in a} == {("JK", 1, "low"), ("JK", 1, "high"), ("AS", 2, "low"),
                                                            ("AS", 2, "high"), ("JK", 2, "low"), ("JK", 2, "high")}


def test_history_names_cards_taken_from_the_discard_pile_only():
    m = fresh(seed=6)
    a = m.to_act
    top = m.round.discard_pile[-1]
    m = romme.apply_action(m, a, {"action": "draw", "from": "discard"}, rng=RNG)
    m = romme.apply_action(m, a, {"action": "discard", "card": top}, rng=RNG)
    b = m.to_act
    m = romme.apply_action(m, b, {"action": "draw", "from": "stock"}, rng=RNG)
    history = romme.view(m, a)["history"]
    assert history[0] == {"seat": a, "action": "draw", "from": "discard", "card": top}
    assert history[2] == {"seat": b, "action": "draw", "from": "stock"}


# -- timeouts -----------------------------------------------------------------------------------------------

def test_timeout_draws_from_stock_and_discards_the_drawn_card():
    m = fresh(seed=7)
    top = m.round.stock[0]
    actions = romme.timeout_actions(m)
    if top == "JK":
        pytest.skip("seed gives a joker on top")
    assert actions == [{"action": "draw", "from": "stock"}, {"action": "discard", "card": top}]


def test_timeout_with_a_drawn_joker_discards_the_highest_other_card():
    m = fresh(seed=8)
    seat = m.to_act
    m.round.stock.insert(0, "JK")
    m.round.hands[seat] = ["2C", "KD", "9S", "AH", "3H"]
    actions = romme.timeout_actions(m)
    assert actions[1] == {"action": "discard", "card": "AH"}


def test_timeout_with_empty_stock_plays_reshuffle_and_discard():
    m = fresh(seed=9)
    seat = m.to_act
    m.round.discard_pile = m.round.stock[:5] + m.round.discard_pile
    m.round.stock = []
    actions = romme.timeout_actions(m)
    assert actions == [{"action": "draw", "from": "stock"}, {"action": "timeout_discard"}]
    for action in actions:
        m = romme.apply_action(m, seat, action, rng=random.Random(1))
    moves = m.round.moves
    assert [mv["action"] for mv in moves] == ["reshuffle", "draw", "discard"]
    assert m.to_act == (seat + 1) % 4


# -- leaving and the list -----------------------------------------------------------------------------------

def test_resign_marks_the_seat_and_the_server_plays_its_turns():
    m = fresh(seed=10)
    seat = m.to_act
    m = romme.resign(m, seat, rng=random.Random(2))
    assert m.left[seat] and m.to_act == (seat + 1) % 4
    assert m.round.moves[0] == {"seat": seat, "action": "resign"}
    assert [mv["seat"] for mv in m.round.moves[1:]] == [seat, seat]
    with pytest.raises(IllegalAction, match="has left"):
        romme.apply_action(m, seat, {"action": "draw", "from": "stock"}, rng=RNG)


def test_fewer_than_two_players_ends_the_list():
    m = fresh(seats=3, seed=11)
    m = romme.resign(m, 0, rng=RNG)
    assert not m.over
    m = romme.resign(m, 1, rng=RNG)
    assert m.over and m.phase == "match_over"
    assert m.summaries[-1]["result"] == "abandoned"
    over = result(m)
    assert over["winner"] == 2 and over["places"][2] == 1


def test_abbruch_is_last_place_in_casual_and_minus_700_in_masters():
    casual = romme.resign(fresh(seats=2, seed=12), 1, rng=RNG)
    assert result(casual)["places"] == [1, 2]
    masters = romme.resign(fresh({"scoring": "masters"}, seats=2, seed=12), 0, rng=RNG)
    assert result(masters)["final"][0] == -700
    assert result(masters)["places"] == [2, 1]


def finish_round_dead(m):
    """End the round in play without a winner (nothing left to reshuffle)."""
    m.round.stock, m.round.discard_pile = [], ["KD"]
    return romme.apply_action(m, m.to_act, {"action": "draw", "from": "stock"}, rng=RNG)


def test_list_ends_after_the_rounds_option():
    m = fresh({"rounds": 2}, seats=2, seed=13)
    m = finish_round_dead(m)
    assert m.phase == "round_over" and not m.over
    with pytest.raises(IllegalAction, match="round is over"):
        romme.apply_action(m, 0, {"action": "draw", "from": "stock"}, rng=RNG)
    m = finish_round_dead(romme.deal_next_round(m, random.Random(1)))
    assert m.over and len(m.record()["rounds"]) == 2
    with pytest.raises(IllegalAction, match="list is over"):
        romme.deal_next_round(m, random.Random(1))


def test_casual_equal_totals_share_the_place():
    m = fresh({"rounds": 1}, seats=3, seed=14)
    m = finish_round_dead(m)
    assert result(m)["places"] == [1, 1, 1] and result(m)["winner"] is None


def test_score_sheet_per_round_and_seat():
    m = fresh({"rounds": 2, "scoring": "masters"}, seats=2, seed=15)
    m = finish_round_dead(m)
    sheet = score_sheet(romme.view(m, 0)["scores"])
    assert sheet["mode"] == "masters"
    assert sheet["rounds"] == [{"round": 1, "result": "dead", "winner": None, "hand_romme": False,
                                "wertungspunkte": [0, 0], "augen": [0, 0]}]
    assert sheet["results"] == [0, 0]
