"""The meld builder's preview (``games.engine.romme.hints.meld_preview``) checks only the orders that can be
melds, within a fixed budget: it gives exactly the answers of the full search it replaced (every joker
placement read by ``validate_meld``, kept below as the reference) while reading a handful of orders where
that read hundreds (four jokers and a long heart run: 330 and more)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine.cards import JOKER, RANKS
from games.engine.romme import hints
from games.engine.romme.melds import InvalidMeld, validate_meld
from tests.games.fuzzing import FUZZ


def reference_preview(cards: list[str]) -> dict:
    """The full search as it was: every placement of the jokers in every line of the natural cards."""
    naturals = [c for c in cards if c != JOKER]
    jokers = len(cards) - len(naturals)
    aces = [c for c in naturals if c[0] == "A"]
    others = sorted((c for c in naturals if c[0] != "A"), key=lambda c: RANKS.find(c[0]))
    best = None
    error = "no cards"
    seen: set[tuple[str, ...]] = set()
    for high in range(len(aces) + 1):
        line = aces[high:] + others + aces[:high]
        for places in _all_places(len(line) + jokers, jokers):
            order, rest = [], iter(line)
            for i in range(len(line) + jokers):
                order.append(JOKER if i in places else next(rest))
            key = tuple(order)
            if key in seen:
                continue
            seen.add(key)
            try:
                meld = validate_meld(order)
            except InvalidMeld as exc:
                error = str(exc)
                continue
            if best is None or meld.points >= best.points:
                best = meld
    if best is None:
        return {"meld": None, "points": None, "error": error}
    return {"meld": list(best.cards), "points": best.points, "kind": best.kind}


def _all_places(length: int, jokers: int) -> Iterator[frozenset[int]]:
    def choose(start: int, left: int, taken: tuple[int, ...]) -> Iterator[frozenset[int]]:
        if left == 0:
            yield frozenset(taken)
            return
        for i in range(start, length - 2 * (left - 1)):
            yield from choose(i + 2, left - 1, (*taken, i))
    yield from choose(0, jokers, ())


class Counting:
    """Counts ``validate_meld`` calls of the preview."""

    def __init__(self, monkeypatch):
        self.calls = 0
        original = hints.validate_meld

        def counted(cards):
            self.calls += 1
            return original(cards)

        monkeypatch.setattr(hints, "validate_meld", counted)


WORST = ["JK"] * 4 + ["AH", "2H", "4H", "5H", "6H", "8H", "9H", "JH", "QH", "AH"]
LONG_RUNS = [
    WORST,
    ["JK"] * 4 + ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH"],
    ["JK"] * 4 + ["AH", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "JH", "KH"],
    ["JK"] * 4 + ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH"],
    ["JK"] * 3 + ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH"],
]


@pytest.mark.parametrize("cards", LONG_RUNS, ids=lambda c: " ".join(c))
def test_long_runs_with_jokers_get_the_full_searchs_answer_from_a_few_readings(cards, monkeypatch):
    expected = reference_preview(cards)
    counting = Counting(monkeypatch)
    assert hints.meld_preview(cards) == expected
    assert counting.calls <= 12, counting.calls  # the full search read 330 orders and more


def test_the_budget_bounds_the_work_whatever_the_input(monkeypatch):
    counting = Counting(monkeypatch)
    assert hints.meld_preview(WORST)["kind"] == "run"  # the site's budget is far above what real cards need
    needed, counting.calls = counting.calls, 0
    answer = hints.meld_preview(WORST, budget=needed - 1)
    assert answer["meld"] is None and "too many" in answer["error"]
    assert counting.calls == needed - 1


CODES = [r + s for r in RANKS for s in "CDHS"]
card = st.one_of(st.sampled_from(CODES), st.just(JOKER), st.sampled_from(["AH", "AS", "KH", "QH", "2H"]),
                 st.sampled_from(["ZZ", "J1", "1H", "AX"]))
#: Cards of one suit (runs) with jokers: where the readings are many.
heart_runs = st.lists(st.one_of(st.sampled_from([r + "H" for r in RANKS]), st.just(JOKER)), min_size=1, max_size=14)
sets = st.lists(st.one_of(st.sampled_from(["7C", "7D", "7H", "7S", "AC", "AH"]), st.just(JOKER)), min_size=1,
                max_size=6)


@FUZZ
@given(cards=st.one_of(heart_runs, heart_runs, sets, st.lists(card, min_size=1, max_size=14)))
def test_every_answer_is_the_full_searchs(cards):
    assert hints.meld_preview(cards) == reference_preview(cards)


def test_many_random_hands_get_the_full_searchs_answer():
    rng = random.Random(25)
    suits = "CDHS"
    for _ in range(3000):
        suit = rng.choice(suits)
        size = rng.randint(1, 14)
        pool = [r + suit for r in RANKS] * 2 + [JOKER] * rng.randint(0, 6) + [rng.choice(CODES)]
        cards = rng.sample(pool, min(size, len(pool)))
        assert hints.meld_preview(cards) == reference_preview(cards), cards
