"""Properties of random legal play (hypothesis): it ends, no card is lost or doubled, records replay exactly,
and a seat's view never shows the other hand or the stock."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.cards import ALL_CARDS
from games.engine.gin import match as gin
from games.engine.gin.melds import cards_of
from games.engine.records import replay_record

OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "target": st.sampled_from([0, 50, 100]),
        "first_turn": st.sampled_from(["pass", "free"]),
        "next_dealer": st.sampled_from(["winner", "loser", "alternate"]),
        "big_gin": st.booleans(),
        "variant": st.sampled_from(["standard", "oklahoma", "straight"]),
        "undercut_bonus": st.sampled_from([25, 20, 10]),
        "match_bonuses": st.booleans(),
    },
)


def random_move(m: gin.Match, rng: random.Random) -> dict:
    legal = gin.legal_actions(m)
    enders = [a for a in legal if a["action"] in ("knock", "big_gin")]
    if enders and rng.random() < 0.6:
        return rng.choice(enders)
    if {"action": "draw", "from": "stock"} in legal and rng.random() < 0.7:
        return {"action": "draw", "from": "stock"}
    return rng.choice(legal)


def all_cards_once(m: gin.Match) -> bool:
    r = m.round
    held = cards_of(r.hands[0]) + cards_of(r.hands[1])
    pile = [ALL_CARDS[i] for i in r.discard]
    stock = [ALL_CARDS[i] for i in r.stock[r.stock_pos:]]
    everything = held + pile + stock
    return len(everything) == 52 and set(everything) == set(ALL_CARDS)


@given(seed=st.integers(0, 2**32 - 1), options=OPTIONS)
def test_random_legal_play_always_ends_and_keeps_all_52_cards_once(seed, options):
    rng = random.Random(seed)
    m = gin.new_match(options, rng=rng)
    moves = 0
    while m.phase != "round_over" and not m.over:
        assert all_cards_once(m)
        m = gin.apply_action(m, m.to_act, random_move(m, rng))
        moves += 1
        assert moves <= 2 * gin.DRAW_CAP + 4, "a round must end by the draw cap"
    assert all_cards_once(m)
    assert m.round.summary["result"] in ("knock", "undercut", "gin", "big_gin", "dead")


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), options=OPTIONS, hollywood=st.booleans())
def test_replaying_a_generated_record_reproduces_its_summary(seed, options, hollywood):
    if hollywood:
        options = {**options, "hollywood": True, "target": 50}
    rng = random.Random(seed)
    m = gin.new_match(options, rng=rng)
    rounds = 0
    while not m.over and rounds < 6:
        if m.phase == "round_over":
            m = gin.deal_next_round(m, rng)
            rounds += 1
            continue
        m = gin.apply_action(m, m.to_act, random_move(m, rng))
    if not m.over and m.phase != "round_over" and rng.random() < 0.5:
        m = gin.resign(m, rng.randrange(2))
    record = json.loads(json.dumps(m.record()))
    assert replay_record(record) == json.loads(json.dumps(m.facts()))


@given(seed=st.integers(0, 2**32 - 1), options=OPTIONS)
def test_a_seats_view_never_contains_the_other_hand_or_the_stock(seed, options):
    rng = random.Random(seed)
    m = gin.new_match(options, rng=rng)
    while m.phase != "round_over" and not m.over:
        public = {ALL_CARDS[m.round.upcard]} | {mv["card"] for mv in m.round.moves if "card" in mv}
        stock = {ALL_CARDS[i] for i in m.round.stock[m.round.stock_pos:]}
        for seat in (0, 1, None):
            v = gin.view(m, seat)
            text = json.dumps(v)
            hidden = set(stock)
            if seat is not None:
                hidden |= set(cards_of(m.round.hands[1 - seat])) - public
                assert v["hand"] == cards_of(m.round.hands[seat])
                assert ("legal_actions" in v) == (m.to_act == seat)
            else:
                hidden |= (set(cards_of(m.round.hands[0])) | set(cards_of(m.round.hands[1]))) - public
            assert not [c for c in hidden if f'"{c}"' in text]
        m = gin.apply_action(m, m.to_act, random_move(m, rng))
    # Once the round is over both hands are shown, still never the stock left.
    v = gin.view(m, 0)
    assert v["last_round"]["hands"] == [cards_of(h) for h in m.round.hands]
    assert not [i for i in m.round.stock[m.round.stock_pos:] if f'"{ALL_CARDS[i]}"' in json.dumps(v)]


@given(seed=st.integers(0, 2**32 - 1), options=OPTIONS)
def test_refused_actions_change_nothing_and_timeouts_are_always_legal(seed, options):
    rng = random.Random(seed)
    m = gin.new_match(options, rng=rng)
    while m.phase != "round_over" and not m.over:
        before = m.to_json()
        for bad in ({"action": "discard", "card": rng.choice(ALL_CARDS)}, {"action": "knock", "card": "KS"},
                    {"action": "pass"}, {"action": "big_gin"}, {"action": "draw", "from": "discard"}):
            if bad not in gin.legal_actions(m):
                try:
                    gin.apply_action(m, m.to_act, bad)
                except gin.IllegalAction:
                    pass
                else:
                    raise AssertionError(f"{bad} was applied though not listed as legal")
        assert m.to_json() == before
        timed_out = m
        for action in gin.timeout_actions(m):
            assert action in gin.legal_actions(timed_out) and action["action"] != "knock"
            timed_out = gin.apply_action(timed_out, timed_out.to_act, action)
        m = gin.apply_action(m, m.to_act, random_move(m, rng))
