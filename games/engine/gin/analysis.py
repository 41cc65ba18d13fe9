"""Gin's post-match analysis: each decision of a finished match against the expert's, by the expert's playouts.

The expert (``games.engine.gin.bots``, level ``expert``) names the move it would have made from the seat's view;
then the search the expert uses (:func:`games.engine.gin.search.action_values`: determinised Monte Carlo over
the cards the seat could not see) values the expert's move, the move made and the search's other candidates
on the same deals. The cost of the move made is the expert's move's value less its own, in round points (never
below 0: a move the playouts like better than the expert's costs nothing).

Bounded: at most ``ITERATIONS`` deals per decision, fewer when ``stop()`` (the caller's wall-clock deadline)
says so. Reads nothing but the view it is given; :func:`decisions` gives exactly the view the engine gave the
seat at that moment (``match.view``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from games.engine.gin import bots
from games.engine.gin import match as gin
from games.engine.gin.search import action_values, candidates

#: Deals of the hidden cards a decision's search plays at most (the expert plays 32 in a live decision).
ITERATIONS = 48
EXPERT = "expert"


def analyse(view: dict[str, Any], action: dict[str, Any], rng: random.Random, *, iterations: int = ITERATIONS,
            stop: Callable[[], bool] | None = None) -> dict[str, Any]:
    """``{"best", "cost", "values": [expert's, the action's], "samples"}`` for ``action`` in the view's seat."""
    legal = view.get("legal_actions")
    if not legal:
        raise ValueError("it is not this seat's turn: the view has no legal actions")
    if action not in legal:
        raise ValueError(f"{action!r} is not a legal action in this view")
    best = bots.choose_action(view, EXPERT, random.Random(rng.random()), stop=stop)
    if best == action:
        return {"best": best, "cost": 0.0, "values": None, "samples": 0}
    actions = [best, action] + [a for a in candidates(view) if a not in (best, action)]
    values = {_key(v.action): v for v in action_values(view, rng, iterations=iterations, stop=stop, actions=actions)}
    ours, theirs = values[_key(best)], values[_key(action)]
    return {"best": best, "cost": max(0.0, ours.value - theirs.value), "values": [ours.value, theirs.value],
            "samples": ours.samples}


def _key(action: dict[str, Any]) -> tuple:
    return tuple(sorted(action.items()))


def decisions(record: dict[str, Any], seats: set[int]) -> Iterator[tuple[int, int, int, dict[str, Any], dict[str, Any]]]:
    """Every decision of ``seats`` in a record: ``(round number, move index in the round, seat, the seat's view
    just before the move, the move)``, for moves where the seat had more than one legal action."""
    options = record.get("options", {})
    players = record.get("players")
    m = None
    for number, rnd in enumerate(record["rounds"], start=1):
        deal = {k: rnd[k] for k in ("dealer", "hands", "upcard", "stock")}
        m = gin.match_from_deal(options, players=players, **deal) if m is None else gin.next_round_from_deal(m, **deal)
        for index, move in enumerate(rnd["moves"]):
            seat = move["seat"]
            action = {k: v for k, v in move.items() if k != "seat"}
            if seat in seats and m.to_act == seat:
                view = gin.view(m, seat)
                if len(view.get("legal_actions") or []) > 1:
                    yield number, index, seat, view, action
            m = gin.apply_action(m, seat, action)


__all__ = ["ITERATIONS", "analyse", "decisions"]
