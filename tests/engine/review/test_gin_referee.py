"""An independent referee's rule cases for the gin engine, written from spec/gin.md, records.md and api.md.

Every case is a full record (deal written out, moves written out) played through the public match
interface of docs/engine.md; the same records are replayed through ``games.engine.records`` and
``manage.py replay``. Property tests check the solver, the knock settlement, match scoring and random play
against independent brute-force referees. An engine bug is kept as a strict xfail naming the rule.
"""

from __future__ import annotations

import functools
import itertools
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.cards import ALL_CARDS
from games.engine.errors import IllegalAction
from games.engine.gin import match as gin
from games.engine.gin.melds import best_melds
from tests import points as outcomes

ROOT = Path(__file__).resolve().parents[3]

# ------------------------------------------------------------------------------------------------
# Building records with the cards written out

#: Ten cards that meld completely: A-4 of clubs, three fives, 9-J of spades.
GIN10 = ["AC", "2C", "3C", "4C", "5D", "5H", "5S", "9S", "TS", "JS"]
#: GIN10 without 4C: nine melded cards, to which each case adds its own deadwood card.
GIN9 = ["AC", "2C", "3C", "5D", "5H", "5S", "9S", "TS", "JS"]
#: No meld at all: 98 points of deadwood.
HIGH98 = ["KD", "KH", "QC", "QH", "JD", "JC", "TD", "TH", "9C", "9H"]
#: Nine melded cards and KS: 10 points of deadwood.
LOW10 = ["6C", "7C", "8C", "6D", "7D", "8D", "6H", "7H", "8H", "KS"]


def P(seat):
    return {"seat": seat, "action": "pass"}


def DS(seat):
    return {"seat": seat, "action": "draw", "from": "stock"}


def DD(seat):
    return {"seat": seat, "action": "draw", "from": "discard"}


def X(seat, card):
    return {"seat": seat, "action": "discard", "card": card}


def K(seat, card):
    return {"seat": seat, "action": "knock", "card": card}


def BG(seat):
    return {"seat": seat, "action": "big_gin"}


def deal(dealer, hands, upcard, stock_top=(), moves=()):
    """A round record: the stock is ``stock_top`` then every other card in deck order (exactly 52 cards)."""
    used = [*hands[0], *hands[1], upcard, *stock_top]
    assert len(hands[0]) == len(hands[1]) == 10 and len(set(used)) == len(used), used
    stock = list(stock_top) + [c for c in ALL_CARDS if c not in used]
    return {"dealer": dealer, "hands": [list(hands[0]), list(hands[1])], "upcard": upcard, "stock": stock,
            "moves": list(moves)}


def knock_round(knocker_hand, defender_hand, *, dealer=0, knocker=1, draw="QD", knock_with=None,
                upcard="2D", first="3D", free=False):
    """Both pass the upcard; the knocker draws ``draw`` from the stock and knocks with ``knock_with``
    (default: the card drawn). When the knocker is the dealer, the non-dealer first draws ``first`` and
    throws it away. ``free``: for first_turn "free", without the passes."""
    knock_with = knock_with or draw
    hands = [None, None]
    hands[knocker] = knocker_hand
    hands[1 - knocker] = defender_hand
    nd = 1 - dealer
    if knocker == nd:
        moves = [P(nd), P(dealer), DS(nd), K(nd, knock_with)]
        top = [draw]
    else:
        moves = [P(nd), P(dealer), DS(nd), X(nd, first), DS(dealer), K(dealer, knock_with)]
        top = [first, draw]
    if free:
        moves = moves[2:]
    return deal(dealer, hands, upcard, top, moves)


def gin_round(*, dealer, winner, loser_hand, free=False):
    """A round won by ``winner`` with gin (GIN10) against ``loser_hand``."""
    return knock_round(GIN10, loser_hand, dealer=dealer, knocker=winner, draw="4D", upcard="3D", first="2D",
                       free=free)


def record(*rounds, **options):
    return {"game": "gin", "options": options, "players": ["anna", "ben"], "rounds": list(rounds)}


def move_action(move):
    return {k: v for k, v in move.items() if k != "seat"}


def play(rec, *, upto=None):
    """The match after playing the record's rounds through the match interface (docs/engine.md)."""
    m = None
    for rnd in rec["rounds"]:
        kwargs = {"dealer": rnd["dealer"], "hands": rnd["hands"], "upcard": rnd["upcard"], "stock": rnd["stock"]}
        if m is None:
            m = gin.match_from_deal(rec["options"], players=rec.get("players"), **kwargs)
        else:
            m = gin.next_round_from_deal(m, **kwargs)
        for move in rnd["moves"][:upto]:
            m = gin.apply_action(m, move["seat"], move_action(move))
    return m


def summary_of(m):
    """The records.md summary of a match: its facts, with the points gin's points (games.kinds.gin.points) add (bonuses, finals)."""
    return outcomes.summary(m.facts())


def result_of(m):
    return outcomes.outcome(m.facts())


def summary(rec):
    return summary_of(play(rec))


def only_round(rec):
    s = summary(rec)
    assert len(s["rounds"]) == 1
    return s["rounds"][0]


def at(rec, moves):
    """The match of a one-round record after its first ``moves`` moves."""
    return play(rec, upto=moves)


def refused(m, seat, action, match=None):
    """The action is refused with IllegalAction and the match is unchanged."""
    before = m.to_json()
    with pytest.raises(IllegalAction, match=match):
        gin.apply_action(m, seat, action)
    assert m.to_json() == before


# ------------------------------------------------------------------------------------------------
# best_melds (api.md)


def test_best_melds_api_example_deadwood_25():
    melds, deadwood = best_melds(["7H", "7S", "7D", "8C", "9C", "TC", "2D", "3S", "KH", "QS"])
    assert deadwood == 25
    assert sorted(map(sorted, melds)) == sorted([sorted(["7H", "7S", "7D"]), sorted(["8C", "9C", "TC"])])


def test_ace_low_only_queen_king_ace_is_no_run():
    _, deadwood = best_melds(["QH", "KH", "AH", "2C", "4C", "6C", "8C", "TD", "3S", "5S"])
    assert deadwood == 10 + 10 + 1 + 2 + 4 + 6 + 8 + 10 + 3 + 5


def test_ace_two_three_is_a_run():
    melds, deadwood = best_melds(["AH", "2H", "3H", "2C", "4C", "6C", "8C", "TD", "3S", "5S"])
    assert ["AH", "2H", "3H"] in [sorted(m, key=ALL_CARDS.index) for m in melds]
    assert deadwood == 2 + 4 + 6 + 8 + 10 + 3 + 5


def test_card_serves_only_one_meld_best_arrangement_chosen():
    # 7H fits the set of sevens and the run 7H 8H 9H: run + three other sevens melds everything.
    _, deadwood = best_melds(["7H", "8H", "9H", "7S", "7D", "7C", "KS", "KD", "KC", "2D"])
    assert deadwood == 2


def test_set_of_four_counts_as_one_meld():
    _, deadwood = best_melds(["7H", "7S", "7D", "7C", "KS", "KD", "KC", "2D", "3D", "4D"])
    assert deadwood == 0


def test_best_melds_eleven_cards_counts_all_eleven():
    _, deadwood = best_melds(GIN10 + ["KD"])
    assert deadwood == 10


@pytest.mark.parametrize("hand", [
    ["7H"] * 10,                                          # duplicates
    GIN10[:9],                                            # nine cards
    GIN10 + ["KD", "QD"],                                 # twelve
    GIN10[:9] + ["1H"],                                   # a bad code
    GIN10[:9] + ["JK"],                                   # no jokers in gin
    GIN10[:9] + [None],
    "AC2C3C4C5D5H5S9STSJS",
])
def test_best_melds_bad_hand_raises_value_error(hand):
    with pytest.raises(ValueError):
        best_melds(hand)


def _all_melds(cards):
    cards = list(cards)
    out = []
    for size in (3, 4):
        for combo in itertools.combinations(cards, size):
            if len({c[0] for c in combo}) == 1:
                out.append(frozenset(combo))
    for suit in "CDHS":
        ranks = sorted("A23456789TJQK".index(c[0]) for c in cards if c[1] == suit)
        have = set(ranks)
        for lo in range(13):
            for hi in range(lo + 2, 13):
                if all(r in have for r in range(lo, hi + 1)):
                    out.append(frozenset("A23456789TJQK"[r] + suit for r in range(lo, hi + 1)))
    return out


