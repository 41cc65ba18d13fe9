"""The computer players decide from their seat's view alone: hidden cards, global random state and the
view's copies change nothing; the ``rng`` passed in is their only randomness."""

from __future__ import annotations

import copy
import dataclasses
import json
import random

import pytest

from games.engine.gin import match as gin
from games.engine.gin.bots import LEVELS, choose_action
from games.engine.gin.melds import BIT, indexes_of


def positions(seed: int, count: int) -> list[gin.Match]:
    """``count`` positions from rounds played by simple bots (one round per seed from ``seed`` on)."""
    out: list[gin.Match] = []
    while len(out) < count:
        rng = random.Random(seed)
        seed += 1
        m = gin.new_match({"target": 0}, rng=rng)
        while m.phase != "round_over" and not m.over and len(out) < count:
            out.append(m)
            seat = m.to_act
            m = gin.apply_action(m, seat, choose_action(gin.view(m, seat), "simple", rng))
    return out


def with_hidden_cards_redealt(m: gin.Match, rng: random.Random) -> gin.Match:
    """The same position with the opponent's hand and the undrawn stock shuffled among themselves."""
    rnd = m.round
    seat = m.to_act
    other = 1 - seat
    pool = list(indexes_of(rnd.hands[other])) + list(rnd.stock[rnd.stock_pos:])
    rng.shuffle(pool)
    size = rnd.hands[other].bit_count()
    hand = 0
    for card in pool[:size]:
        hand |= BIT[card]
    hands = (hand, rnd.hands[1]) if other == 0 else (rnd.hands[0], hand)
    stock = tuple(rnd.stock[:rnd.stock_pos]) + tuple(pool[size:])
    return dataclasses.replace(m, round=dataclasses.replace(rnd, hands=hands, stock=stock))


@pytest.mark.parametrize("level", LEVELS)
def test_bot_decides_the_same_whatever_the_hidden_cards_are(level):
    redeal = random.Random(5)
    checked = 0
    for m in positions(seed=11, count=60):
        other = with_hidden_cards_redealt(m, redeal)
        if other.round.hands == m.round.hands:
            continue
        view = gin.view(m, m.to_act)
        assert gin.view(other, other.to_act) == view  # the seat cannot tell the two positions apart
        assert choose_action(gin.view(other, other.to_act), level, random.Random(3)) == \
            choose_action(view, level, random.Random(3))
        checked += 1
    assert checked >= 40


@pytest.mark.parametrize("level", LEVELS)
def test_bot_needs_nothing_but_a_copy_of_the_view(level):
    for m in positions(seed=12, count=40):
        view = gin.view(m, m.to_act)
        kept = copy.deepcopy(view)
        through_json = json.loads(json.dumps(view))
        action = choose_action(view, level, random.Random(4))
        assert view == kept  # the bot does not write into the view
        assert choose_action(through_json, level, random.Random(4)) == action


@pytest.mark.parametrize("level", LEVELS)
def test_bot_randomness_comes_only_from_the_rng_passed_in(level):
    for m in positions(seed=13, count=40):
        view = gin.view(m, m.to_act)
        random.seed(1)
        first = choose_action(view, level, random.Random(9))
        random.seed(2)
        random.random()
        assert choose_action(view, level, random.Random(9)) == first


def test_levels_are_anfaenger_fortgeschritten_experte():
    assert LEVELS == ("simple", "advanced", "expert")
