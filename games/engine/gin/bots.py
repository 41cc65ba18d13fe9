"""Computer players for gin: ``simple`` (Anfänger), ``advanced`` (Fortgeschritten) and ``expert`` (Experte).

All three see only a seat's view. ``simple`` takes the upcard only into a meld, knocks as soon as it may and
throws its highest loose card. ``advanced`` waits for gin while the stock is long, takes a low upcard that cuts
its deadwood, and weighs its discards by the chances they leave, but keeps no memory of the opponent.
``expert`` also remembers what the opponent picked up and refused and keeps those cards back, and searches
where it may knock short of gin: it values the knock against playing on by playouts over deals of the cards it
cannot see (:mod:`games.engine.gin.search`) and plays the other when the search is sure.

The levels are distinct by design (issue 28: each step at least 58 % of mirrored matches against the one
below): ``simple`` and ``advanced`` slip, throwing a random card in no meld instead of their heuristic's
discard a share of the time (``SLIPS``: Anfänger more often than Fortgeschritten, the expert never).

``choose_action(view, level, rng)`` returns one of the view's ``legal_actions``; the expert plays at most
``EXPERT_ITERATIONS`` deals, fewer when ``stop()`` (the caller's deadline) says so.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from games.engine.cards import ALL_CARDS
from games.engine.gin.melds import BIT, VALUE, arrange, deadwood_of, indexes_of, mask_of
from games.engine.gin.search import NEAR, PLAYOUT_KNOCK, action_values, candidates, read_history

LEVELS = ("simple", "advanced", "expert")
#: The levels whose decisions take a search (the live layer runs them off the referee's pass).
SEARCH_LEVELS = ("expert",)
#: Deals the expert plays per decision at most (about 30 ms median on one core of the 2-core machine).
EXPERT_ITERATIONS = 32
SEARCH_MARGIN = 2.5
#: Which decisions the expert searches: "knock" (whether to knock short of gin or play on, its heuristic's discard)
#: or "all" (its candidates at every turn: draws and discards too). Measured with the slip-free heuristics
#: (``python -m bench.gin --no-slips``, the same 200 mirrored matches against ``simple``, seed 777): searching the
#: draws and plain discards as well changed 242 discards and 60 draws and won 71.5 % where the heuristic alone won
#: 72.5 %, at 16 times the time per match: not shown to pay, so only the knock is searched.
SEARCHED = "knock"
#: The knock rules the expert's playouts let the opponent play by, one drawn per deal (the opponent's level is not
#: in the view). Knocking at once (``PLAYOUT_KNOCK[1]``) made the fewest overrides and lost none measurably; the
#: advanced player's rule, alone or half the deals, made the search knock early three times as often and won
#: less (400 matches, seed 777: against ``simple`` 64.8 % alone and 71.0 % mixed, the heuristic alone 72.8 %).
OPPONENT_KNOCKS: tuple[tuple[tuple[int, int], ...], ...] = (PLAYOUT_KNOCK[1],)
#: The expert values a round's result by its chance of winning the match after it (``search.match_value``), not
#: by the round points alone.
MATCH_AWARE = True
#: The levels are distinct by design: below the expert each level slips now and then, throwing a random card of
#: those in no meld (never the card just taken) instead of the discard its heuristic chose, this share of its
#: plain discards (measured with ``python -m bench.gin``: each step at least 58 % against the one below).
SLIPS = {"simple": 0.22, "advanced": 0.15, "expert": 0.0}
#: The expert's discard: deadwood left, plus how much the opponent may want the card, minus our chances.
DANGER_WEIGHT = 0.8
OUTS_WEIGHT = 0.3
#: The expert's own weight of its chances (it plays for gin longer than the advanced player). Its heuristic alone
#: over 1,000 mirrored matches against slip-free advanced / simple: 0.3 66.0 % / 74.5 %, 0.15 66.7 % / 75.0 %
#: (within the noise), 0.6 64.7 % / 72.8 %, 1.0 63.5 % / 70.9 %; its danger weight 0.4 instead of 0.8: 66.3 % / 74.8 %.
EXPERT_OUTS_WEIGHT = 0.3
#: The expert's heuristic knocks with at most this much deadwood once the stock holds at most this many cards (any
#: pair): it plays for gin until the stock runs out, against players who knock at once or soon. Measured with the
#: expert's heuristic alone (no search) over the same 1,000 mirrored matches against slip-free advanced / simple:
#: the advanced player's rule (``ADVANCED_KNOCK``) 49.9 % / 69.0 %; ((1, 31), (4, 6), (10, 3)) 59.4 % / 70.3 %;
#: gin only until the stock holds 6, ((0, 31), (4, 6), (10, 3)), 65.3 % / 74.2 %; this rule 66.0 % / 74.5 %;
#: gin only until the last turn, ((0, 31), (10, 2)), 66.1 % / 74.6 %. Knocking at once late in a match (either
#: seat 25 or 40 points short) did not pay; the search knows the score (``search.match_value``).
EXPERT_KNOCK = PLAYOUT_KNOCK[0]  # written once, in search.py: its playouts knock for the searching seat by it
#: The advanced player's knock, the same way.
ADVANCED_KNOCK = ((1, 31), (5, 10), (10, 6))
_INDEX = {code: i for i, code in enumerate(ALL_CARDS)}


def choose_action(view: dict[str, Any], level: str, rng: random.Random, *, iterations: int | None = None,
                  stop: Callable[[], bool] | None = None) -> dict[str, Any]:
    """The bot's action for the seat whose view this is (it must be that seat's turn).

    ``iterations`` and ``stop`` bound the expert's search (default ``EXPERT_ITERATIONS``, no deadline); the
    other levels do not search and ignore them."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r} (known: {', '.join(LEVELS)})")
    legal = view.get("legal_actions")
    if not legal:
        raise ValueError("it is not this seat's turn: the view has no legal actions")
    if level == "simple":
        return _slipped(view, _simple(view, legal), SLIPS[level], rng)
    prior = _expert(view, legal, remember=level == "expert")
    if level == "expert":
        return _searched(view, prior, rng, iterations=EXPERT_ITERATIONS if iterations is None else iterations,
                         stop=stop)
    return _slipped(view, prior, SLIPS[level], rng)