def _value(card):
    return min("A23456789TJQK".index(card[0]) + 1, 10)


def _brute_deadwood(cards):
    melds = _all_melds(cards)
    total = sum(_value(c) for c in cards)
    best = total

    def walk(i, used, saved):
        nonlocal best
        best = min(best, total - saved)
        for j in range(i, len(melds)):
            if not melds[j] & used:
                walk(j + 1, used | melds[j], saved + sum(_value(c) for c in melds[j]))

    walk(0, frozenset(), 0)
    return best


#: A meld-rich pool (ranks 3–8 in all suits plus aces and twos) so random hands tangle sets and runs.
_POOL = [r + s for r in "A2345678" for s in "CDHS"]


@given(st.lists(st.sampled_from(_POOL), min_size=10, max_size=11, unique=True))
def test_best_melds_deadwood_equals_brute_force(hand):
    melds, deadwood = best_melds(hand)
    assert deadwood == _brute_deadwood(hand)
    flat = [c for m in melds for c in m]
    assert len(flat) == len(set(flat)) and set(flat) <= set(hand)
    assert all(frozenset(m) in _all_melds(m) for m in melds)
    assert sum(_value(c) for c in hand if c not in flat) == deadwood


# ------------------------------------------------------------------------------------------------
# Options


@pytest.mark.parametrize("options", [
    {"target": 75}, {"first_turn": "maybe"}, {"next_dealer": "oldest"}, {"variant": "hollywood"},
    {"undercut_bonus": 15}, {"gin_bonus": 31}, {"hollywood": True, "target": 0}, {"turn_seconds": 5},
    {"big_gin": "yes"}, {"colour": "red"},
])
def test_bad_option_raises_value_error(options):
    with pytest.raises(ValueError):
        gin.normalize_options(options, seats=2)


def test_options_defaults_are_the_marked_ones():
    o = gin.normalize_options({}, seats=2)
    assert (o["target"], o["first_turn"], o["next_dealer"], o["big_gin"], o["variant"], o["undercut_bonus"],
            o["gin_bonus"], o["match_bonuses"], o["hollywood"], o["turn_seconds"]) == \
        (100, "pass", "winner", False, "standard", 25, 25, True, False, 45)


def test_gin_is_for_two_seats_only():
    with pytest.raises(ValueError):
        gin.normalize_options({}, seats=3)


# ------------------------------------------------------------------------------------------------
# The first turn


FIRST = deal(0, [HIGH98, LOW10], "2D", ["QD", "3D"])


def test_first_turn_pass_non_dealer_offered_upcard_first():
    m = at(record(FIRST), 0)
    assert m.to_act == 1 and m.phase == "first_turn"
    assert sorted(map(str, gin.legal_actions(m))) == sorted(map(str, [
        {"action": "pass"}, {"action": "draw", "from": "discard"}]))


def test_first_turn_pass_stock_draw_refused_on_offer():
    m = at(record(FIRST), 0)
    refused(m, 1, {"action": "draw", "from": "stock"})
    m = at(record(deal(0, [HIGH98, LOW10], "2D", moves=[P(1)])), 1)
    refused(m, 0, {"action": "draw", "from": "stock"})


def test_first_turn_non_dealer_takes_upcard_discards_then_dealer_on_turn():
    rec = record(deal(0, [HIGH98, LOW10], "2D", moves=[DD(1), X(1, "KS")]))
    m = at(rec, 1)
    assert m.to_act == 1 and m.phase == "discard"
    m = at(rec, 2)
    assert m.to_act == 0 and m.phase == "draw"


def test_first_turn_dealer_takes_upcard_after_pass_then_non_dealer_on_turn():
    rec = record(deal(0, [HIGH98, LOW10], "2D", moves=[P(1), DD(0), X(0, "KD")]))
    m = at(rec, 1)
    assert m.to_act == 0
    m = at(rec, 2)
    assert m.to_act == 0 and m.phase == "discard"
    m = at(rec, 3)
    assert m.to_act == 1 and m.phase == "draw"
    assert {"action": "draw", "from": "discard"} in gin.legal_actions(m)  # KD may be taken now


def test_first_turn_both_pass_non_dealer_must_draw_from_stock():
    m = at(record(deal(0, [HIGH98, LOW10], "2D", moves=[P(1), P(0)])), 2)
    assert m.to_act == 1
    assert gin.legal_actions(m) == [{"action": "draw", "from": "stock"}]
    refused(m, 1, {"action": "draw", "from": "discard"})
    refused(m, 1, {"action": "pass"})
    refused(m, 0, {"action": "draw", "from": "stock"})


def test_first_turn_both_pass_then_play_goes_on_normally():
    rec = record(deal(0, [HIGH98, LOW10], "2D", ["QD"], moves=[P(1), P(0), DS(1), X(1, "QD")]))
    m = at(rec, 4)
    assert m.to_act == 0 and m.phase == "draw"
    assert {"action": "draw", "from": "discard"} in gin.legal_actions(m)


def test_first_turn_free_non_dealer_starts_a_normal_turn():
    m = at(record(deal(0, [HIGH98, LOW10], "2D"), first_turn="free"), 0)
    assert m.to_act == 1
    actions = gin.legal_actions(m)
    assert {"action": "draw", "from": "stock"} in actions and {"action": "draw", "from": "discard"} in actions
    assert {"action": "pass"} not in actions
    refused(m, 1, {"action": "pass"})


def test_pass_refused_outside_first_turn():
    m = at(record(deal(0, [HIGH98, LOW10], "2D", ["QD"], moves=[P(1), P(0), DS(1), X(1, "QD")])), 4)
    refused(m, 0, {"action": "pass"})


def test_out_of_turn_and_malformed_actions_refused():
    m = at(record(FIRST), 0)
    refused(m, 0, {"action": "pass"})
    for bad in [{"action": "fly"}, {"action": "draw"}, {"action": "draw", "from": "sky"}, "pass", None,
                {"action": "pass", "card": "KD"}]:
        with pytest.raises(ValueError):
            gin.apply_action(m, 1, bad)
    with pytest.raises(ValueError):
        gin.apply_action(m, 2, {"action": "pass"})


# ------------------------------------------------------------------------------------------------
# A turn: the card just taken, the knock limit


def test_card_just_taken_from_pile_cannot_be_discarded():
    m = at(record(deal(0, [HIGH98, LOW10], "2D", moves=[DD(1)])), 1)
    refused(m, 1, {"action": "discard", "card": "2D"}, match="2D")
    assert {"action": "discard", "card": "2D"} not in gin.legal_actions(m)


def test_card_just_taken_from_pile_cannot_be_knocked_with():
    # GIN10 takes the upcard KD: knocking with KD would be gin, and is refused; knocking with 4C is fine.
    rec = record(deal(0, [HIGH98[1:] + ["KS"], GIN10], "QS", moves=[DD(1)]))
    m = at(rec, 1)
    refused(m, 1, {"action": "knock", "card": "QS"})
    assert {"action": "knock", "card": "QS"} not in gin.legal_actions(m)
    m2 = gin.apply_action(m, 1, {"action": "knock", "card": "AC"})  # 2C-4C, the fives, 9S-QS: gin
    assert summary_of(m2)["rounds"][0]["result"] == "gin"


def test_card_drawn_from_stock_may_be_discarded_at_once():
    s = at(record(deal(0, [HIGH98, LOW10], "2D", ["QD"], moves=[P(1), P(0), DS(1), X(1, "QD")])), 4)
    assert s.to_act == 0


def test_card_drawn_from_stock_may_be_knocked_with():
    r = only_round(record(gin_round(dealer=0, winner=1, loser_hand=HIGH98)))
    assert r["result"] == "gin" and r["knocker"] == 1


def test_knock_within_limit_ten_allowed_on_very_first_turn():
    # GIN9 + TC = 10 deadwood, exactly the limit.
    rec = record(knock_round(GIN9 + ["TC"], HIGH98))
    r = only_round(rec)
    assert r["result"] == "knock" and r["points"] == 98 - 10 and r["deadwood"] == [98, 10]


