"""Rommé's post-match analysis: each decision of a finished list against the expert's, by playouts.

Rommé has no search of its own, so the expert (``games.engine.romme.bots``, level ``expert``) names the move it
would have made, and the cost of the move actually made is estimated by playouts: the cards the seat could not
see (the other hands and the stock) are dealt anew from its view alone (:func:`determinise`), consistently with
what it saw (the cards the others took from the discard pile and have not shown again stay in their hands);
on each such deal the move made and the expert's move are played, and the round is finished with the expert
as every seat's policy. A move's value is the seat's result of the round: minus its minus points (romme.md:
the winner 0, the others their Augen, doubled after a Hand-Rommé). A playout that has not ended after
``MAX_TURNS`` turns is cut and valued by the Augen the seat would keep after laying its best melds.

Bounded: at most ``PLAYOUTS`` deals per decision, fewer when ``stop()`` (the caller's wall-clock deadline) says
so, at least one. Deterministic given ``(view, action, rng)``. Reads nothing but the view it is given.

:func:`decisions` steps a record through and yields, before each move of the chosen seats, exactly the view
the engine gave that seat then (``match.view``): the analysis of a decision is built on that view only.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from games.engine.cards import JOKER, romme_deck
from games.engine.romme import bots
from games.engine.romme import match as romme
from games.engine.romme.melds import best_layout, hand_augen
from games.engine.romme.replay import _check_deal, _replay_move
from games.engine.romme.round import DISCARD, Round

#: Deals (playouts per compared move) a decision gets at most, and the turns a playout runs before it is cut.
PLAYOUTS = 8
MAX_TURNS = 60
#: What the expert level is called in the bots' module.
EXPERT = "expert"
_UNKNOWN = ""


def _cards_of_move(move: dict[str, Any]) -> list[str]:
    """The cards a public move shows leaving its seat's hand (laid, laid off, swapped in, discarded)."""
    kind = move.get("action")
    out: list[str] = []
    if kind == "discard":
        out.append(move["card"])
    elif kind == "lay":
        out += [c for meld in move.get("melds", []) for c in meld]
        out += [lay["card"] for lay in move.get("lay_offs", []) or []]
    elif kind == "lay_off":
        out.append(move["card"])
    elif kind == "swap":
        out.append(move["card"])
        then = move.get("then")
        if isinstance(then, dict):
            # The joker taken comes from the table and is laid again: only the then-move's other cards left the hand.
            rest = _cards_of_move(then)
            if JOKER in rest:
                rest.remove(JOKER)
            out += rest
    return out


