"""The Rommé computer players decide from their seat's view alone: a copy of it, the same rng and any global
random state give the same action, and the bot writes nothing into the view."""

from __future__ import annotations

import copy
import json
import random

import pytest

from games.engine.romme import match as romme
from games.engine.romme.bots import LEVELS, choose_action


def positions(seed: int, count: int) -> list[romme.Match]:
    rng = random.Random(seed)
    m = romme.new_match({}, rng=rng)
    out = []
    while not m.over and m.phase != "round_over" and len(out) < count:
        out.append(m)
        seat = m.to_act
        m = romme.apply_action(m, seat, choose_action(romme.view(m, seat), "simple", rng), rng=rng)
    return out


@pytest.mark.parametrize("level", LEVELS)
def test_bot_needs_nothing_but_a_copy_of_the_view(level):
    for m in positions(seed=21, count=40):
        view = romme.view(m, m.to_act)
        kept = copy.deepcopy(view)
        action = choose_action(view, level, random.Random(4))
        assert view == kept
        assert choose_action(json.loads(json.dumps(view)), level, random.Random(4)) == action


@pytest.mark.parametrize("level", LEVELS)
def test_bot_randomness_comes_only_from_the_rng_passed_in(level):
    for m in positions(seed=22, count=40):
        view = romme.view(m, m.to_act)
        random.seed(1)
        first = choose_action(view, level, random.Random(9))
        random.seed(2)
        random.random()
        assert choose_action(view, level, random.Random(9)) == first


def with_hidden_cards_replaced(m: romme.Match, seat: int, seed: int) -> romme.Match:
    """A copy of ``m`` with the others' hands and the stock dealt anew from the same cards (same sizes)."""
    other = m.clone()
    r = other.round
    others = [s for s in range(other.seats) if s != seat]
    hidden = [c for s in others for c in r.hands[s]] + list(r.stock)
    random.Random(seed).shuffle(hidden)
    for s in others:
        size = len(r.hands[s])
        r.hands[s], hidden = hidden[:size], hidden[size:]
    r.stock = hidden
    return other


@pytest.mark.parametrize("level", LEVELS)
def test_bot_never_reads_a_hidden_card(level):
    """The same decision with the hidden cards of the others and the stock replaced gives the same action."""
    checked = 0
    for seed in (31, 32, 33):
        for m in positions(seed=seed, count=60):
            seat = m.to_act
            other = with_hidden_cards_replaced(m, seat, seed=seed * 7 + checked)
            assert other.round.hands[(seat + 1) % other.seats] != m.round.hands[(seat + 1) % m.seats] or (
                other.round.stock != m.round.stock)
            assert romme.view(other, seat) == romme.view(m, seat)
            assert (choose_action(romme.view(other, seat), level, random.Random(5))
                    == choose_action(romme.view(m, seat), level, random.Random(5)))
            checked += 1
    assert checked > 100
