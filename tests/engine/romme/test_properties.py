"""Properties of random legal play (hypothesis): cards are conserved, play ends, replay reproduces,
views hide what they must, and the quick lay-off check agrees with full meld validation."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import example, given, settings
from hypothesis import strategies as st

from games.engine.cards import romme_deck
from games.engine.romme import match as romme
from games.engine.romme.bots import choose_action
from games.engine.romme.melds import InvalidMeld, validate_meld
from games.engine.romme.round import extended, layoff_ends
from tests.points import outcome, replay

DECK = Counter(romme_deck())
MAX_ACTIONS = 4000


def all_cards(m: romme.Match) -> Counter:
    r = m.round
    cards = Counter(r.stock) + Counter(r.discard_pile)
    for hand in r.hands:
        cards += Counter(hand)
    for t in r.melds:
        cards += Counter(t.meld.cards)
    return cards


def play(seed: int, seats: int, *, bots: bool = False, resign_chance: float = 0.0, check=None):
    """Play one short list with random legal actions (or bots); call ``check(m)`` after every step."""
    rng = random.Random(seed)
    m = romme.new_match({"rounds": 1, "scoring": romme.SCORING[seed % 2]}, seats=seats, rng=rng)
    for _ in range(MAX_ACTIONS):
        if m.over:
            return m
        if m.phase == "round_over":
            m = romme.deal_next_round(m, rng)
            continue
        if rng.random() < resign_chance:
            m = romme.resign(m, rng.choice([s for s in range(seats) if not m.left[s]]), rng=rng)
        else:
            seat = m.to_act
            if bots:
                action = choose_action(romme.view(m, seat), rng.choice(["simple", "expert"]), rng)
            else:
                action = rng.choice(romme.legal_actions(m))
            m = romme.apply_action(m, seat, action, rng=rng)
        if check:
            check(m)
    raise AssertionError(f"no end after {MAX_ACTIONS} actions")


@settings(max_examples=20)
@given(st.integers(0, 10**9), st.integers(2, 6))
def test_random_legal_play_keeps_all_110_cards_always_ends_and_replays(seed, seats):
    def same_cards(m: romme.Match) -> None:
        assert all_cards(m) == DECK

    m = play(seed, seats, resign_chance=0.003, check=same_cards)
    assert m.over
    record = json.loads(json.dumps(m.record()))
    summary = replay(record)
    result = outcome(m.facts())
    assert summary["final"] == result["final"] and summary["places"] == result["places"]
    assert summary["left"] == m.left and summary["over"]


@settings(max_examples=10)
@given(st.integers(0, 10**9), st.integers(2, 4))
@example(28387, 2)  # both ended holding a joker alone before a table of full sets: a round nobody can win
def test_bots_play_only_legal_actions_to_the_end(seed, seats):
    m = play(seed, seats, bots=True)
    assert m.over
    assert replay(json.loads(json.dumps(m.record())))["final"] == outcome(m.facts())["final"]


def hidden_ok(m: romme.Match, rng: random.Random) -> None:
    """Each view depends only on what its seat may know: dealing the unseen cards (the other hands and the
    stock) differently must not change it."""
    for seat in [None, *range(m.seats)]:
        v = romme.view(m, seat)
        assert '"stock": [' not in json.dumps(v)
        other = m.clone()
        r = other.round
        unseen = [c for s, h in enumerate(r.hands) if s != seat for c in h] + r.stock
        rng.shuffle(unseen)
        for s, h in enumerate(r.hands):
            if s != seat:
                r.hands[s], unseen = unseen[: len(h)], unseen[len(h):]
        r.stock = unseen
        assert romme.view(other, seat) == v


@settings(max_examples=6)
@given(st.integers(0, 10**9), st.integers(2, 5))
def test_no_view_shows_another_hand_or_the_stock_order(seed, seats):
    rng = random.Random(seed)
    steps = iter(range(10**6))
    play(seed, seats, check=lambda m: next(steps) % 11 or hidden_ok(m, rng))


@st.composite
def melds_and_cards(draw):
    size = draw(st.integers(3, 7) | st.integers(12, 14))  # long runs too: A 2 … K, 2 … K A, A 2 … K A
    suit = draw(st.sampled_from("CDHS"))
    if draw(st.booleans()):
        start = draw(st.integers(1, 15 - size))
        cards = ["A23456789TJQKA"[p - 1] + suit for p in range(start, start + size)]
        for i in range(size):
            if draw(st.integers(0, 3)) == 0:
                cards[i] = "JK"
    else:
        rank = draw(st.sampled_from("A23456789TJQK"))
        suits = draw(st.permutations("CDHS"))
        cards = [rank + s for s in suits[: draw(st.integers(2, 4))]] + ["JK"] * draw(st.integers(0, 1))
    near_the_ends = st.sampled_from(["A" + suit, "2" + suit, "K" + suit])
    card = draw(st.sampled_from(sorted(set(romme_deck()))) | near_the_ends)
    return cards, card


@settings(max_examples=200)
@given(melds_and_cards())
def test_quick_lay_off_check_agrees_with_validate_meld(data):
    cards, card = data
    try:
        meld = validate_meld(cards)
    except InvalidMeld:
        return
    ends = [None] if meld.kind == "set" else ["low", "high"]
    slow = [end for end in ends if extended(meld, card, end) is not None]
    assert layoff_ends(meld, card) == slow
