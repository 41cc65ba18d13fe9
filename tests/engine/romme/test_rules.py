"""One test per rule of romme.md's turn and round, with the cards written out."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games.engine.cards import romme_deck
from games.engine.errors import IllegalAction
from games.engine.romme import match as romme
from games.engine.romme.hints import going_out, table_melds
from games.engine.romme.round import DISCARD, DRAW, OVER
from games.kinds.romme.points import round_wertungspunkte
from tests.engine.romme.helpers import hand_of, position

# Thirteen cards that cannot open (no meld at all).
LOOSE = "2C 4C 6C 8C TC QC 3D 5D 7D 9D JD KD AS"


def test_deck_has_110_cards_with_six_jokers():
    deck = romme_deck()
    assert len(deck) == 110 and deck.count("JK") == 6
    assert all(n == 2 for card, n in Counter(deck).items() if card != "JK")


def test_deal_thirteen_each_upcard_and_stock():
    m = romme.new_match({}, seats=4, rng=random.Random(1))
    r = m.round
    assert [len(h) for h in r.hands] == [13, 13, 13, 13]
    assert len(r.discard_pile) == 1 and len(r.stock) == 110 - 52 - 1


def test_player_after_the_dealer_starts_and_dealer_moves_each_round():
    m = romme.new_match({"seats": 3}, rng=random.Random(2))
    first_dealer = m.dealer
    assert m.to_act == (first_dealer + 1) % 3
    m.round.stock, m.round.discard_pile = [], ["KD"]  # the next stock draw ends the round
    m = romme.apply_action(m, m.to_act, {"action": "draw", "from": "stock"}, rng=random.Random(3))
    assert m.phase == "round_over"
    m2 = romme.deal_next_round(m, random.Random(4))
    assert m2.dealer == (first_dealer + 1) % 3
    assert m2.to_act == (first_dealer + 2) % 3


def test_draw_from_stock_takes_the_top_card():
    r = position(["7H 8H", "2S 3S"], stock="KD QD")
    r.apply(0, {"action": "draw", "from": "stock"})
    assert hand_of(r, 0) == ["7H", "8H", "KD"] and r.stock == ["QD"] and r.phase == DISCARD


def test_draw_from_discard_takes_the_open_card():
    r = position(["7H 8H", "2S 3S"], upcard="9H")
    r.apply(0, {"action": "draw", "from": "discard"})
    assert "9H" in r.hands[0] and r.discard_pile == []


def test_taking_the_open_card_and_putting_it_straight_back_ends_the_turn():
    r = position(["7H 8H 2D", "2S 3S 4D"], upcard="KC")
    r.apply(0, {"action": "draw", "from": "discard"})
    r.apply(0, {"action": "discard", "card": "KC"})
    assert r.discard_pile == ["KC"] and hand_of(r, 0) == ["2D", "7H", "8H"]
    assert (r.to_act, r.phase) == (1, DRAW)


def test_open_joker_may_be_put_straight_back():
    r = position(["7H 8H 2D", "2S 3S 4D"], upcard="JK")
    r.apply(0, {"action": "draw", "from": "discard"})
    r.apply(0, {"action": "discard", "card": "JK"})
    assert r.discard_pile == ["JK"] and r.to_act == 1


def test_lay_out_only_after_drawing():
    r = position(["7H 8H 9H TH JH 2D", "2S"])
    with pytest.raises(IllegalAction, match="draw first"):
        r.apply(0, {"action": "lay", "melds": [["7H", "8H", "9H", "TH", "JH"]]})


def test_out_of_turn_is_refused():
    r = position(["7H 8H", "2S 3S"])
    with pytest.raises(IllegalAction, match="seat 0's turn"):
        r.apply(1, {"action": "draw", "from": "stock"})


# -- opening ------------------------------------------------------------------------------------------------

def test_opening_at_least_40_in_one_action():
    r = position(["TH JH QH 5C 5S 5D 2D 9S", "2S"], drawn="4D")
    r.apply(0, {"action": "lay", "melds": [["TH", "JH", "QH"], ["5C", "5S", "5D"]]})  # 30 + 15 = 45
    assert r.opened[0] and hand_of(r, 0) == ["2D", "4D", "9S"]
    assert [t.owner for t in r.melds] == [0, 0]


def test_opening_below_40_refused_with_nothing_moved():
    r = position(["TH JH QH 2C 3C 4C 2D 9S KS", "2S"], drawn="4D")
    before = hand_of(r, 0)
    with pytest.raises(IllegalAction, match="at least 40 points.*worth 39"):
        r.apply(0, {"action": "lay", "melds": [["TH", "JH", "QH"], ["2C", "3C", "4C"]]})  # 30 + 9 = 39
    assert hand_of(r, 0) == before and r.melds == [] and not r.opened[0]


def test_opening_cannot_be_split_over_two_actions():
    r = position(["TH JH QH 9C 9S 9D 2D 5S KS", "2S"], drawn="4D")
    with pytest.raises(IllegalAction, match="at least 40"):
        r.apply(0, {"action": "lay", "melds": [["TH", "JH", "QH"]]})  # 30 alone


def test_opening_at_30_and_at_0_options():
    r = position(["TH JH QH 2D 5S KS", "2S"], drawn="4D", opening_points=30)
    r.apply(0, {"action": "lay", "melds": [["TH", "JH", "QH"]]})
    assert r.opened[0]
    r0 = position(["2H 3H 4H 9D 5S KS", "2S"], drawn="4D", opening_points=0)
    r0.apply(0, {"action": "lay", "melds": [["2H", "3H", "4H"]]})
    assert r0.opened[0]


def test_opening_may_use_the_card_just_taken_from_the_discard_pile():
    r = position(["TH JH 5C 5S 5D 2D 9S", "2S"], upcard="QH")
    r.apply(0, {"action": "draw", "from": "discard"})
    r.apply(0, {"action": "lay", "melds": [["TH", "JH", "QH"], ["5C", "5S", "5D"]]})
    assert r.opened[0]


def test_opening_counts_joker_as_the_card_it_stands_for():
    r = position(["QH KH JK 3C 3S 2D 9S", "2S"], drawn="3D")
    # Q K and the joker as the high ace: 31; three 3s: 9; together exactly 40.
    r.apply(0, {"action": "lay", "melds": [["QH", "KH", "JK"], ["3C", "3S", "3D"]]})
    assert r.opened[0]


def test_after_opening_further_melds_of_any_value_same_turn():
    r = position(["TH JH QH KH 5C 5S 5D 2C 3C 4C 9S", "2S"], drawn="4D")
    r.apply(0, {"action": "lay", "melds": [["TH", "JH", "QH", "KH"], ["5C", "5S", "5D"]]})
    r.apply(0, {"action": "lay", "melds": [["2C", "3C", "4C"]]})  # 9 points, fine once opened
    assert len(r.melds) == 3


def test_cards_not_in_hand_are_refused():
    r = position(["TH JH 2D", "2S"], drawn="4D")
    with pytest.raises(IllegalAction, match="not in your hand: QH"):
        r.apply(0, {"action": "lay", "melds": [["TH", "JH", "QH"]]})


def test_invalid_meld_in_a_lay_is_named():
    r = position(["TH JH KH 2D", "2S"], drawn="4D", opened=(0,))
    with pytest.raises(IllegalAction, match="meld 1 of 1: not consecutive"):
        r.apply(0, {"action": "lay", "melds": [["TH", "JH", "KH"]]})


# -- lay-offs -----------------------------------------------------------------------------------------------

def test_lay_off_only_after_opening():
    r = position(["8H 2D", "2S"], drawn="4D", melds=((1, "5H 6H 7H"),))
    with pytest.raises(IllegalAction, match="after opening"):
        r.apply(0, {"action": "lay_off", "card": "8H", "meld": 1})


def test_lay_off_on_anybodys_melds():
    r = position(["8H 4H 2D", "2S"], drawn="4D", melds=((1, "5H 6H 7H"),), opened=(0,))
    r.apply(0, {"action": "lay_off", "card": "8H", "meld": 1})
    r.apply(0, {"action": "lay_off", "card": "4H", "meld": 1})
    assert r.melds[0].meld.cards == ("4H", "5H", "6H", "7H", "8H") and r.melds[0].owner == 1
    assert r.laid_off == [True, False]


def test_lay_off_run_at_either_end():
    r = position(["4H 9H 2D", "2S"], drawn="4D", melds=((0, "5H 6H 7H 8H"),), opened=(0,))
    r.apply(0, {"action": "lay_off", "card": "4H", "meld": 1, "end": "low"})
    r.apply(0, {"action": "lay_off", "card": "9H", "meld": 1, "end": "high"})
    assert r.melds[0].meld.cards == ("4H", "5H", "6H", "7H", "8H", "9H")


def test_lay_off_ace_high_after_king_or_low_before_two():
    r = position(["AH AH 2D", "2S"], drawn="4D", melds=((0, "JH QH KH"), (0, "2H 3H 4H")), opened=(0,))
    r.apply(0, {"action": "lay_off", "card": "AH", "meld": 1})
    r.apply(0, {"action": "lay_off", "card": "AH", "meld": 2})
    assert r.melds[0].meld.points == 41 and r.melds[1].meld.points == 10


A_TO_K = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"
TWO_TO_A = "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"
A_TO_A = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"


def test_ace_may_be_laid_off_above_king_of_A_to_K_run():
    r = position(["AH 2D", "2S"], drawn="4D", melds=((1, A_TO_K),), opened=(0,))
    assert {"action": "lay_off", "card": "AH", "meld": 1} in r.legal_actions()
    r.apply(0, {"action": "lay_off", "card": "AH", "meld": 1})
    assert r.melds[0].meld.cards == tuple(A_TO_A.split()) and r.melds[0].meld.points == 96


def test_ace_may_be_laid_off_below_two_of_2_to_K_A_run():
    r = position(["AH 2D", "2S"], drawn="4D", melds=((1, TWO_TO_A),), opened=(0,))
    r.apply(0, {"action": "lay_off", "card": "AH", "meld": 1})
    assert r.melds[0].meld.cards == tuple(A_TO_A.split()) and r.melds[0].meld.points == 96


def test_joker_may_be_laid_off_as_the_high_ace_of_A_to_K_run():
    r = position(["JK 2D", "2S"], drawn="4D", melds=((1, A_TO_K),), opened=(0,))
    r.apply(0, {"action": "lay_off", "card": "JK", "meld": 1})
    assert r.melds[0].meld.stands_for[-1] == "AH" and r.melds[0].meld.points == 96


def test_nothing_may_be_laid_off_on_A_to_K_A():
    for card in ("AH", "JK", "2H", "KH"):
        r = position([f"{card} 2D", "2S"], drawn="4D", melds=((1, A_TO_A),), opened=(0,))
        assert not any(a["action"] == "lay_off" for a in r.legal_actions())
        with pytest.raises(IllegalAction, match="does not fit"):
            r.apply(0, {"action": "lay_off", "card": card, "meld": 1})


def test_lay_off_no_wrap_around():
    r = position(["2H 2D", "2S"], drawn="4D", melds=((0, "QH KH AH"),), opened=(0,))
    with pytest.raises(IllegalAction, match="does not fit"):
        r.apply(0, {"action": "lay_off", "card": "2H", "meld": 1})
    r = position(["KH 2D", "2S"], drawn="4D", melds=((0, "AH 2H 3H"),), opened=(0,))
    with pytest.raises(IllegalAction, match="does not fit"):
        r.apply(0, {"action": "lay_off", "card": "KH", "meld": 1})


def test_lay_off_set_up_to_four_distinct_suits():
    r = position(["7C 7H 7D 2D", "2S"], drawn="4D", melds=((1, "7H 7S 7D"),), opened=(0,))
    with pytest.raises(IllegalAction, match="does not fit"):
        r.apply(0, {"action": "lay_off", "card": "7H", "meld": 1})
    r.apply(0, {"action": "lay_off", "card": "7C", "meld": 1})
    with pytest.raises(IllegalAction, match="does not fit"):
        r.apply(0, {"action": "lay_off", "card": "7D", "meld": 1})


def test_lay_off_joker_needs_an_end_where_both_fit():
    r = position(["JK 2D 5C", "2S"], drawn="4D", melds=((0, "5H 6H 7H"),), opened=(0,))
    with pytest.raises(IllegalAction, match="both ends"):
        r.apply(0, {"action": "lay_off", "card": "JK", "meld": 1})
    r.apply(0, {"action": "lay_off", "card": "JK", "meld": 1, "end": "low"})
    assert r.melds[0].meld.stands_for == ("4H", "5H", "6H", "7H")


def test_table_melds_remember_what_each_joker_stands_for():
    r = position(["TH 2D", "2S"], drawn="4D", melds=((1, "7H JK 9H"),), opened=(0,))
    r.apply(0, {"action": "lay_off", "card": "TH", "meld": 1})
    assert r.melds[0].to_json()["jokers"] == [{"position": 1, "card": "8H", "rank": "8", "suits": ["H"]}]


# -- joker swap ---------------------------------------------------------------------------------------------

def test_joker_swap_in_a_run():
    r = position(["8H 2C 3C 9D", "2S"], drawn="4D", melds=((1, "7H JK 9H"),), opened=(0,))
    r.apply(0, {"action": "swap", "meld": 1, "card": "8H",
                "then": {"action": "lay", "melds": [["2C", "3C", "JK"]]}})
    assert r.melds[0].meld.cards == ("7H", "8H", "9H")
    assert r.melds[1].meld.cards == ("2C", "3C", "JK") and r.melds[1].owner == 0
    assert hand_of(r, 0) == ["4D", "9D"] and r.laid_off == [True, False]


def test_joker_swap_for_the_high_ace_of_A_to_K_A():
    r = position(["AH 2C 3C 9D", "2S"], drawn="4D", melds=((1, f"{A_TO_K} JK"),), opened=(0,))
    r.apply(0, {"action": "swap", "meld": 1, "card": "AH",
                "then": {"action": "lay", "melds": [["2C", "3C", "JK"]]}})
    assert r.melds[0].meld.cards == tuple(A_TO_A.split())


def test_joker_swap_in_a_full_set():
    r = position(["7C 5H 6H 2D", "2S"], drawn="4D", melds=((1, "7H 7S JK 7D"),), opened=(0,))
    r.apply(0, {"action": "swap", "meld": 1, "card": "7C",
                "then": {"action": "lay", "melds": [["5H", "6H", "JK"]]}})
    assert r.melds[0].meld.cards == ("7H", "7S", "7C", "7D")


def test_joker_swap_refused_in_a_set_of_three():
    r = position(["7C 5H 6H 2D", "2S"], drawn="4D", melds=((1, "7H 7S JK"),), opened=(0,))
    with pytest.raises(IllegalAction, match="only when the set holds 4 cards"):
        r.apply(0, {"action": "swap", "meld": 1, "card": "7C",
                    "then": {"action": "lay", "melds": [["5H", "6H", "JK"]]}})


def test_joker_swap_needs_the_card_the_joker_stands_for():
    r = position(["9H 5H 6H 2D", "2S"], drawn="4D", melds=((1, "7H JK 9H"),), opened=(0,))
    with pytest.raises(IllegalAction, match="stands for 8H"):
        r.apply(0, {"action": "swap", "meld": 1, "card": "9H",
                    "then": {"action": "lay", "melds": [["5H", "6H", "JK"]]}})


def test_joker_swap_only_after_opening():
    r = position(["8H 2C 3C 9D", "2S"], drawn="4D", melds=((1, "7H JK 9H"),))
    with pytest.raises(IllegalAction, match="only after opening"):
        r.apply(0, {"action": "swap", "meld": 1, "card": "8H",
                    "then": {"action": "lay_off", "card": "JK", "meld": 1}})
    with pytest.raises(IllegalAction, match="at least 40"):
        r.apply(0, {"action": "swap", "meld": 1, "card": "8H",
                    "then": {"action": "lay", "melds": [["2C", "3C", "JK"]]}})


def test_joker_swap_as_part_of_a_hand_romme_below_the_minimum():
    # 2C 3C + the freed joker (6) and 9S TS JS (29): 35 points, everything but the KS laid in one action.
    r = position(["8H 2C 3C 9S TS JS", "2S"], drawn="KS", melds=((1, "7H JK 9H"),))
    r.apply(0, {"action": "swap", "meld": 1, "card": "8H",
                "then": {"action": "lay", "melds": [["2C", "3C", "JK"], ["9S", "TS", "JS"]]}})
    r.apply(0, {"action": "discard", "card": "KS"})
    assert r.result["hand_romme"] and round_wertungspunkte(r.result) == [8, 3]


def test_freed_joker_must_be_laid_in_the_same_action():
    r = position(["8H 2C 3C 4C 9D", "2S"], drawn="4D", melds=((1, "7H JK 9H"),), opened=(0,))
    before = [t.meld.cards for t in r.melds]
    with pytest.raises(IllegalAction, match="needs 'then'"):
        r.apply(0, {"action": "swap", "meld": 1, "card": "8H"})
    with pytest.raises(IllegalAction, match="freed|joker taken"):
        r.apply(0, {"action": "swap", "meld": 1, "card": "8H",
                    "then": {"action": "lay", "melds": [["2C", "3C", "4C"]]}})
    fresh = position(["8H 2C 3C 4C 9D", "2S"], drawn="4D", melds=((1, "7H JK 9H"),), opened=(0,))
    assert [t.meld.cards for t in fresh.melds] == before


def test_freed_joker_laid_off_in_the_same_action():
    r = position(["8H 9D 2C", "2S"], drawn="4D", melds=((1, "7H JK 9H"), (0, "QS KS AS")), opened=(0,))
    r.apply(0, {"action": "swap", "meld": 1, "card": "8H",
                "then": {"action": "lay_off", "card": "JK", "meld": 2}})
    assert r.melds[1].meld.cards == ("JK", "QS", "KS", "AS")


# -- discarding and keeping a card --------------------------------------------------------------------------

def test_discard_ends_the_turn():
    r = position(["7H 8H", "2S 3S"], drawn="KD")
    r.apply(0, {"action": "discard", "card": "KD"})
    assert (r.to_act, r.phase, r.discard_pile[-1]) == (1, DRAW, "KD")


def test_joker_not_discardable_except_to_win():
    r = position(["JK 8H 2C", "2S"], drawn="4D")
    with pytest.raises(IllegalAction, match="joker may not be discarded"):
        r.apply(0, {"action": "discard", "card": "JK"})
    win = position(["JK", "2S 3S"], drawn="5H", melds=((0, "2H 3H 4H"),), opened=(0,))
    win.apply(0, {"action": "lay_off", "card": "5H", "meld": 1})
    win.apply(0, {"action": "discard", "card": "JK"})
    assert win.phase == OVER and win.result["winner"] == 0


def test_no_action_may_empty_the_hand_before_the_discard():
    r = position(["5H", "2S"], drawn="6H", melds=((0, "2H 3H 4H"),), opened=(0,))
    r.apply(0, {"action": "lay_off", "card": "5H", "meld": 1})
    with pytest.raises(IllegalAction, match="keep a card to discard"):
        r.apply(0, {"action": "lay_off", "card": "6H", "meld": 1})
    r2 = position(["7C 7S 7D", "2S"], drawn="7H", opened=(0,))
    with pytest.raises(IllegalAction, match="keep a card"):
        r2.apply(0, {"action": "lay", "melds": [["7C", "7S", "7D", "7H"]]})


# -- one-card rule ------------------------------------------------------------------------------------------

def test_one_card_rule_forbids_taking_a_discard_that_fits():
    r = position(["2D", "2S 3S 4S"], upcard="8H", melds=((0, "5H 6H 7H"),))
    with pytest.raises(IllegalAction, match="one-card rule"):
        r.apply(0, {"action": "draw", "from": "discard"})
    assert {"action": "draw", "from": "discard"} not in r.legal_actions()


def test_one_card_rule_forbids_when_the_held_card_fits():
    r = position(["8H", "2S 3S 4S"], upcard="KC", melds=((0, "5H 6H 7H"),))
    with pytest.raises(IllegalAction, match="one-card rule"):
        r.apply(0, {"action": "draw", "from": "discard"})


def test_one_card_rule_allows_a_discard_that_cannot_end_the_round():
    r = position(["2D", "2S 3S 4S"], upcard="KC", melds=((0, "5H 6H 7H"),))
    r.apply(0, {"action": "draw", "from": "discard"})
    assert hand_of(r, 0) == ["2D", "KC"]


# -- stock and reshuffle ------------------------------------------------------------------------------------

def test_reshuffle_discard_pile_except_top_when_stock_is_empty():
    r = position(["7H 8H", "2S 3S"], stock="")
    r.discard_pile = ["KD", "QD", "5C"]
    r.apply(0, {"action": "draw", "from": "stock"}, random.Random(1))
    assert r.discard_pile == ["5C"]
    assert r.moves[0]["action"] == "reshuffle" and sorted(r.moves[0]["stock"]) == ["KD", "QD"]
    assert len(r.hands[0]) == 3 and len(r.stock) == 1


def test_nothing_to_reshuffle_ends_the_round_without_winner_or_points():
    r = position(["7H 8H", "2S 3S"], stock="")
    r.apply(0, {"action": "draw", "from": "stock"})
    assert r.phase == OVER
    assert r.result["result"] == "dead" and r.result["winner"] is None
    assert r.result["minus"] == [0, 0] and round_wertungspunkte(r.result) == [0, 0]


# Every meld on the table full: four suits each (the joker stands for the ace of diamonds), no run.
CLOSED_TABLE = ((0, "AC AH AS JK"), (1, "KC KD KH KS"), (0, "5C 5D 5H 5S"), (1, "TC TD TH TS"))


def test_a_round_nobody_can_win_ends_without_winner_or_points():
    # Each player holds a joker alone, and no card fits any meld: with two cards in a turn nobody can lay a meld,
    # lay off or swap, and the joker may not be discarded while another card is held. Drawing and discarding
    # would go on for ever: as with nothing to shuffle, the round ends without a winner.
    r = position(["JK", "JK"], melds=CLOSED_TABLE, drawn="9C")
    r.apply(0, {"action": "discard", "card": "9C"})
    assert r.phase == OVER
    assert r.result["result"] == "dead" and r.result["winner"] is None
    assert r.result["hands"] == [["JK"], ["JK"]]
    assert r.result["minus"] == [0, 0] and round_wertungspunkte(r.result) == [0, 0]


def test_a_round_plays_on_while_a_card_could_still_be_laid_off():
    r = position(["JK", "JK"], melds=(*CLOSED_TABLE, (1, "7C 7D 7H")), drawn="9C")  # a 7S would fit
    r.apply(0, {"action": "discard", "card": "9C"})
    assert r.phase == DRAW and r.to_act == 1 and r.result is None


def test_a_round_plays_on_while_a_player_holds_more_than_one_card():
    r = position(["JK", "JK 2D"], melds=CLOSED_TABLE, drawn="9C")
    r.apply(0, {"action": "discard", "card": "9C"})
    assert r.phase == DRAW and r.to_act == 1 and r.result is None


# -- going out ----------------------------------------------------------------------------------------------

def test_going_out_by_discarding_the_last_card():
    r = position(["5H 9C", "KS QS 2S"], drawn="6H", melds=((0, "2H 3H 4H"),), opened=(0,))
    r.apply(0, {"action": "lay_off", "card": "5H", "meld": 1})
    r.apply(0, {"action": "lay_off", "card": "6H", "meld": 1})
    r.apply(0, {"action": "discard", "card": "9C"})
    res = r.result
    assert (res["result"], res["winner"], res["hand_romme"]) == ("romme", 0, False)
    assert res["minus"] == [0, 22]


def test_going_out_hint_lays_the_ace_off_above_king_of_A_to_K_run():
    r = position(["AH", "KS QS 2S"], drawn="9C", melds=((1, A_TO_K),), opened=(0,))
    table = table_melds([t.to_json() for t in r.melds])
    assert going_out(r.hands[0], table, opened=True) == [
        {"action": "lay_off", "card": "AH", "meld": 1}, {"action": "discard", "card": "9C"}]


def test_hand_romme_lays_everything_in_one_turn_below_the_minimum():
    # 2H 3H 4H + 5C 5S 5D = 24 points, under 40: allowed because it lays out everything but the discard.
    r = position(["2H 3H 4H 5C 5S 5D", "KS QS 2S"], drawn="9C")
    r.apply(0, {"action": "lay", "melds": [["2H", "3H", "4H"], ["5C", "5S", "5D"]]})
    r.apply(0, {"action": "discard", "card": "9C"})
    assert r.result["result"] == "hand_romme" and r.result["hand_romme"]


def test_hand_romme_doubles_the_others_casual_minus_points():
    r = position(["2H 3H 4H 5C 5S 5D", "KS QS 2S", "AC"], drawn="9C")
    r.apply(0, {"action": "lay", "melds": [["2H", "3H", "4H"], ["5C", "5S", "5D"]]})
    r.apply(0, {"action": "discard", "card": "9C"})
    assert r.result["augen"] == [0, 22, 11]
    assert r.result["minus"] == [0, 44, 22]


def test_hand_romme_with_lay_offs_in_the_same_action():
    r = position(["2H 3H 4H 9D 9C", "KS QS 2S"], drawn="5D", melds=((1, "6D 7D JK"),))
    r.apply(0, {"action": "lay", "melds": [["2H", "3H", "4H"]],
                "lay_offs": [{"card": "5D", "meld": 1}, {"card": "9D", "meld": 1}]})
    r.apply(0, {"action": "discard", "card": "9C"})
    assert r.result["hand_romme"] and round_wertungspunkte(r.result)[0] == 8


def test_below_minimum_lay_that_does_not_go_out_is_refused():
    r = position(["2H 3H 4H 5C 5S 5D 9C", "KS QS 2S"], drawn="KC")
    with pytest.raises(IllegalAction, match="Hand-Rommé"):
        r.apply(0, {"action": "lay", "melds": [["2H", "3H", "4H"], ["5C", "5S", "5D"]]})


def test_winner_who_had_opened_earlier_is_no_hand_romme():
    r = position(["5H 9C", "KS QS 2S"], drawn="6H", melds=((0, "2H 3H 4H"),), opened=(0,))
    r.apply(0, {"action": "lay_off", "card": "5H", "meld": 1})
    r.apply(0, {"action": "lay_off", "card": "6H", "meld": 1})
    r.apply(0, {"action": "discard", "card": "9C"})
    assert not r.result["hand_romme"] and r.result["minus"] == [0, 22]


# -- Masters Wertungspunkte of a round: the round's facts, scored by games.kinds.romme.points ---------------------------

def test_the_round_reports_who_laid_off_on_other_players_melds():
    r = position(["2H 3H 4H 9D 9C", "KS QS 2S", "5H"], drawn="5D", melds=((1, "6D 7D JK"), (0, "TH JH QH")))
    r.apply(0, {"action": "lay", "melds": [["2H", "3H", "4H"]],
                "lay_offs": [{"card": "5D", "meld": 1}, {"card": "9D", "meld": 1}]})
    r.apply(0, {"action": "discard", "card": "9C"})
    assert r.result["laid_off"] == [True, False, False] and r.result["opened"] == [True, True, False]


def test_laying_off_on_ones_own_melds_is_not_laying_off_on_others():
    r = position(["5H 9C", "KS QS 2S"], drawn="6H", melds=((0, "2H 3H 4H"),), opened=(0,))
    r.apply(0, {"action": "lay_off", "card": "5H", "meld": 1})
    r.apply(0, {"action": "lay_off", "card": "6H", "meld": 1})
    r.apply(0, {"action": "discard", "card": "9C"})
    assert r.result["laid_off"] == [False, False]



def test_wertungspunkte_hand_romme_before_anyone_opened_is_12():
    r = position(["2H 3H 4H 5C 5S 5D", "KS QS 2S", "AC 2C 3D"], drawn="9C")
    r.apply(0, {"action": "lay", "melds": [["2H", "3H", "4H"], ["5C", "5S", "5D"]]})
    r.apply(0, {"action": "discard", "card": "9C"})
    assert round_wertungspunkte(r.result) == [12, 0, 0]


def test_wertungspunkte_hand_romme_after_others_opened_without_lay_off_is_10():
    r = position(["2H 3H 4H 5C 5S 5D", "KS QS 2S", "4C"], drawn="9C", melds=((2, "TD JD QD"),))
    r.apply(0, {"action": "lay", "melds": [["2H", "3H", "4H"], ["5C", "5S", "5D"]]})
    r.apply(0, {"action": "discard", "card": "9C"})
    assert round_wertungspunkte(r.result) == [10, 0, 3]


def test_wertungspunkte_hand_romme_with_a_joker_swap_on_others_melds_is_8():
    r = position(["TH JH QH KH 8C 5S 5D 5C", "KS QS 2S"], drawn="9C", melds=((1, "7C JK 9C"),))
    r.apply(0, {"action": "lay", "melds": [["TH", "JH", "QH", "KH"], ["5C", "5S", "5D"]]})
    r.apply(0, {"action": "swap", "meld": 1, "card": "8C",
                "then": {"action": "lay_off", "card": "JK", "meld": 2, "end": "low"}})
    r.apply(0, {"action": "discard", "card": "9C"})
    assert r.result["hand_romme"] and round_wertungspunkte(r.result)[0] == 8


def test_wertungspunkte_romme_after_an_earlier_opening_is_5():
    r = position(["5H 9C", "KS QS 2S"], drawn="6H", melds=((0, "2H 3H 4H"),), opened=(0,))
    r.apply(0, {"action": "lay_off", "card": "5H", "meld": 1})
    r.apply(0, {"action": "lay_off", "card": "6H", "meld": 1})
    r.apply(0, {"action": "discard", "card": "9C"})
    assert round_wertungspunkte(r.result) == [5, 0]
