"""Meld rules of romme.md, one test per rule, and the solver against an exhaustive search."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.cards import romme_deck
from games.engine.romme.melds import (
    InvalidMeld,
    Opening,
    best_layout,
    best_opening,
    hand_augen,
    most_cards_layout,
    validate_meld,
)
from tests.engine.romme.helpers import brute_force_best


def cards(text: str) -> list[str]:
    return text.split()


# -- sets ---------------------------------------------------------------------------------------------------

def test_set_of_three_suits():
    meld = validate_meld(cards("7H 7S 7D"))
    assert (meld.kind, meld.points) == ("set", 21)


def test_set_of_four_suits():
    assert validate_meld(cards("KC KS KH KD")).points == 40


def test_set_natural_cards_in_different_suits():
    with pytest.raises(InvalidMeld, match="different suits: 7H is there twice"):
        validate_meld(cards("7H 7H 7S"))


def test_set_at_most_four_cards():
    with pytest.raises(InvalidMeld, match="different suits"):
        validate_meld(cards("7H 7S 7D 7C 7H"))
    with pytest.raises(InvalidMeld, match="at most 4"):
        validate_meld(cards("7H 7S 7D 7C JK"))


def test_set_of_aces_counts_eleven_each():
    assert validate_meld(cards("AS AH AD")).points == 33


def test_set_joker_stands_for_a_missing_suit():
    meld = validate_meld(cards("7H 7S JK"))
    assert meld.points == 21
    assert meld.stands_for == ("7H", "7S", None)
    assert meld.joker_meanings() == [{"position": 2, "card": None, "rank": "7", "suits": ["C", "D"]}]


def test_set_of_four_with_joker_knows_the_jokers_suit():
    meld = validate_meld(cards("7H JK 7S 7C"))
    assert meld.stands_for == ("7H", "7D", "7S", "7C")


# -- runs ---------------------------------------------------------------------------------------------------

def test_run_one_suit_consecutive():
    meld = validate_meld(cards("7H 8H 9H TH"))
    assert (meld.kind, meld.points) == ("run", 34)


def test_run_needs_one_suit():
    with pytest.raises(InvalidMeld, match="neither a set"):
        validate_meld(cards("7H 8S 9H"))


def test_run_must_be_consecutive():
    with pytest.raises(InvalidMeld, match="not consecutive"):
        validate_meld(cards("7H 9H TH"))


def test_run_is_given_lowest_first():
    with pytest.raises(InvalidMeld, match="lowest first"):
        validate_meld(cards("9H 8H 7H"))


def test_ace_low_before_two_counts_one():
    meld = validate_meld(cards("AH 2H 3H"))
    assert meld.points == 1 + 2 + 3


def test_ace_high_after_king_counts_eleven():
    meld = validate_meld(cards("QS KS AS"))
    assert meld.points == 10 + 10 + 11


def test_no_wrap_around_K_A_2():
    with pytest.raises(InvalidMeld, match="no wrap-around"):
        validate_meld(cards("KH AH 2H"))
    with pytest.raises(InvalidMeld, match="no wrap-around"):
        validate_meld(cards("QH KH AH 2H 3H"))
    with pytest.raises(InvalidMeld, match="no wrap-around"):
        validate_meld(cards("KH AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH"))


def test_run_may_hold_an_ace_at_each_end_A_to_K_A():
    meld = validate_meld(cards("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"))
    assert (meld.kind, meld.suit, meld.low, meld.high) == ("run", "H", 1, 14)


def test_run_of_fourteen_A_to_A_counts_96():
    # The low ace counts 1, the high ace 11: 1 + 2 + … + 9 + 10 + 10 + 10 + 10 + 11.
    assert validate_meld(cards("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS")).points == 96


def test_joker_may_stand_for_either_ace_of_A_to_K_A():
    low = validate_meld(cards("JK 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"))
    high = validate_meld(cards("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH JK"))
    assert low.stands_for[0] == high.stands_for[-1] == "AH"
    assert low.points == high.points == 96


def test_two_jokers_may_stand_for_both_aces_JK_2_to_K_JK():
    meld = validate_meld(cards("JK 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH JK"))
    assert (meld.stands_for[0], meld.stands_for[-1], meld.points) == ("AH", "AH", 96)


def test_A_to_K_A_is_the_longest_run():
    with pytest.raises(InvalidMeld, match="below a low ace"):
        validate_meld(cards("JK AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"))
    with pytest.raises(InvalidMeld, match="above a high ace"):
        validate_meld(cards("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH JK"))


def test_second_ace_only_at_the_other_end_of_the_run():
    with pytest.raises(InvalidMeld, match="cannot hold A twice"):
        validate_meld(cards("AH AH 2H 3H"))
    with pytest.raises(InvalidMeld, match="between 3H and AH 10 cards are missing"):
        validate_meld(cards("AH 2H 3H AH"))
    with pytest.raises(InvalidMeld, match="between QH and AH 1 card is missing"):
        validate_meld(cards("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH AH"))


def test_nothing_below_a_low_ace():
    with pytest.raises(InvalidMeld, match="below a low ace"):
        validate_meld(cards("JK AH 2H"))


def test_nothing_above_a_high_ace():
    with pytest.raises(InvalidMeld, match="above a high ace"):
        validate_meld(cards("KH AH JK"))


def test_run_of_thirteen_from_ace_low():
    assert validate_meld(cards("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH")).points == 85


# -- jokers -------------------------------------------------------------------------------------------------

def test_joker_fills_a_gap_in_a_run():
    meld = validate_meld(cards("7H JK 9H"))
    assert meld.stands_for == ("7H", "8H", "9H")
    assert meld.points == 24


def test_joker_counts_as_the_card_it_stands_for():
    assert validate_meld(cards("QH KH JK")).points == 31  # the joker is the high ace
    assert validate_meld(cards("JK 2H 3H")).points == 6  # the joker is the low ace


def test_jokers_never_next_to_each_other_in_a_run():
    with pytest.raises(InvalidMeld, match="next to each other"):
        validate_meld(cards("5H JK JK 8H 9H TH"))


def test_fewer_jokers_than_natural_cards_in_a_run():
    with pytest.raises(InvalidMeld, match="fewer jokers than natural cards"):
        validate_meld(cards("7H JK JK"))
    with pytest.raises(InvalidMeld, match="fewer jokers"):
        validate_meld(cards("JK 7H JK 9H"))


def test_fewer_jokers_than_natural_cards_in_a_set():
    assert validate_meld(cards("7H 7S JK")).kind == "set"
    with pytest.raises(InvalidMeld, match="fewer jokers than natural cards"):
        validate_meld(cards("7H JK JK 7S"))


def test_meld_needs_three_cards():
    with pytest.raises(InvalidMeld, match="at least 3"):
        validate_meld(cards("7H 8H"))


def test_bad_card_code_is_named():
    with pytest.raises(InvalidMeld, match="not a card code: '1H'"):
        validate_meld(["1H", "2H", "3H"])
    with pytest.raises(InvalidMeld, match="list of card codes"):
        validate_meld("7H 8H 9H")


def test_invalid_meld_is_a_value_error():
    assert issubclass(InvalidMeld, ValueError)


# -- the solver ---------------------------------------------------------------------------------------------

def test_best_opening_finds_the_highest_value():
    opening = best_opening(cards("QH KH JK 7S 7C 7D 2C"))
    assert opening.value == 52 and opening.reaches
    assert sorted(map(sorted, opening.melds)) == [["7C", "7D", "7S"], ["JK", "KH", "QH"]]


def test_best_opening_below_the_limit_does_not_reach():
    opening = best_opening(cards("2H 3H 4H 9C 9D KS"), opening_points=40)
    assert (opening.value, opening.reaches) == (9, False)
    assert best_opening(cards("2H 3H 4H 9C 9D KS"), opening_points=0).reaches


def test_best_opening_keeps_a_card_to_discard():
    opening = best_opening(cards("TH JH QH KH AH"))
    assert sum(len(m) for m in opening.melds) == 4
    assert opening.value == 41  # J Q K A (41) beats T J Q K (40)


def test_best_layout_leaves_fewest_augen():
    melds, augen = best_layout(cards("JK 5H 6H 9C 9D 9S KD 2C"))
    assert augen == 12  # keeps KD 2C; the joker goes with 5H 6H
    assert sum(len(m) for m in melds) == 6


def test_most_cards_layout_can_go_out():
    melds = most_cards_layout(cards("AH 2H 3H 7C 7D 7S JK TD JD 4C"))
    assert sum(len(m) for m in melds) == 9


def test_solver_lays_A_to_K_A_as_one_run():
    # Fifteen cards, more than a turn ever holds: only a caller of the solver meets them. Two runs
    # A … 6 and 7 … K A would be worth as much; the one run of 14 is found first and kept.
    hand = cards("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 5C")
    run = tuple(cards("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"))
    assert best_opening(hand) == Opening(96, (run,), True)
    assert best_layout(hand) == ((run,), 5)
    assert most_cards_layout(hand) == (run,)


SMALL_DECK = sorted(set(romme_deck()))


@st.composite
def small_hands(draw):
    # Cards from a few ranks and two suits, so melds are likely; jokers often.
    pool = [r + s for r in "A23459TQK" for s in "HS"] * 2 + ["JK"] * 3
    size = draw(st.integers(min_value=4, max_value=7))
    return draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size).filter(
        lambda h: all(h.count(c) <= (6 if c == "JK" else 2) for c in h)))


@settings(max_examples=80)
@given(small_hands())
def test_solver_best_opening_never_beaten_by_brute_force(hand):
    assert best_opening(hand).value == brute_force_best(hand, lambda points, arrangement: points)


@settings(max_examples=40)
@given(small_hands())
def test_solver_layout_never_beaten_by_brute_force(hand):
    total = sum(hand_augen(c) for c in hand)
    best_removed = brute_force_best(hand, lambda points, arrangement: sum(hand_augen(c) for c in arrangement))
    assert best_layout(hand)[1] == total - best_removed
    best_count = brute_force_best(hand, lambda points, arrangement: len(arrangement))
    assert sum(len(m) for m in most_cards_layout(hand)) == best_count


@given(small_hands())
def test_solver_melds_are_valid_and_from_the_hand(hand):
    opening = best_opening(hand)
    rest = list(hand)
    total = 0
    for meld in opening.melds:
        total += validate_meld(list(meld)).points
        for c in meld:
            rest.remove(c)
    assert total == opening.value
    assert rest
