"""The Rommé solver on its hardest 14-card hands: exact against a plain reference search that checks every
meld with ``validate_meld`` (no bounds, no shortcuts), on the worst hands the benchmark found and on seeded
adversarial deals."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from functools import cache

import pytest

from bench.romme import jokers_and_long_suit, near_runs, random_hand
from games.engine.cards import JOKER, RANKS, SUITS
from games.engine.romme.melds import (
    InvalidMeld,
    best_layout,
    best_opening,
    hand_augen,
    most_cards_layout,
    validate_meld,
)

# The slowest hands of the benchmark's seeded deals before the solver was sped up (issue 4).
WORST_HANDS = [
    "3C 3D 3H 3S 4C 4D 4H 4S 5C 5D 5H 6C 6D JK",
    "3C 4C 6C 8C 9C JC JK JK JK JK JK KC QC TC",
    "9C 9D 9H 9S JD JH JK QC QD QS TC TD TH TS",
    "6D 6H 6S 7C 7D 7H 7S 8C 8D 8H 9D 9S JK JK",
    "6H 6S 7C 7D 7H 7S 8C 8H 8S 9C 9H 9S JK JK",
    "2D 3D 3D 4D 6D 7D 8D AD JD JK JK JK JK TD",
    "3C 3H 3S 4C 4D 4H 4S 5C 5H 5S 6H 6S JK JK",
    "2S 3S 4S 5S 6S 7S 8S AS JK JK JK JK QS TS",
    "7D 8D 9D 9D AD AD JD JK JK JK JK KD QD TD",
    "5S 5S 7S 8S AS JK JK JK JK JK JS KS QS TS",
]

# More cards than a turn ever holds (15 and 16), with a whole suit and both its aces or jokers for them:
# the 14-card run A 2 … K A is among the melds to weigh.
ACE_TO_ACE_HANDS = [
    "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 5C",
    "JK 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH AS",
    "JK 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH JK 2C 2D",
    "JK 2S JK 4S JK 6S JK 8S JK TS JK QS KS AS AS 3S",
    "AD 2D 3D JK 5D JK 7D JK 9D JK JD JK KD JK 5C",
]

POINTS, AUGEN, CARDS = "points", "augen", "cards"


def _score(meld, mode: str) -> int:
    if mode == POINTS:
        return meld.points
    if mode == AUGEN:
        return sum(hand_augen(c) for c in meld.cards)
    return len(meld.cards)


@cache
def _meld(cards: tuple[str, ...]):
    try:
        return validate_meld(list(cards))
    except InvalidMeld:
        return None


def _candidates(card: str, left: Counter) -> list[tuple[str, ...]]:
    """Every valid meld holding ``card`` that the cards ``left`` (``card`` not among them) can complete."""
    jokers = left[JOKER]
    found = []
    rank, suit = card
    others = [rank + s for s in SUITS if s != suit and left[rank + s]]
    for size in range(0, 4):
        for sub in itertools.combinations(others, size):
            for j in range(0, min(jokers, 4 - 1 - size) + 1):
                found.append((card, *sub) + (JOKER,) * j)
    places = [RANKS.index(rank) + 1] + ([14] if rank == "A" else [])
    for place in places:
        for low in range(1, place + 1):
            for high in range(max(place, low + 2), 15):
                choices = []
                for p in range(low, high + 1):
                    if p == place:
                        choices.append([card])
                        continue
                    # At places 1 and 14 ``code`` is ``card``'s own kind: the other ace of A 2 … K A.
                    code = RANKS[(p - 1) % 13] + suit
                    choices.append(([code] if left[code] else []) + ([JOKER] if jokers else []))
                for pick in itertools.product(*choices):
                    need = Counter(pick)
                    need[card] -= 1
                    if all(left[c] >= n for c, n in need.items()):
                        found.append(pick)
    return [c for c in found if _meld(c) is not None]


def reference_best(hand: list[str], mode: str) -> int:
    """Best total score of disjoint melds from ``hand`` keeping at least one card: plain memoised search."""
    memo: dict[tuple, int] = {}
    impossible = -(10**9)

    def rec(left: Counter, kept: bool) -> int:
        naturals = sorted(c for c in left if c != JOKER and left[c])
        if not naturals:
            return 0 if kept or left[JOKER] else impossible
        key = (tuple(sorted((+left).items())), kept)
        if key in memo:
            return memo[key]
        card = naturals[0]
        left[card] -= 1
        best = rec(left, True)  # the card stays in the hand
        for cards in set(_candidates(card, left)):
            rest = Counter(cards)
            rest[card] -= 1
            left.subtract(rest)
            best = max(best, _score(_meld(cards), mode) + rec(left, kept))
            left.update(rest)
        left[card] += 1
        memo[key] = best
        return best

    return rec(Counter(hand), False)


def _check_laid(hand: list[str], melds) -> int:
    """The melds are valid and come from the hand, keeping a card; returns their total points."""
    rest = list(hand)
    total = 0
    for meld in melds:
        total += validate_meld(list(meld)).points
        for c in meld:
            rest.remove(c)
    assert rest
    return total


def assert_exact(hand: list[str]) -> None:
    opening = best_opening(hand)
    assert opening.value == reference_best(hand, POINTS) == _check_laid(hand, opening.melds)
    melds, augen = best_layout(hand)
    _check_laid(hand, melds)
    removed = sum(hand_augen(c) for m in melds for c in m)
    assert removed == reference_best(hand, AUGEN)
    assert augen == sum(hand_augen(c) for c in hand) - removed
    laid = most_cards_layout(hand)
    _check_laid(hand, laid)
    assert sum(len(m) for m in laid) == reference_best(hand, CARDS)


@pytest.mark.parametrize("hand", WORST_HANDS)
def test_solver_is_exact_on_the_slowest_benchmark_hands(hand):
    assert_exact(hand.split())


@pytest.mark.parametrize("hand", ACE_TO_ACE_HANDS)
def test_solver_is_exact_on_hands_that_hold_A_to_K_A(hand):
    assert_exact(hand.split())


def test_solver_is_exact_on_seeded_deals_around_A_to_K_A():
    rng = random.Random(14)
    for _ in range(4):
        suit = rng.choice(SUITS)
        run = [r + suit for r in RANKS] + ["A" + suit]
        for i in rng.sample(range(14), rng.randint(0, 4)):
            run[i] = JOKER
        rest = [r + s for r in RANKS for s in SUITS if s != suit] + [JOKER]
        assert_exact(run + rng.sample(rest, rng.randint(1, 2)))


@pytest.mark.parametrize("make", [jokers_and_long_suit, near_runs, random_hand])
def test_solver_is_exact_on_seeded_adversarial_deals(make):
    rng = random.Random(4)
    for _ in range(4):
        assert_exact(make(rng))