def test_knock_above_limit_refused_and_turn_goes_on():
    # GIN9 + TC, QD drawn: knocking QD leaves 10 (fine); knocking AC breaks AC-3C and leaves 25.
    rec = record(knock_round(GIN9 + ["TC"], HIGH98, knock_with="AC"))
    m = at(rec, 3)
    refused(m, 1, {"action": "knock", "card": "AC"}, match="limit")
    assert m.to_act == 1 and m.phase == "discard"
    assert {"action": "knock", "card": "QD"} in gin.legal_actions(m)
    assert {"action": "knock", "card": "AC"} not in gin.legal_actions(m)


def test_discard_of_card_not_held_refused():
    m = at(record(deal(0, [HIGH98, LOW10], "2D", moves=[DD(1)])), 1)
    refused(m, 1, {"action": "discard", "card": "AS"})
    refused(m, 1, {"action": "discard", "card": "ZZ"})


# ------------------------------------------------------------------------------------------------
# Settling: knock, undercut, gin, big gin


def test_knock_winner_gets_defender_minus_knocker_deadwood():
    r = only_round(record(knock_round(GIN9 + ["4H"], HIGH98)))
    assert (r["result"], r["knocker"], r["winner"], r["points"], r["deadwood"]) == ("knock", 1, 1, 94, [98, 4])
    assert r["layoffs"] == []


DEF4 = ["6C", "7C", "8C", "6D", "7D", "8D", "6H", "7H", "8H", "4S"]  # 4 deadwood, nothing to lay off


def test_undercut_on_tie_defender_gets_bonus():
    r = only_round(record(knock_round(GIN9 + ["4H"], DEF4)))
    assert (r["result"], r["knocker"], r["winner"], r["points"], r["deadwood"]) == ("undercut", 1, 0, 25, [4, 4])


def test_undercut_defender_below_knocker():
    d1 = DEF4[:9] + ["AD"]
    r = only_round(record(knock_round(GIN9 + ["4H"], d1)))
    assert (r["result"], r["winner"], r["points"]) == ("undercut", 0, 4 - 1 + 25)


@pytest.mark.parametrize("bonus", [20, 10])
def test_undercut_bonus_option(bonus):
    r = only_round(record(knock_round(GIN9 + ["4H"], DEF4), undercut_bonus=bonus))
    assert (r["result"], r["points"]) == ("undercut", bonus)


def test_gin_is_a_knock_with_zero_deadwood():
    r = only_round(record(gin_round(dealer=0, winner=1, loser_hand=HIGH98)))
    assert (r["result"], r["winner"], r["points"], r["deadwood"]) == ("gin", 1, 98 + 25, [98, 0])


def test_gin_bonus_option_20():
    r = only_round(record(gin_round(dealer=0, winner=1, loser_hand=HIGH98), gin_bonus=20))
    assert r["points"] == 98 + 20


def test_gin_by_the_dealer():
    r = only_round(record(gin_round(dealer=0, winner=0, loser_hand=LOW10)))
    assert (r["result"], r["knocker"], r["winner"], r["points"]) == ("gin", 0, 0, 35)


def test_gin_against_defender_with_zero_deadwood_still_wins():
    defender = ["6C", "7C", "8C", "9C", "6D", "7D", "8D", "6H", "7H", "8H"]
    r = only_round(record(gin_round(dealer=0, winner=1, loser_hand=defender)))
    assert (r["result"], r["winner"], r["points"], r["deadwood"]) == ("gin", 1, 25, [0, 0])


def test_no_layoffs_against_gin():
    # 5C would lay off on the fives or on AC-4C; against gin it stays deadwood.
    defender = ["5C", "6D", "7D", "8D", "6H", "7H", "8H", "KC", "KD", "KH"]
    r = only_round(record(gin_round(dealer=0, winner=1, loser_hand=defender)))
    assert (r["result"], r["points"], r["deadwood"], r["layoffs"]) == ("gin", 30, [5, 0], [])


BIG = deal(0, [HIGH98, GIN10], "2D", ["QS"], [P(1), P(0), DS(1), BG(1)])


def test_big_gin_with_option_scores_defender_deadwood_plus_31():
    r = only_round(record(BIG, big_gin=True))
    assert (r["result"], r["knocker"], r["winner"], r["points"]) == ("big_gin", 1, 1, 98 + 31)


def test_big_gin_refused_without_option():
    m = at(record(BIG), 3)
    assert {"action": "big_gin"} not in gin.legal_actions(m)
    refused(m, 1, {"action": "big_gin"})


def test_big_gin_refused_unless_all_eleven_meld():
    rec = record(deal(0, [HIGH98[1:] + ["KS"], GIN10], "2D", ["KD"], [P(1), P(0), DS(1)]), big_gin=True)
    m = at(rec, 3)
    assert {"action": "big_gin"} not in gin.legal_actions(m)
    refused(m, 1, {"action": "big_gin"})


def test_big_gin_player_may_still_knock_gin_instead():
    rec = record(deal(0, [HIGH98, GIN10], "2D", ["QS"], [P(1), P(0), DS(1), K(1, "QS")]), big_gin=True)
    r = only_round(rec)
    assert (r["result"], r["points"]) == ("gin", 98 + 25)


# ------------------------------------------------------------------------------------------------
# Lay-offs


def test_layoff_set_grows_to_four():
    # Knocker spreads 5D 5H 5S; the defender's 5C goes on it.
    defender = ["5C", "6D", "7D", "8D", "6H", "7H", "8H", "KC", "KD", "KS"]
    r = only_round(record(knock_round(GIN9 + ["4H"], defender)))
    assert (r["result"], r["winner"], r["points"], r["deadwood"], r["layoffs"]) == \
        ("undercut", 0, 4 + 25, [0, 4], ["5C"])


def test_layoff_chain_up_and_down_on_a_run():
    # 4H 5H 6H spread: 7H then 8H go up, 3H then 2H go down.
    knocker = ["4H", "5H", "6H", "KC", "KD", "KS", "9S", "TS", "JS", "AD"]
    defender = ["2H", "3H", "7H", "8H", "6C", "6D", "6S", "QC", "QH", "9C"]
    r = only_round(record(knock_round(knocker, defender)))
    assert (r["result"], r["points"], r["deadwood"]) == ("knock", 29 - 1, [29, 1])
    assert sorted(r["layoffs"]) == sorted(["2H", "3H", "7H", "8H"])


def test_layoff_needs_an_unbroken_chain():
    # 8H without 7H cannot go on 4H 5H 6H.
    knocker = ["4H", "5H", "6H", "KC", "KD", "KS", "9S", "TS", "JS", "AD"]
    defender = ["8H", "2C", "6C", "6D", "6S", "QC", "QH", "9C", "3D", "4D"]
    r = only_round(record(knock_round(knocker, defender)))
    assert r["layoffs"] == [] and r["deadwood"] == [8 + 2 + 20 + 9 + 3 + 4, 1]


def test_layoff_ace_low_onto_two_three_four_and_down_onto_jack():
    knocker = ["2H", "3H", "4H", "JD", "QD", "KD", "7C", "7S", "7D", "AS"]
    defender = ["AH", "KC", "TD", "9D", "5C", "5H", "5S", "8C", "8H", "8S"]
    r = only_round(record(knock_round(knocker, defender, draw="8D")))
    assert sorted(r["layoffs"]) == sorted(["AH", "TD", "9D"])
    assert (r["result"], r["points"], r["deadwood"]) == ("knock", 9, [10, 1])


def test_layoff_ace_never_after_king():
    knocker = ["JH", "QH", "KH", "2C", "3C", "4C", "6S", "6D", "6C", "AS"]
    defender = ["AH", "5D", "5H", "5S", "8C", "8D", "8S", "TC", "TD", "TS"]
    r = only_round(record(knock_round(knocker, defender)))
    assert (r["result"], r["winner"], r["points"], r["deadwood"], r["layoffs"]) == \
        ("undercut", 0, 25, [1, 1], [])


