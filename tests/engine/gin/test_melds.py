"""best_melds: the least deadwood, checked by rule and against a brute-force reference."""

from __future__ import annotations

import random

import pytest

from games.engine.cards import gin_deck
from games.engine.errors import InvalidCard
from games.engine.gin.melds import (
    _MELDS_WITH,
    VALUE,
    all_arrangements,
    best_melds,
    cards_of,
    clear_caches,
    deadwood_of,
    mask_of,
)
from tests.engine.gin.helpers import cards


def test_api_example_from_the_spec():
    melds, deadwood = best_melds(cards("7H 7S 7D 8C 9C TC 2D 3S KH QS"))
    assert deadwood == 25
    assert sorted(map(sorted, melds)) == [["7D", "7H", "7S"], ["8C", "9C", "TC"]]


def test_values_ace_one_face_cards_ten():
    assert best_melds(cards("AC 3D 5H 7S 9C JD QH KS TC 2H"))[1] == 1 + 3 + 5 + 7 + 9 + 10 + 10 + 10 + 10 + 2


def test_ace_is_low_a23_is_a_run():
    melds, deadwood = best_melds(cards("AH 2H 3H 5C 7D 9S JC KD QS 4D"))
    assert ["AH", "2H", "3H"] in melds
    assert deadwood == 5 + 7 + 9 + 10 + 10 + 10 + 4


def test_ace_is_low_qka_is_not_a_run():
    melds, deadwood = best_melds(cards("QH KH AH 5C 7D 9S JC 2D 4S 6C"))
    assert melds == []
    assert deadwood == 10 + 10 + 1 + 5 + 7 + 9 + 10 + 2 + 4 + 6


def test_no_wrap_around_k_a_2():
    assert best_melds(cards("KS AS 2S 5C 7D 9H JC 4D 6H 8C"))[0] == []


def test_set_of_three_and_set_of_four():
    assert best_melds(cards("9C 9D 9H 2C 4D 6H 8S JC QD KH"))[0] == [["9C", "9D", "9H"]]
    melds, deadwood = best_melds(cards("9C 9D 9H 9S 2C 4D 6H JC QD KH"))
    assert melds == [["9C", "9D", "9H", "9S"]]
    assert deadwood == 2 + 4 + 6 + 30


def test_each_card_in_at_most_one_meld():
    # 7H could serve the run 5H6H7H or the set of 7s, not both: the set leaves less (5 + 6 < 7 + 7).
    melds, deadwood = best_melds(cards("5H 6H 7H 7C 7D 8C 8D 8S KC KD"))
    assert melds == [["7C", "7D", "7H"], ["8C", "8D", "8S"]]
    assert deadwood == 5 + 6 + 20


def test_run_of_any_length():
    melds, deadwood = best_melds(cards("2D 3D 4D 5D 6D 7D 8D 9D TD JD"))
    assert deadwood == 0
    assert sum(len(m) for m in melds) == 10


def test_eleven_cards_count_all_eleven():
    melds, deadwood = best_melds(cards("2D 3D 4D 5D 6D 7D 8D 9D TD JD KS"))
    assert deadwood == 10