def _slipped(view: dict[str, Any], action: dict[str, Any], share: float, rng: random.Random) -> dict[str, Any]:
    """``action``, or, for a plain discard, ``share`` of the time a random card in no meld of the best
    arrangement (never the card just taken): the designed slip of a lower level (``SLIPS``)."""
    if action["action"] != "discard" or share <= 0 or rng.random() >= share:
        return action
    hand = mask_of(view["hand"])
    melds, _ = arrange(hand)
    melded = 0
    for meld in melds:
        melded |= meld
    taken = _INDEX[view["taken"]] if view.get("taken") else -1
    loose = [ALL_CARDS[i] for i in indexes_of(hand & ~melded) if i != taken]
    if not loose:
        return action
    return {"action": "discard", "card": rng.choice(loose)}


def _searched(view: dict[str, Any], prior: dict[str, Any], rng: random.Random, *, iterations: int,
              stop: Callable[[], bool] | None) -> dict[str, Any]:
    """The expert: its heuristic's action, unless the search (over the decisions ``SEARCHED`` names) finds another
    one better by more than ``SEARCH_MARGIN`` standard errors on the same deals (the playouts are noisy; the
    heuristic is not bad), or better on some deals and worse on none."""
    if SEARCHED == "knock":
        actions = _knock_choices(view, prior)
    else:
        actions = candidates(view)
        if prior not in actions:
            actions.insert(0, prior)
    if len(actions) == 1:
        return actions[0]
    values = action_values(view, rng, iterations=iterations, stop=stop, actions=actions, match=MATCH_AWARE,
                           opponents=OPPONENT_KNOCKS)
    best = values[0]
    if best.action == prior:
        return prior
    base = next(v for v in values if v.action == prior)
    lead, error = best.lead_over(base)
    if lead > SEARCH_MARGIN * error:
        return best.action
    # Never worse on any deal and better on some (e.g. a knock that wins the match on every deal): no noise there.
    dominates = lead > 0 and all(a >= b for a, b in zip(best.results, base.results, strict=True))
    return best.action if dominates else prior