def test_defender_card_used_in_layoff_when_that_leaves_less():
    # Own run 7H 8H 9H leaves 9C 9D (18); laying 7H 8H off and melding 9H 9C 9D leaves only 2S 3S.
    knocker = ["4H", "5H", "6H", "KC", "KD", "KS", "AC", "2C", "3C", "AD"]
    defender = ["7H", "8H", "9H", "9C", "9D", "QS", "QD", "QC", "2S", "3S"]
    r = only_round(record(knock_round(knocker, defender, draw="JD")))
    assert (r["result"], r["points"], r["deadwood"]) == ("knock", 4, [5, 1])
    assert sorted(r["layoffs"]) == ["7H", "8H"]


def test_defender_card_kept_in_own_meld_when_that_leaves_less():
    # Laying 7H off on 4H-6H would break the defender's set of sevens.
    knocker = ["4H", "5H", "6H", "KC", "KD", "KS", "AC", "2C", "3C", "AD"]
    defender = ["7H", "7C", "7D", "QS", "QD", "QC", "2S", "3S", "9C", "TC"]
    r = only_round(record(knock_round(knocker, defender, draw="JD")))
    assert (r["result"], r["points"], r["deadwood"], r["layoffs"]) == ("knock", 23, [24, 1], [])


def test_knocker_spread_avoids_undercut_with_more_deadwood():
    # Spreading 4H-7H (deadwood 4) lets 3H and 2H go: defender 4, an undercut. Spreading 5H-7H and keeping
    # 4H (deadwood 8) blocks them: defender 9, a knock for 1. The server picks the knocker's better result.
    knocker = ["4H", "5H", "6H", "7H", "JC", "JD", "JS", "AC", "AD", "2S"]
    defender = ["2H", "3H", "4D", "7C", "8C", "9C", "TC", "QD", "QH", "QS"]
    r = only_round(record(knock_round(knocker, defender, draw="KC")))
    assert (r["result"], r["winner"], r["points"], r["deadwood"], r["layoffs"]) == \
        ("knock", 1, 1, [9, 8], [])
    assert ["5H", "6H", "7H"] in r["melds"][1]


def test_knocker_spread_tie_goes_to_lower_knocker_deadwood():
    # Run 2H-4H (keep 4C 4D = 8; AH laid off) and set 4C 4D 4H (keep 2H 3H = 5; 4S laid off) both give 16.
    knocker = ["2H", "3H", "4H", "4C", "4D", "9S", "TS", "JS", "QS", "KS"]
    defender = ["AH", "4S", "6C", "6D", "6H", "KC", "KD", "KH", "QC", "QD"]
    r = only_round(record(knock_round(knocker, defender, draw="8C")))
    assert (r["result"], r["points"], r["deadwood"], r["layoffs"]) == ("knock", 16, [21, 5], ["4S"])


# ------------------------------------------------------------------------------------------------
# Variants


def test_oklahoma_knock_limit_is_upcard_value():
    # Upcard 7D: GIN9 + 7C may knock with QD (7 left); knocking 7C keeps QD (10) and is refused.
    rec = record(knock_round(GIN9 + ["7C"], HIGH98, upcard="7D"), variant="oklahoma")
    m = at(rec, 3)
    refused(m, 1, {"action": "knock", "card": "7C"}, match="7")
    r = only_round(rec)
    assert (r["result"], r["points"]) == ("knock", 98 - 7)


def test_oklahoma_face_card_upcard_limit_ten():
    r = only_round(record(knock_round(GIN9 + ["TC"], HIGH98, upcard="JH"), variant="oklahoma"))
    assert (r["result"], r["points"]) == ("knock", 88)


def test_oklahoma_ace_upcard_gin_only():
    rec = record(knock_round(GIN9 + ["AH"], HIGH98, upcard="AD"), variant="oklahoma")
    refused(at(rec, 3), 1, {"action": "knock", "card": "QD"})


def _oklahoma_ace_gin():
    rnd = knock_round(GIN10, HIGH98, upcard="AD", draw="4D")
    return record(rnd, variant="oklahoma")


def test_oklahoma_ace_upcard_gin_allowed():
    r = only_round(_oklahoma_ace_gin())
    assert (r["result"], r["points"]) == ("gin", 98 + 25)


def test_oklahoma_spade_upcard_doubles_knock_points():
    r = only_round(record(knock_round(GIN9 + ["4H"], HIGH98, upcard="8S"), variant="oklahoma"))
    assert (r["result"], r["points"]) == ("knock", 2 * 94)


def test_oklahoma_spade_upcard_doubles_undercut_points_not_bonus():
    d1 = DEF4[:9] + ["AD"]
    r = only_round(record(knock_round(GIN9 + ["4H"], d1, upcard="8S"), variant="oklahoma"))
    assert (r["result"], r["points"]) == ("undercut", 2 * 3 + 25)


def test_oklahoma_spade_upcard_doubles_gin_points_not_bonus():
    rnd = knock_round(GIN10, HIGH98, upcard="8S", draw="4D")
    r = only_round(record(rnd, variant="oklahoma"))
    assert (r["result"], r["points"]) == ("gin", 2 * 98 + 25)


def test_oklahoma_non_spade_upcard_no_doubling():
    r = only_round(record(knock_round(GIN9 + ["4H"], HIGH98, upcard="8D"), variant="oklahoma"))
    assert r["points"] == 94


def test_oklahoma_limit_set_by_first_upcard_not_later_pile_top():
    # Upcard 3D (limit 3) is taken; later the pile's top is KS. Seat 1 holds GIN9 + 3D + 4H (4H just
    # taken): knocking 3D leaves 4, above the first upcard's limit 3 (the pile's KS would allow 10).
    hand = GIN9 + ["KS"]
    rnd = deal(0, [HIGH98, hand], "3D", ["4H", "QD"],
               [DD(1), X(1, "KS"), DS(0), X(0, "4H"), DD(1)])
    m = at(record(rnd, variant="oklahoma"), 5)
    refused(m, 1, {"action": "knock", "card": "3D"})
    refused(m, 1, {"action": "knock", "card": "AC"})
    assert [a for a in gin.legal_actions(m) if a["action"] == "knock"] == []


def test_oklahoma_second_round_uses_its_own_upcard():
    r1 = gin_round(dealer=0, winner=1, loser_hand=LOW10)  # upcard 3D, 35 points
    r2 = knock_round(GIN9 + ["7C"], HIGH98, dealer=1, knocker=0, upcard="8D", draw="QD", first="2D")
    s = summary(record(r1, r2, variant="oklahoma"))
    assert s["rounds"][1]["result"] == "knock" and s["rounds"][1]["points"] == 91


def test_straight_gin_knock_refused():
    rec = record(knock_round(GIN9 + ["AH"], HIGH98), variant="straight")
    m = at(rec, 3)
    refused(m, 1, {"action": "knock", "card": "QD"})
    assert [a for a in gin.legal_actions(m) if a["action"] == "knock"] == []


def test_straight_gin_gin_allowed():
    r = only_round(record(gin_round(dealer=0, winner=1, loser_hand=HIGH98), variant="straight"))
    assert (r["result"], r["points"]) == ("gin", 123)


def test_straight_gin_big_gin_with_option():
    r = only_round(record(BIG, variant="straight", big_gin=True))
    assert (r["result"], r["points"]) == ("big_gin", 129)


# ------------------------------------------------------------------------------------------------
# Dead rounds


def _stock_race(*, knock_at_end=False, extra_moves=()):
    """Free first turn; both draw from the stock and throw the card drawn away, 29 draws."""
    knocker = GIN9 + ["TC"]  # seat 1, could knock any time
    moves = []
    rnd = deal(0, [HIGH98, knocker], "2D", ())
    stock = rnd["stock"]
    for i in range(29):
        seat = 1 if i % 2 == 0 else 0
        moves.append(DS(seat))
        if i == 28 and knock_at_end:
            moves.append(K(seat, stock[i]))
        else:
            moves.append(X(seat, stock[i]))
    rnd["moves"] = moves + list(extra_moves)
    return rnd


def test_dead_round_when_plain_discard_leaves_two_in_stock():
    rec = record(_stock_race(), target=0, first_turn="free")
    m = play(rec, upto=56)  # 28 draws, 28 discards: 3 left, still alive
    assert m.round.phase == "draw" and gin.view(m, None)["stock_size"] == 3
    m = play(rec)
    s = summary_of(m)
    r = s["rounds"][0]
    assert (r["result"], r["knocker"], r["winner"], r["points"], r["deadwood"]) == ("dead", None, None, 0, None)
    assert not m.over and s["winner"] is None and s["totals"] == [0, 0] and s["boxes"] == [0, 0]