@pytest.mark.parametrize(
    "hand, message",
    [
        (cards("7H 7S 7D 8C 9C TC 2D 3S KH"), "10 or 11 cards, not 9"),
        (cards("7H 7S 7D 8C 9C TC 2D 3S KH QS 4C 5C"), "not 12"),
        (cards("7H 7H 7D 8C 9C TC 2D 3S KH QS"), "duplicate card(s) in hand: 7H"),
        ("7H 7S", "a list of card codes"),
    ],
)
def test_bad_hand_raises_value_error_saying_why(hand, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        best_melds(hand)


@pytest.mark.parametrize("bad", ["1H", "XS", "JK", "th", 7, None])
def test_bad_card_code_raises(bad):
    with pytest.raises(InvalidCard):
        best_melds([bad, *cards("7S 7D 8C 9C TC 2D 3S KH QS")])


def _brute_force_deadwood(mask: int) -> int:
    """Try every set of disjoint melds inside the hand (no cleverness at all)."""
    hand = cards_of(mask)
    melds = sorted({m for code in hand for m in _MELDS_WITH[gin_deck().index(code)] if m & mask == m})
    total = sum(VALUE[gin_deck().index(c)] for c in hand)
    best = total

    def walk(start: int, used: int, melded: int) -> None:
        nonlocal best
        best = min(best, total - melded)
        for i in range(start, len(melds)):
            if not melds[i] & used:
                walk(i + 1, used | melds[i], melded + sum(VALUE[j] for j in range(52) if melds[i] >> j & 1))

    walk(0, 0, 0)
    return best


def _seeded_hands(count: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    deck = gin_deck()
    narrow = [c for c in deck if c[0] in "3456789"]  # meld-rich: seven ranks in four suits
    hands = []
    for i in range(count):
        size = 10 if i % 4 else 11
        hands.append(rng.sample(deck if i % 2 else narrow, size))
    return hands


def test_best_melds_matches_brute_force_on_seeded_random_hands():
    clear_caches()
    for hand in _seeded_hands(3000, seed=20261130):
        melds, deadwood = best_melds(hand)
        assert deadwood == _brute_force_deadwood(mask_of(hand)) == deadwood_of(mask_of(hand)), hand
        # The melds returned are real melds of the hand and leave exactly that deadwood.
        used = [c for meld in melds for c in meld]
        assert len(used) == len(set(used)) and set(used) <= set(hand)
        assert all(best_melds_is_meld(meld) for meld in melds)
        assert sum(VALUE[gin_deck().index(c)] for c in hand if c not in used) == deadwood


def best_melds_is_meld(meld: list[str]) -> bool:
    mask = mask_of(meld)
    return any(m == mask for m in _MELDS_WITH[gin_deck().index(meld[0])])


def test_all_arrangements_includes_the_best_and_never_beats_it():
    for hand in _seeded_hands(200, seed=7):
        mask = mask_of(hand)
        deadwoods = [d for _, d in all_arrangements(mask)]
        assert min(deadwoods) == deadwood_of(mask)


def test_runs_never_cross_from_one_suit_into_the_next():
    # JC QC KC and AD 2D 3D sit on adjacent bits of the mask: they are two runs, not one.
    melds, deadwood = best_melds(cards("JC QC KC AD 2D 3D 5H 7S 9H KS"))
    assert melds == [["AD", "2D", "3D"], ["JC", "QC", "KC"]]
    assert deadwood == 5 + 7 + 9 + 10


def test_more_than_eleven_cards_still_get_the_least_deadwood():
    # The engine only deals 10 or 11, but the mask solver serves any count (the search switches method).
    from games.engine.gin.melds import arrange

    rng = random.Random(99)
    narrow = [c for c in gin_deck() if c[0] in "3456789"]
    for size in (12, 13, 14):
        for _ in range(40):
            mask = mask_of(rng.sample(narrow, size))
            assert deadwood_of(mask) == arrange(mask)[1] == _brute_force_deadwood(mask)


def test_any_iterable_of_codes_is_a_hand():
    codes = cards("7H 7S 7D 8C 9C TC 2D 3S KH QS")
    assert best_melds(iter(codes)) == best_melds(tuple(codes)) == best_melds(set(codes)) == best_melds(codes)


def test_best_melds_matches_brute_force_on_tangled_eleven_card_hands():
    # Eleven cards from three ranks only: every rank is a set that runs also want, the solver's hardest case.
    rng = random.Random(456)
    narrow = [c for c in gin_deck() if c[0] in "456"]
    for _ in range(300):
        hand = rng.sample(narrow, 11)
        melds, deadwood = best_melds(hand)
        assert deadwood == _brute_force_deadwood(mask_of(hand)), hand
        used = [c for meld in melds for c in meld]
        assert len(used) == len(set(used)) and all(best_melds_is_meld(meld) for meld in melds)


def test_changing_a_returned_arrangement_does_not_change_the_next_answer():
    hand = cards("AS 2S 3S 4S 5D 5H 5C KD KH QS")
    melds, _ = best_melds(hand)
    melds[0].append("9C")
    melds.append(["XX"])
    assert best_melds(hand) == ([["AS", "2S", "3S", "4S"], ["5C", "5D", "5H"]], 30)
