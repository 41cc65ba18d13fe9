"""Card codes, decks and shuffling (games/engine/cards.py)."""

from __future__ import annotations

import random

import pytest

from games.engine.cards import (
    ALL_CARDS,
    card_from_index,
    card_index,
    check_card,
    gin_deck,
    rank_of,
    romme_deck,
    shuffled,
    suit_of,
)
from games.engine.errors import InvalidCard


def test_codes_both_ways_for_all_52_cards():
    assert len(set(ALL_CARDS)) == 52
    for i, code in enumerate(ALL_CARDS):
        assert card_index(code) == i and card_from_index(i) == code


def test_rank_and_suit():
    assert (rank_of("AS"), rank_of("TD"), rank_of("KH"), suit_of("TD")) == (1, 10, 13, "D")


def test_decks():
    assert sorted(gin_deck()) == sorted(ALL_CARDS)
    assert len(romme_deck()) == 110 and romme_deck().count("JK") == 6


@pytest.mark.parametrize("bad", ["1H", "TX", "", "JK", None, 10])
def test_bad_codes_raise_invalid_card(bad):
    with pytest.raises(InvalidCard):
        check_card(bad)


def test_shuffled_uses_the_generator_given_and_keeps_the_deck():
    deck = gin_deck()
    a = shuffled(deck, random.Random(3))
    assert a == shuffled(deck, random.Random(3))
    assert a != deck and sorted(a) == sorted(deck) and deck == gin_deck()