def test_third_to_last_card_drawer_may_still_knock():
    r = only_round(record(_stock_race(knock_at_end=True), target=0, first_turn="free"))
    assert r["result"] == "knock" and r["knocker"] == 1


def test_dead_round_same_dealer_deals_again():
    m = play(record(_stock_race(), next_dealer="alternate", first_turn="free"))
    assert gin.deal_next_round(m, random.Random(1)).dealer == 0
    other = deal(1, [HIGH98, LOW10], "2D")
    with pytest.raises(ValueError):
        gin.next_round_from_deal(m, dealer=1, hands=other["hands"], upcard="2D", stock=other["stock"])


def test_dead_round_does_not_count_for_target_zero():
    rec = record(_stock_race(), gin_round(dealer=0, winner=0, loser_hand=LOW10, free=True), target=0, first_turn="free")
    s = summary(rec)
    assert [r["result"] for r in s["rounds"]] == ["dead", "gin"]
    assert s["winner"] == 0 and s["final"] == [35, 0]


def _swap_loop(draws):
    """Free first turn: each player takes the pile's top and throws back what they took the turn before."""
    moves = []
    top = "2D"
    last = {1: "KS", 0: "KD"}  # what each throws on their first turn
    for i in range(draws):
        seat = 1 if i % 2 == 0 else 0
        moves += [DD(seat), X(seat, last[seat])]
        last[seat], top = top, last[seat]
    return deal(0, [HIGH98, LOW10], "2D", (), moves)


def test_dead_round_after_200_draws():
    rnd = _swap_loop(200)
    rnd0 = dict(rnd, moves=rnd["moves"][:398])
    m = play(record(rnd0, first_turn="free"))
    assert m.round.phase == "draw" and not m.round.summary  # 199 draws: still alive
    r = only_round(record(rnd, first_turn="free"))
    assert r["result"] == "dead"


# ------------------------------------------------------------------------------------------------
# Dealers, target and match bonuses


@pytest.mark.parametrize(("rule", "dealer"), [("winner", 0), ("loser", 1), ("alternate", 1)])
def test_next_dealer_option(rule, dealer):
    m = play(record(gin_round(dealer=0, winner=0, loser_hand=LOW10), next_dealer=rule))
    assert gin.deal_next_round(m, random.Random(3)).dealer == dealer
    other = deal(1 - dealer, [HIGH98, LOW10], "2D")
    with pytest.raises(ValueError):
        gin.next_round_from_deal(m, dealer=1 - dealer, hands=other["hands"], upcard="2D", stock=other["stock"])


def test_next_dealer_winner_when_non_dealer_wins():
    m = play(record(gin_round(dealer=0, winner=1, loser_hand=LOW10)))
    assert gin.deal_next_round(m, random.Random(3)).dealer == 1


def test_target_zero_one_scored_round_decides_no_bonuses():
    s = summary(record(gin_round(dealer=0, winner=1, loser_hand=LOW10), target=0))
    assert (s["winner"], s["totals"], s["final"], s["boxes"]) == (1, [0, 35], [0, 35], [0, 1])


def test_unfinished_match_winner_null_final_equals_totals():
    s = summary(record(gin_round(dealer=0, winner=1, loser_hand=LOW10)))
    assert (s["winner"], s["totals"], s["final"], s["boxes"]) == (None, [0, 35], [0, 35], [0, 1])


def test_match_ends_the_moment_target_reached_shutout_doubles_game_bonus():
    rec = record(gin_round(dealer=0, winner=1, loser_hand=HIGH98))
    m = play(rec)
    s = summary_of(m)
    assert m.over and (s["winner"], s["totals"], s["final"]) == (1, [0, 123], [0, 123 + 25 + 200])
    with pytest.raises(ValueError):
        gin.deal_next_round(m, random.Random(1))
    assert gin.legal_actions(m) == [] and m.to_act is None


def test_match_bonuses_box_per_round_won_no_shutout():
    r1 = gin_round(dealer=0, winner=1, loser_hand=LOW10)     # seat 1: 35
    r2 = gin_round(dealer=1, winner=0, loser_hand=HIGH98)    # seat 0: 123, reaches 100
    s = summary(record(r1, r2))
    assert (s["winner"], s["totals"], s["boxes"], s["final"]) == (0, [123, 35], [1, 1], [123 + 25 + 100, 35 + 25])


def test_match_bonuses_off():
    r1 = gin_round(dealer=0, winner=1, loser_hand=LOW10)
    r2 = gin_round(dealer=1, winner=0, loser_hand=HIGH98)
    s = summary(record(r1, r2, match_bonuses=False))
    assert (s["winner"], s["final"]) == (0, [123, 35])


def test_match_not_over_below_target():
    r1 = gin_round(dealer=0, winner=1, loser_hand=HIGH98)
    m = play(record(r1, target=150))
    assert not m.over and summary_of(m)["winner"] is None


DEF0 = ["6D", "7D", "8D", "9D", "6H", "7H", "8H", "KC", "KD", "KS"]


def test_undercut_taking_defender_past_target_wins_for_defender():
    r1 = knock_round(GIN9 + ["TC"], DEF0, dealer=0, knocker=1)          # seat 0 undercuts: 35
    r2 = knock_round(GIN9 + ["TC"], DEF0, dealer=0, knocker=1)          # winner deals: seat 0 again
    s = summary(record(r1, r2, target=50))
    assert [r["result"] for r in s["rounds"]] == ["undercut", "undercut"]
    assert (s["winner"], s["totals"], s["boxes"], s["final"]) == (0, [70, 0], [2, 0], [70 + 50 + 200, 0])


def test_move_after_match_over_refused():
    m = play(record(gin_round(dealer=0, winner=1, loser_hand=HIGH98)))
    with pytest.raises(ValueError):
        gin.apply_action(m, 0, {"action": "pass"})


# ------------------------------------------------------------------------------------------------
# Hollywood


def _hollywood_rounds():
    return [
        gin_round(dealer=0, winner=0, loser_hand=LOW10),    # seat 0 first win: col 1        35
        gin_round(dealer=0, winner=1, loser_hand=LOW10),    # seat 1 first win: col 1        35
        gin_round(dealer=1, winner=0, loser_hand=HIGH98),   # seat 0 second: cols 1-2       123 (both finish)
        gin_round(dealer=0, winner=1, loser_hand=HIGH98),   # seat 1 second: cols 1-2 finished: nothing
        gin_round(dealer=1, winner=1, loser_hand=HIGH98),   # seat 1 third: col 3 (finishes)
    ]


def test_hollywood_columns_entries_bonuses_and_final():
    rounds = _hollywood_rounds()
    m = play(record(*rounds[:3], target=50, hollywood=True))
    # col 1: 158-35, boxes 2-1, seat 0 wins: +150 / +25; col 2: 123-0 shutout: +225; col 3 empty.
    assert not m.over and summary_of(m)["final"] == [308 + 348, 60] and summary_of(m)["winner"] is None
    m = play(record(*rounds[:4], target=50, hollywood=True))
    assert not m.over and summary_of(m)["final"] == [656, 60]
    m = play(record(*rounds, target=50, hollywood=True))
    s = summary_of(m)
    assert m.over and s["winner"] == 0 and s["final"] == [656, 408]
    assert s["totals"] == [158, 281] and s["boxes"] == [2, 3]


def test_hollywood_needs_target():
    with pytest.raises(ValueError):
        gin.normalize_options({"hollywood": True, "target": 0})


# ------------------------------------------------------------------------------------------------
# Timeout and resign


def test_timeout_on_first_turn_offer_passes():
    m = at(record(FIRST), 0)
    assert gin.timeout_actions(m) == [{"action": "pass"}]
    m = at(record(deal(0, [HIGH98, LOW10], "2D", moves=[P(1)])), 1)
    assert gin.timeout_actions(m) == [{"action": "pass"}]


def test_timeout_draws_from_stock_and_discards_to_least_deadwood_never_knocks():
    # Seat 1 could knock gin with the KS drawn (GIN10 + KS): the timeout only discards it.
    rec = record(deal(0, [HIGH98, GIN10], "2D", ["KS"], [P(1), P(0)]))
    m = at(rec, 2)
    acts = gin.timeout_actions(m)
    assert acts == [{"action": "draw", "from": "stock"}, {"action": "discard", "card": "KS"}]