def read_history(view: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """From the round's public history: the discard pile bottom to top (``""`` for the upcard while nobody has
    seen it taken: the view does not name it once it is buried), and per seat the cards it took from the pile
    and has not shown again (still in its hand)."""
    seats = view["seats"]
    pile: list[str] = [_UNKNOWN]
    held: list[list[str]] = [[] for _ in range(seats)]
    for move in view["history"]:
        kind = move.get("action")
        seat = move.get("seat")
        if kind == "draw" and move.get("from") == "discard":
            pile.pop()
            card = move.get("card")
            if card and isinstance(seat, int):
                held[seat].append(card)
        elif kind == "reshuffle":
            pile = pile[-1:]
        else:
            for card in _cards_of_move(move):
                if isinstance(seat, int) and card in held[seat]:
                    held[seat].remove(card)
            if kind == "discard":
                pile.append(move["card"])
    if pile and pile[-1] == _UNKNOWN:
        pile[-1] = view["discard_top"]
    return pile, held


def _turn_so_far(view: dict[str, Any]) -> tuple[bool, bool]:
    """(the seat to act has laid a meld or card this turn, it had opened before this turn), from the history."""
    seat = view["to_act"]
    opened = [False] * view["seats"]
    laid = before = False
    for move in view["history"]:
        kind = move.get("action")
        who = move.get("seat")
        if who == seat and kind == "draw":
            laid, before = False, opened[seat]
        elif who == seat and kind in ("lay", "lay_off", "swap"):
            laid = True
        if isinstance(who, int) and (kind == "lay" or kind == "swap" and (move.get("then") or {}).get("action") == "lay"):
            opened[who] = True
    return laid, before


def determinise(view: dict[str, Any], rng: random.Random) -> romme.Match:
    """A list in the state of the view with the cards the seat cannot see dealt anew with ``rng``: the other
    hands (with the cards each took from the pile and still holds) and the stock. Reads the view only."""
    seat = view["seat"]
    seats = view["seats"]
    pile, held = read_history(view)
    pool = Counter(romme_deck())
    pool.subtract(view["hand"])
    for meld in view["melds"]:
        pool.subtract(meld["cards"])
    pool.subtract(c for c in pile if c != _UNKNOWN)
    for other in range(seats):
        if other != seat:
            pool.subtract(held[other])
    if any(n < 0 for n in pool.values()):
        raise ValueError("the view's history does not account for its cards")
    cards = sorted(pool.elements())
    rng.shuffle(cards)
    counts = view["hand_counts"]
    need = sum(counts[o] - len(held[o]) for o in range(seats) if o != seat) + view["stock_size"] + pile.count(_UNKNOWN)
    if len(cards) != need or any(len(held[o]) > counts[o] for o in range(seats) if o != seat):
        raise ValueError("the view's history does not account for its cards")
    hands: list[list[str]] = []
    for other in range(seats):
        if other == seat:
            hands.append(list(view["hand"]))
            continue
        hand = list(held[other])
        for _ in range(counts[other] - len(hand)):
            hand.append(cards.pop())
        hands.append(hand)
    pile = [cards.pop() if c == _UNKNOWN else c for c in pile]
    stock = cards
    laid, opened_before = _turn_so_far(view) if view["phase"] == DISCARD else (False, bool(view["opened"][seat]))
    round_ = Round.from_json({
        "seats": seats, "dealer": view["dealer"], "opening_points": view["opening_points"],
        "deal": {"dealer": view["dealer"], "hands": [list(h) for h in hands], "upcard": pile[0] if pile else JOKER,
                 "stock": list(stock)},
        "hands": hands, "stock": stock, "discard_pile": pile,
        "melds": [{"number": m["number"], "owner": m["owner"], "cards": list(m["cards"])} for m in view["melds"]],
        "opened": list(view["opened"]), "laid_off": [False] * seats, "to_act": view["to_act"], "phase": view["phase"],
        "moves": [], "result": None, "drawn_from": view.get("drawn_from"), "drawn_card": view.get("drawn"),
        "laid_this_turn": laid, "opened_before_turn": opened_before,
    })
    m = romme.Match(options=dict(view["options"]), players=None, round_=round_)
    m.left = list(view["left"])
    return m


def _result(m: romme.Match, seat: int) -> float:
    r = m.round
    if r.result is not None:
        return -float(r.result["minus"][seat])
    _, augen = best_layout(r.hands[seat]) if len(r.hands[seat]) > 1 else ((), sum(hand_augen(c) for c in r.hands[seat]))
    return -float(augen)


def playout(m: romme.Match, seat: int, rng: random.Random) -> float:
    """Finish the round with the expert playing every seat (at most ``MAX_TURNS`` turns); the seat's result."""
    turns = 0
    last = m.round.to_act
    while not m.round.over and turns < MAX_TURNS:
        to_act = m.round.to_act
        assert to_act is not None
        if to_act != last:
            turns += 1
            last = to_act
        action = bots.choose_action(romme.view(m, to_act), EXPERT, rng)
        m = romme.apply_action(m, to_act, action, rng=rng)
    return _result(m, seat)


def _value_on(deal: romme.Match, seat: int, action: dict[str, Any], seed: int) -> float:
    rng = random.Random(seed)
    m = romme.apply_action(deal, seat, action, rng=rng)
    return playout(m, seat, rng)


def analyse(view: dict[str, Any], action: dict[str, Any], rng: random.Random, *, playouts: int = PLAYOUTS,
            stop: Callable[[], bool] | None = None) -> dict[str, Any]:
    """The expert's move for the view's seat and the estimated cost of ``action`` against it, in minus points:
    ``{"best", "cost", "values": [expert's, the action's], "samples"}``. The same deals (and the same playout
    seeds) for both moves; the cost is never below 0 (a move the playouts like better than the expert's
    cost nothing)."""
    seat = view["seat"]
    if not view.get("legal_actions"):
        raise ValueError("it is not this seat's turn: the view has no legal actions")
    best = bots.choose_action(view, EXPERT, random.Random(rng.random()))
    if best == action:
        return {"best": best, "cost": 0.0, "values": None, "samples": 0}
    sums = [0.0, 0.0]
    samples = 0
    for _ in range(max(1, playouts)):
        deal = determinise(view, rng)
        seed = rng.getrandbits(32)
        sums[0] += _value_on(deal, seat, best, seed)
        sums[1] += _value_on(deal, seat, action, seed)
        samples += 1
        if stop is not None and stop():
            break
    values = [s / samples for s in sums]
    return {"best": best, "cost": max(0.0, values[0] - values[1]), "values": values, "samples": samples}


def decisions(record: dict[str, Any], seats: set[int]) -> Iterator[tuple[int, int, int, dict[str, Any], dict[str, Any]]]:
    """Every decision of ``seats`` in a record: ``(round number, move index in the round, seat, the seat's view
    just before the move, the move)``, for moves where the seat had more than one legal action. Moves the
    server made for a seat that had left, reshuffles and resignations are no decisions."""
    options = record.get("options", {})
    rounds_in = record["rounds"]
    count = len(rounds_in[0]["hands"]) if rounds_in else None
    options = romme.normalize_options(options, seats=count) if "seats" not in options and count else \
        romme.normalize_options(options)
    m: romme.Match | None = None
    for number, rnd in enumerate(rounds_in, start=1):
        expected = None if m is None else (m.round.dealer + 1) % options["seats"]
        r = _check_deal(rnd, options["seats"], number, expected)
        r.opening_points = options["opening_points"]
        if m is None:
            m = romme.Match(options=options, players=record.get("players"), round_=r)
        else:
            m.round = r
            m.round_logged = False
        for index, move in enumerate(rnd["moves"]):
            seat = move.get("seat")
            if (seat in seats and move.get("action") not in ("reshuffle", "resign") and not m.left[seat]
                    and not m.round.over and m.round.to_act == seat):
                view = romme.view(m, seat)
                action = {k: v for k, v in move.items() if k != "seat"}
                if _choices(view):
                    yield number, index, seat, view, action
            _replay_move(m, move, number, index)


def _choices(view: dict[str, Any]) -> bool:
    """Whether the seat had a choice: more than one legal action (or, after drawing, anything but one discard)."""
    legal = view.get("legal_actions") or []
    return len(legal) > 1 or (view["phase"] == DISCARD and any(a["action"] != "discard" for a in legal))


__all__ = ["MAX_TURNS", "PLAYOUTS", "analyse", "decisions", "determinise", "playout", "read_history"]