def _knock_choices(view: dict[str, Any], prior: dict[str, Any]) -> list[dict[str, Any]]:
    """The choices the search weighs: ``prior`` alone, except where the seat may knock short of gin: then the knock
    (with the best discard) and the heuristic's plain discard, ``prior`` first."""
    if view["phase"] != "discard" or {"action": "big_gin"} in view["legal_actions"]:
        return [prior]
    meter = view["meter"]
    if not meter["can_knock"] or meter["can_gin"]:
        return [prior]
    knock = {"action": "knock", "card": meter["best_discard"]}
    if prior == knock:
        hand = mask_of(view["hand"])
        opp_has, opp_refused, pile = _memory(view)
        unseen = ((1 << 52) - 1) & ~hand & ~pile & ~opp_has
        return [prior, _expert_discard(view, hand, opp_has, opp_refused, unseen, remember=True)]
    return [prior, knock]


def _melded_in_best(hand: int, card: int) -> bool:
    """Whether ``card`` sits in a meld of the best arrangement of ``hand`` (which holds it)."""
    melds, _ = arrange(hand)
    return any(meld & BIT[card] for meld in melds)


def _allowed(legal: list[dict[str, Any]], action: dict[str, Any]) -> bool:
    return action in legal


def _simple(view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    hand = mask_of(view["hand"])
    phase = view["phase"]
    if phase in ("first_turn", "draw"):
        take = {"action": "draw", "from": "discard"}
        top = view["discard_top"]
        if _allowed(legal, take) and top is not None and _melded_in_best(hand | BIT[_INDEX[top]], _INDEX[top]):
            return take
        if phase == "first_turn":
            return {"action": "pass"}
        return {"action": "draw", "from": "stock"}
    meter = view["meter"]
    if {"action": "big_gin"} in legal:
        return {"action": "big_gin"}
    if meter["can_knock"]:
        return {"action": "knock", "card": meter["best_discard"]}
    melds, _ = arrange(hand)
    melded = 0
    for meld in melds:
        melded |= meld
    taken = _INDEX[view["taken"]] if view.get("taken") else -1
    loose = [i for i in indexes_of(hand & ~melded) if i != taken]
    if loose:
        card = max(loose, key=lambda i: (VALUE[i], i))
        return {"action": "discard", "card": ALL_CARDS[card]}
    return {"action": "discard", "card": meter["best_discard"]}


# --------------------------------------------------------------------------------------------------
# expert


def _memory(view: dict[str, Any]) -> tuple[int, int, int]:
    """From the round's public history (``search.read_history``): (cards the opponent holds for sure, cards
    the opponent refused, cards in the discard pile). Refused: what they threw away, and the pile's top card
    when they passed it or drew from the stock instead."""
    opp_has, refused, pile, _, _ = read_history(view)
    opp_refused = pile_mask = 0
    for card in refused:
        opp_refused |= BIT[card]
    for card in pile:
        pile_mask |= BIT[card]
    return opp_has, opp_refused, pile_mask


def _danger(card: int, opp_has: int, opp_refused: int) -> float:
    """How likely the opponent can use ``card``: they picked up its neighbours, or not refused them."""
    near = NEAR[card]
    score = 0.0
    if near & opp_has:
        score += 3.0 * (near & opp_has).bit_count()
    if opp_refused & near:
        score -= 0.5 * (opp_refused & near).bit_count()
    return max(score, 0.0)


_BLOCK = (1 << 13) - 1
_RANKS_FROM_2 = sum((_BLOCK & ~0b11) << (13 * s) for s in range(4))
_RANKS_1_TO_11 = sum((_BLOCK & ~1 & ~(1 << 12)) << (13 * s) for s in range(4))
_RANKS_TO_10 = sum((_BLOCK >> 2) << (13 * s) for s in range(4))
_RANK_LINE = 1 | 1 << 13 | 1 << 26 | 1 << 39


def _outs(hand: int, unseen: int) -> int:
    """How many unseen cards would meld with two cards of ``hand`` (a rough count of chances)."""
    a, b, c, d = hand & _BLOCK, (hand >> 13) & _BLOCK, (hand >> 26) & _BLOCK, hand >> 39
    pairs = (a & (b | c | d)) | (b & (c | d)) | (c & d)
    wanted = pairs * _RANK_LINE
    wanted |= (hand << 1) & (hand << 2) & _RANKS_FROM_2
    wanted |= (hand << 1) & (hand >> 1) & _RANKS_1_TO_11
    wanted |= (hand >> 1) & (hand >> 2) & _RANKS_TO_10
    return (wanted & unseen).bit_count()


def _expert(view: dict[str, Any], legal: list[dict[str, Any]], *, remember: bool) -> dict[str, Any]:
    hand = mask_of(view["hand"])
    phase = view["phase"]
    opp_has, opp_refused, pile = _memory(view)
    if not remember:
        # Fortgeschritten: it sees the pile's top only, not what the opponent collected or refused.
        opp_has = opp_refused = 0
        pile = BIT[_INDEX[view["discard_top"]]] if view["discard_top"] else 0
    unseen = ((1 << 52) - 1) & ~hand & ~pile & ~opp_has
    if phase in ("first_turn", "draw"):
        take = {"action": "draw", "from": "discard"}
        top = view["discard_top"]
        if _allowed(legal, take) and top is not None:
            top_i = _INDEX[top]
            with_top = hand | BIT[top_i]
            if _melded_in_best(with_top, top_i):
                return take
            now = deadwood_of(hand)
            after = min(deadwood_of(with_top ^ BIT[c]) for c in indexes_of(hand))
            # A low card that cuts the deadwood a lot is worth showing the opponent what we collect.
            if VALUE[top_i] <= 3 and now - after >= 5:
                return take
        if phase == "first_turn":
            return {"action": "pass"}
        return {"action": "draw", "from": "stock"}
    meter = view["meter"]
    if {"action": "big_gin"} in legal:
        return {"action": "big_gin"}
    if meter["can_gin"]:
        return {"action": "knock", "card": meter["best_discard"]}
    if meter["can_knock"]:
        deadwood = meter["best_deadwood"]
        # Against a player who knocks at once, waiting for gin pays (the bonus, no undercut) until the stock
        # runs low; measured in bench.gin (knocking at once won about 60 %, waiting about 70 %; EXPERT_KNOCK).
        stock = view["stock_size"]
        rule = EXPERT_KNOCK if remember else ADVANCED_KNOCK
        if any(deadwood <= most and stock <= below for most, below in rule):
            return {"action": "knock", "card": meter["best_discard"]}
    return _expert_discard(view, hand, opp_has, opp_refused, unseen, remember=remember)


def _expert_discard(view: dict[str, Any], hand: int, opp_has: int, opp_refused: int, unseen: int, *,
                    remember: bool) -> dict[str, Any]:
    """The heuristics' plain discard: the least deadwood left, plus the danger of the card, minus the chances
    left."""
    meter = view["meter"]
    best: tuple[float, int] | None = None
    for choice in meter["discards"]:
        card = _INDEX[choice["card"]]
        left = hand ^ BIT[card]
        score = (choice["deadwood"] + DANGER_WEIGHT * _danger(card, opp_has, opp_refused)
                 - (EXPERT_OUTS_WEIGHT if remember else OUTS_WEIGHT) * _outs(left, unseen))
        if best is None or score < best[0]:
            best = (score, card)
    assert best is not None
    return {"action": "discard", "card": ALL_CARDS[best[1]]}