def test_timeout_after_both_pass_draws_from_stock():
    m = at(record(deal(0, [HIGH98, LOW10], "2D", ["QS"], [P(1), P(0)])), 2)
    assert gin.timeout_actions(m)[0] == {"action": "draw", "from": "stock"}


def test_timeout_never_discards_the_card_just_taken():
    # GIN9 + 2H takes KD from the pile: KD would be the best throw, but it was just taken; 2H goes.
    rec = record(deal(0, [HIGH98[1:] + ["KS"], GIN9 + ["2H"]], "KD", (), [DD(1)]))
    m = at(rec, 1)
    assert gin.timeout_actions(m) == [{"action": "discard", "card": "2H"}]


def test_timeout_when_drawn_but_not_discarded_only_discards():
    rec = record(deal(0, [HIGH98, GIN9 + ["2H"]], "2D", ["KC"], [P(1), P(0), DS(1)]))
    m = at(rec, 3)
    assert gin.timeout_actions(m) == [{"action": "discard", "card": "KC"}]


def test_resign_other_player_wins_with_bonuses():
    m = play(record(gin_round(dealer=0, winner=1, loser_hand=LOW10)))   # seat 1 35, target 100
    m = gin.deal_next_round(m, random.Random(5))
    out = gin.resign(m, 0)
    assert out.over and result_of(out)["winner"] == 1 and result_of(out)["final"] == [0, 35 + 25 + 200]
    out = gin.resign(m, 1)
    assert out.over and result_of(out)["winner"] == 0 and result_of(out)["final"] == [100, 35 + 25]


def test_resign_target_zero_no_bonuses():
    m = at(record(FIRST, target=0), 0)
    out = gin.resign(m, 1)
    assert result_of(out)["winner"] == 0 and result_of(out)["final"] == [0, 0]


def test_resign_after_match_over_refused():
    m = play(record(gin_round(dealer=0, winner=1, loser_hand=HIGH98)))
    with pytest.raises(ValueError):
        gin.resign(m, 0)


# ------------------------------------------------------------------------------------------------
# Views: hidden information


def _strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(obj, list | tuple):
        for v in obj:
            yield from _strings(v)


VIEW_REC = record(deal(0, [HIGH98, LOW10], "2D", ["QD", "3D"], [P(1), P(0), DS(1), X(1, "KS"), DS(0)]))


@pytest.mark.parametrize("moves", range(6))
def test_view_never_shows_other_hand_or_stock(moves):
    m = at(VIEW_REC, moves)
    rnd = VIEW_REC["rounds"][0]
    public = {"2D"} | {mv["card"] for mv in rnd["moves"][:moves] if "card" in mv}
    hands, stock_left = _round_cards(m)
    for seat in (None, 0, 1):
        v = gin.view(m, seat)
        json.dumps(v)
        seen = set(_strings(v)) & set(ALL_CARDS)
        allowed = public | (hands[seat] if seat is not None else set())
        assert seen <= allowed, (seat, seen - allowed)
        assert not seen & stock_left
        if seat is None:
            assert "hand" not in v
        else:
            assert sorted(v["hand"]) == sorted(hands[seat])
        assert ("legal_actions" in v) == (seat is not None and seat == m.to_act)


def test_next_round_not_dealt_while_round_in_play():
    m = at(VIEW_REC, 2)
    with pytest.raises(ValueError):
        gin.deal_next_round(m, random.Random(1))


def test_view_of_acting_seat_lists_its_legal_actions():
    m = at(VIEW_REC, 2)
    assert gin.view(m, 1)["legal_actions"] == gin.legal_actions(m)


# ------------------------------------------------------------------------------------------------
# Replay (records.md)

REPLAY_CASES = {
    "knock": record(knock_round(GIN9 + ["4H"], HIGH98)),
    "undercut_tie": record(knock_round(GIN9 + ["4H"], DEF4)),
    "gin": record(gin_round(dealer=0, winner=1, loser_hand=HIGH98), target=150),
    "spread_avoids_undercut": record(knock_round(
        ["4H", "5H", "6H", "7H", "JC", "JD", "JS", "AC", "AD", "2S"],
        ["2H", "3H", "4D", "7C", "8C", "9C", "TC", "QD", "QH", "QS"], draw="KC")),
    "big_gin": record(BIG, big_gin=True),
    "dead_then_gin": record(_stock_race(), gin_round(dealer=0, winner=0, loser_hand=LOW10, free=True), target=0,
                            first_turn="free"),
    "two_rounds": record(gin_round(dealer=0, winner=1, loser_hand=LOW10),
                         gin_round(dealer=1, winner=0, loser_hand=HIGH98)),
    "hollywood": record(*_hollywood_rounds(), target=50, hollywood=True),
    "oklahoma_spade": record(knock_round(GIN9 + ["4H"], HIGH98, upcard="8S"), variant="oklahoma"),
}

SUMMARY_KEYS = ("totals", "boxes", "final", "winner")
ROUND_KEYS = ("result", "knocker", "winner", "points", "deadwood")


@pytest.mark.parametrize("name", sorted(REPLAY_CASES))
def test_replay_summary_matches_rules(name):
    rec = REPLAY_CASES[name]
    got = outcomes.replay(json.loads(json.dumps(rec)))
    want = summary(rec)
    assert {k: got[k] for k in SUMMARY_KEYS} == {k: want[k] for k in SUMMARY_KEYS}
    assert [{k: r[k] for k in ROUND_KEYS} for r in got["rounds"]] == \
        [{k: r[k] for k in ROUND_KEYS} for r in want["rounds"]]
    for r in got["rounds"]:
        assert isinstance(r["melds"], list) and isinstance(r["layoffs"], list)


def _bad_records():
    good = REPLAY_CASES["two_rounds"]
    cases = {}
    r = json.loads(json.dumps(good))
    r["rounds"][0]["stock"][5] = r["rounds"][0]["hands"][0][0]        # a duplicate: not the 52 cards
    cases["duplicate card in deal"] = (r, 1)
    r = json.loads(json.dumps(good))
    r["rounds"][0]["stock"].pop()                                     # 51 cards
    cases["short stock"] = (r, 1)
    r = json.loads(json.dumps(good))
    r["rounds"][1]["dealer"] = 0                                      # seat 1 won round 1: seat 1 deals
    cases["wrong dealer round 2"] = (r, 2)
    r = json.loads(json.dumps(good))
    r["rounds"][0]["moves"][2] = DD(1)                                # both passed: stock only
    cases["discard draw after both passed"] = (r, 1)
    r = json.loads(json.dumps(REPLAY_CASES["gin"]))
    r["options"]["target"] = 100                                      # 123 ends the match in round 1
    r["rounds"].append(gin_round(dealer=1, winner=1, loser_hand=LOW10))
    cases["round after match over"] = (r, 2)
    r = json.loads(json.dumps(REPLAY_CASES["knock"]))
    r["rounds"][0]["moves"] = r["rounds"][0]["moves"][:3]             # stops mid-turn
    cases["incomplete round"] = (r, 1)
    r = json.loads(json.dumps(REPLAY_CASES["knock"]))
    r["rounds"][0]["moves"].append(DS(0))                             # a move after the knock
    cases["move after knock"] = (r, 1)
    r = json.loads(json.dumps(REPLAY_CASES["knock"]))
    r["rounds"][0]["moves"][3] = K(1, "AC")                           # over the limit
    cases["knock over limit"] = (r, 1)
    r = json.loads(json.dumps(REPLAY_CASES["knock"]))
    r["options"]["target"] = 7
    cases["bad option"] = (r, None)
    return cases


BAD = _bad_records()


@pytest.mark.parametrize("name", sorted(BAD))
def test_replay_refuses_illegal_record(name):
    from games.engine.records import replay_record

    rec, round_number = BAD[name]
    with pytest.raises(ValueError) as info:
        replay_record(rec)
    if round_number is not None:
        assert f"round {round_number}" in str(info.value).lower()


def _manage_replay(rec, path="-"):
    return subprocess.run([sys.executable, "manage.py", "replay", str(path)], input=json.dumps(rec), cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_manage_replay_prints_summary_exit_zero(tmp_path):
    rec = REPLAY_CASES["two_rounds"]
    (tmp_path / "match.json").write_text(json.dumps(rec))
    out = _manage_replay({}, tmp_path / "match.json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["final"] == [123 + 25 + 100, 35 + 25] and got["winner"] == 0


def test_manage_replay_illegal_record_one_stderr_line_nothing_on_stdout():
    rec, _ = BAD["wrong dealer round 2"]
    out = _manage_replay(rec)
    assert out.returncode != 0 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "round 2" in lines[0].lower() and "move" in lines[0].lower()


# ------------------------------------------------------------------------------------------------
# Match scoring against an independent model: random sequences of gin rounds

NINE = ["6C", "7C", "8C", "6D", "7D", "8D", "6H", "7H", "8H"]
#: Loser hands against GIN10 by the points the gin scores (25 + the loser's deadwood).
LOSER_BY_POINTS = {25: NINE + ["9C"], 26: NINE + ["AS"], 27: NINE + ["2S"], 28: NINE + ["3S"],
                   29: NINE + ["4S"], 35: LOW10, 123: HIGH98}


def model_match(seq, *, target, hollywood, match_bonuses, next_dealer):
    """What spec/gin.md says about a match of gin rounds ``seq`` = [(winner, points), ...]: the rounds
    played until the match ends, the dealers, totals, boxes, final and winner."""
    def bonuses(boxes, winner):
        if not match_bonuses:
            return [0, 0]
        out = [25 * b for b in boxes]
        out[winner] += 100 * (2 if boxes[1 - winner] == 0 else 1)
        return out

    totals, boxes, wins = [0, 0], [0, 0], [0, 0]
    cols = [{"s": [0, 0], "b": [0, 0], "w": None} for _ in range(3)]
    dealers, dealer = [], 0
    for n, (w, p) in enumerate(seq):
        dealers.append(dealer)
        dealer = {"winner": w, "loser": 1 - w, "alternate": 1 - dealer}[next_dealer]
        totals[w] += p
        boxes[w] += 1
        wins[w] += 1
        if hollywood:
            for col in cols[:min(wins[w], 3)]:
                if col["w"] is None:
                    col["s"][w] += p
                    col["b"][w] += 1
                    if col["s"][w] >= target:
                        col["w"] = w
            final = [0, 0]
            for col in cols:
                extra = bonuses(col["b"], col["w"]) if col["w"] is not None else [0, 0]
                final = [final[s] + col["s"][s] + extra[s] for s in (0, 1)]
            if all(col["w"] is not None for col in cols):
                winner = None if final[0] == final[1] else (0 if final[0] > final[1] else 1)
                return n + 1, dealers, totals, boxes, final, winner, True
        elif target == 0 or totals[w] >= target:
            extra = bonuses(boxes, w) if target else [0, 0]
            return n + 1, dealers, totals, boxes, [totals[s] + extra[s] for s in (0, 1)], w, True
    final = list(totals) if not hollywood else final
    return len(seq), dealers, totals, boxes, final, None, False


@given(
    seq=st.lists(st.tuples(st.integers(0, 1), st.sampled_from(sorted(LOSER_BY_POINTS))), min_size=1, max_size=14),
    target=st.sampled_from([0, 50, 100, 150]),
    hollywood=st.booleans(),
    match_bonuses=st.booleans(),
    next_dealer=st.sampled_from(["winner", "loser", "alternate"]),
)
def test_match_scoring_and_dealers_follow_the_rules(seq, target, hollywood, match_bonuses, next_dealer):
    hollywood = hollywood and target > 0
    played, dealers, totals, boxes, final, winner, over = model_match(
        seq, target=target, hollywood=hollywood, match_bonuses=match_bonuses, next_dealer=next_dealer)
    rounds = [gin_round(dealer=d, winner=w, loser_hand=LOSER_BY_POINTS[p])
              for d, (w, p) in zip(dealers, seq[:played], strict=True)]
    rec = record(*rounds, target=target, hollywood=hollywood, match_bonuses=match_bonuses,
                 next_dealer=next_dealer)
    m = play(rec)
    s = summary_of(m)
    assert [r["points"] for r in s["rounds"]] == [p for _, p in seq[:played]]
    assert (s["totals"], s["boxes"], s["final"], s["winner"], m.over) == (totals, boxes, final, winner, over)


def test_hollywood_equal_finals_is_a_drawn_match():
    # col 1: A 50 (shutout) 300-0; col 2: B 50-25, boxes 2-1: 50-200; col 3 the same: 400-400.
    seq = [(0, 25), (0, 25), (1, 25), (1, 25), (1, 25), (0, 25), (1, 25)]
    _, dealers, *_ = model_match(seq, target=50, hollywood=True, match_bonuses=True, next_dealer="winner")
    rounds = [gin_round(dealer=d, winner=w, loser_hand=LOSER_BY_POINTS[p]) for d, (w, p) in zip(dealers, seq, strict=True)]
    m = play(record(*rounds, target=50, hollywood=True))
    assert m.over and summary_of(m)["final"] == [400, 400] and summary_of(m)["winner"] is None
    assert result_of(m)["winner"] is None


# ------------------------------------------------------------------------------------------------
# Bad input of any kind: a clear ValueError, never a crash (found by this review, fixed in f7e3ee0)


@pytest.mark.parametrize("bad", [{"action": ["pass"]}, {"action": {}}])
def test_malformed_action_name_is_a_clear_error(bad):
    m = at(record(FIRST), 0)
    with pytest.raises(ValueError):
        gin.apply_action(m, 1, bad)


def test_replay_record_with_list_action_is_invalid_record():
    from games.engine.records import replay_record

    rec = json.loads(json.dumps(REPLAY_CASES["knock"]))
    rec["rounds"][0]["moves"][0]["action"] = ["pass"]
    with pytest.raises(ValueError):
        replay_record(rec)


def test_replay_record_with_float_seat_is_invalid_record():
    from games.engine.records import replay_record

    rec = json.loads(json.dumps(REPLAY_CASES["knock"]))
    rec["rounds"][0]["moves"][2]["seat"] = 1.0
    with pytest.raises(ValueError):
        replay_record(rec)


def test_replay_record_with_float_dealer_is_invalid_record():
    from games.engine.records import replay_record

    rec = json.loads(json.dumps(REPLAY_CASES["knock"]))
    rec["rounds"][0]["dealer"] = 0.0
    with pytest.raises(ValueError):
        replay_record(rec)


# ------------------------------------------------------------------------------------------------
# Settling a knock against an independent brute-force referee

_RANKS = "A23456789TJQK"


def _attach(knocker_melds, cards):
    """The cards of ``cards`` that go onto the knocker's melds (sets to four, runs at either end, chained)
    when all of them are offered."""
    runs = {c for m in knocker_melds if len({x[0] for x in m}) > 1 for c in m}
    set_ranks = {next(iter(m))[0] for m in knocker_melds if len({x[0] for x in m}) == 1 and len(m) == 3}
    left, laid = set(cards), set()
    grew = True
    while left and grew:  # runs first, to their fixpoint: a card on a run can carry the next one
        grew = False
        for c in sorted(left):
            r, s = _RANKS.index(c[0]), c[1]
            if {_RANKS[r + d] + s for d in (-1, 1) if 0 <= r + d < 13} & runs:
                runs.add(c)
                left.discard(c)
                laid.add(c)
                grew = True
    laid |= {c for c in left if c[0] in set_ranks}  # a set of three takes its missing fourth
    return laid


@functools.cache
def _brute_cached(cards):
    return _brute_deadwood(list(cards))


def _defender_best(knocker_melds, defender):
    """The defender's least deadwood: own melds plus any lay-offs, each card used once."""
    maximal = sorted(_attach(knocker_melds, defender))
    best = _brute_cached(frozenset(defender))
    for n in range(1, len(maximal) + 1):
        for laid in itertools.combinations(maximal, n):
            if len(_attach(knocker_melds, laid)) == n:
                best = min(best, _brute_cached(frozenset(defender) - set(laid)))
    return best


def _referee_knock(knocker, defender, limit=10, bonus=25, factor=1):
    """(result, points, knocker deadwood, defender deadwood) as spec/gin.md settles it, by brute force."""
    melds = _all_melds(knocker)
    total = sum(_value(c) for c in knocker)
    spreads = []

    def walk(i, used, chosen):
        spreads.append(list(chosen))
        for j in range(i, len(melds)):
            if not melds[j] & used:
                walk(j + 1, used | melds[j], chosen + [melds[j]])

    walk(0, frozenset(), [])
    best = None
    for spread in spreads:
        k = total - sum(_value(c) for m in spread for c in m)
        if k > limit:
            continue
        if k == 0:
            d = _brute_deadwood(defender)
            key, outcome = (factor * d + bonus, 0), ("gin", factor * d + bonus, 0, d)  # gin: no lay-offs
        else:
            d = _defender_best(spread, defender)
            value = factor * (d - k) if d > k else -(factor * (k - d) + bonus)
            key, outcome = (value, -k), ("knock" if value > 0 else "undercut", abs(value), k, d)
        if best is None or key > best[0]:
            best = (key, outcome)
    return best[1]


_KNOCK_POOL = [r + s for r in "A2345678" for s in "CDHS"]
_POOL_MELDS = sorted((sorted(m) for m in _all_melds(_KNOCK_POOL) if len(m) <= 4), key=lambda m: (len(m), m))


@st.composite
def knock_deals(draw):
    knocker: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        meld = draw(st.sampled_from(_POOL_MELDS))
        if not set(meld) & set(knocker) and len(knocker) + len(meld) <= 10:
            knocker += meld
    rest = [c for c in _KNOCK_POOL if c not in knocker]
    low = [c for c in rest if c[0] in "A234"]
    knocker += draw(st.lists(st.sampled_from(low), min_size=10 - len(knocker), max_size=10 - len(knocker),
                             unique=True))
    rest = [c for c in _KNOCK_POOL if c not in knocker]
    defender = draw(st.lists(st.sampled_from(rest), min_size=10, max_size=10, unique=True))
    return knocker, defender


@given(knock_deals(), st.sampled_from([("QD", "standard"), ("9H", "oklahoma"), ("TS", "oklahoma"),
                                        ("9S", "oklahoma")]))
def test_knock_settlement_matches_brute_force_referee(cards, upcard_variant):
    knocker, defender = cards
    upcard, variant = upcard_variant
    limit = 9 if upcard[0] == "9" else 10
    if _brute_deadwood(knocker) > limit:
        return
    factor = 2 if variant == "oklahoma" and upcard[1] == "S" else 1
    result, points, k, d = _referee_knock(knocker, defender, limit=limit, factor=factor)
    r = only_round(record(knock_round(knocker, defender, draw="KC", upcard=upcard), variant=variant))
    assert (r["result"], r["points"], r["deadwood"][1], r["deadwood"][0]) == (result, points, k, d)


# ------------------------------------------------------------------------------------------------
# The match's own record and state round-trip


@pytest.mark.parametrize("name", sorted(REPLAY_CASES))
def test_match_record_replays_to_the_same_summary(name):
    m = play(REPLAY_CASES[name])
    got = outcomes.replay(json.loads(json.dumps(m.record())))
    want = summary_of(m)
    assert {k: got[k] for k in SUMMARY_KEYS} == {k: want[k] for k in SUMMARY_KEYS}


def test_resigned_match_record_replays_to_its_result():
    m = play(record(gin_round(dealer=0, winner=1, loser_hand=LOW10)))
    m = gin.resign(gin.deal_next_round(m, random.Random(2)), 1)
    got = outcomes.replay(json.loads(json.dumps(m.record())))
    assert (got["winner"], got["final"]) == (0, [100, 60])


@pytest.mark.parametrize("moves", [0, 1, 2, 3, 5])
def test_state_json_round_trip_mid_round(moves):
    m = at(VIEW_REC, moves)
    again = gin.Match.from_json(json.loads(json.dumps(m.to_json())))
    assert again.to_json() == m.to_json()
    assert gin.legal_actions(again) == gin.legal_actions(m)


def test_hollywood_resign_stayer_wins():
    m = play(record(gin_round(dealer=0, winner=1, loser_hand=LOW10), target=50, hollywood=True))
    out = gin.resign(gin.deal_next_round(m, random.Random(2)), 1)
    assert out.over and result_of(out)["winner"] == 0


def test_spectator_view_after_knock_reveals_both_hands_only_then():
    rec = record(knock_round(GIN9 + ["4H"], HIGH98))
    m = at(rec, 3)
    assert "hands" not in json.dumps(gin.view(m, None)["last_round"])
    m = play(rec)
    last = gin.view(m, None)["last_round"]
    assert last is not None and last["result"] == "knock"


def test_big_gin_with_the_card_just_taken_from_the_pile():
    # Nothing is discarded, so the taken-card restriction does not stop big gin: GIN10 takes QS.
    rec = record(deal(0, [HIGH98, GIN10], "QS", (), [DD(1), BG(1)]), big_gin=True)
    r = only_round(rec)
    assert (r["result"], r["knocker"], r["points"]) == ("big_gin", 1, 98 + 31)


# ------------------------------------------------------------------------------------------------
# Random play: every legal action is accepted, knocks exactly when the rules allow, views stay fenced


def _drawn(m):
    """The card the last move drew from the stock (the hand now minus the hand before)."""
    state = m.to_json()["round"]
    return state["stock"][state["stock_pos"] - 1]


def _round_cards(m):
    state = m.to_json()["round"]
    return [set(h) for h in state["hands_now"]], set(state["stock"][state["stock_pos"]:])


@settings(max_examples=6)
@given(seed=st.integers(0, 10**6), variant=st.sampled_from(["standard", "oklahoma", "straight"]),
       first_turn=st.sampled_from(["pass", "free"]))
def test_random_play_legal_actions_knock_limit_and_hidden_cards(seed, variant, first_turn):
    rng = random.Random(seed)
    m = gin.new_match(gin.normalize_options({"target": 150, "variant": variant, "first_turn": first_turn,
                                             "big_gin": True}), rng=rng)
    public: set[str] = set()
    checked = 0
    for _ in range(250):
        if m.over:
            break
        if m.phase == "round_over":
            m = gin.deal_next_round(m, rng)
            public = set()
        public.add(m.current_deal()["upcard"])
        public |= {mv["card"] for mv in m.round.moves if "card" in mv}
        hands, stock = _round_cards(m)
        for seat in (None, 0, 1):
            v = gin.view(m, seat)
            fenced = {k: x for k, x in v.items() if k not in ("last_round", "scores", "result")}
            seen = set(_strings(fenced)) & set(ALL_CARDS)
            mine = hands[seat] if seat is not None else set()
            assert seen <= public | mine, (seat, seen - public - mine)
            assert ("legal_actions" in v) == (seat == m.to_act)
        seat = m.to_act
        actions = gin.legal_actions(m)
        assert actions
        taken_before = m.to_json()["round"]["taken"]
        if m.phase == "discard":
            limit = gin.knock_limit(m.options, m.round.upcard)
            knocks = {a["card"] for a in actions if a["action"] == "knock"}
            taken = m.to_json()["round"]["taken"]
            others = sorted(hands[seat] - {taken} - knocks)
            for card in sorted(knocks) + rng.sample(others, min(2, len(others))):  # brute force is slow
                assert (card in knocks) == (_brute_cached(frozenset(hands[seat] - {card})) <= limit), card
        for action in actions:
            gin.apply_action(m, seat, action)  # every listed action is accepted
        if rng.random() < 0.5:
            timeout = gin.timeout_actions(m)
            for action in timeout:
                m = gin.apply_action(m, seat, action)
            checked += timeout[-1]["action"] == "discard"
            if timeout[-1]["action"] == "discard" and checked <= 5:  # the least deadwood left, never the card just taken (brute force is slow)
                held = hands[seat] | ({_drawn(m)} if len(timeout) == 2 else set())
                choices = held - {taken_before}
                left = _brute_cached(frozenset(held - {timeout[-1]["card"]}))
                assert timeout[-1]["card"] != taken_before
                assert left == min(_brute_cached(frozenset(held - {c})) for c in choices)
        else:
            knocks = [a for a in actions if a["action"] in ("knock", "big_gin")]
            m = gin.apply_action(m, seat, rng.choice(knocks) if knocks and rng.random() < 0.3 else
                                 rng.choice(actions))
