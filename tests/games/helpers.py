"""Test players: a plain strategy that plays from a seat's own view, and drivers that play tables out."""

from __future__ import annotations

import random
from datetime import timedelta

from games import engines, services
from games.models import Table

_RNG = random.Random(5)


def choose_action(view: dict) -> dict:
    """What a test player does, seeing only its own view: the game's simple bot where there is one,
    else (gin) knock when it can, pass the first-turn offer, draw from the stock, discard the meter's best."""
    try:
        bots = engines.bots(view["game"])
    except ImportError:
        bots = None
    if bots is not None:
        return bots.choose_action(view, "simple", _RNG)
    actions = view["legal_actions"]
    knocks = [a for a in actions if a["action"] == "knock"]
    if knocks:
        best = view["meter"].get("best_discard")
        return next((a for a in knocks if a["card"] == best), knocks[0])
    if view["phase"] == "first_turn":
        return {"action": "pass"}
    if view["phase"] == "draw":
        return {"action": "draw", "from": "stock"}
    best = view["meter"]["best_discard"]
    return {"action": "discard", "card": best}


def state_of(table: Table):
    return engines.engine(table.game).Match.from_json(table.state)


def play_out(table_id: int, users: list, *, max_steps: int = 3000) -> Table:
    """Play a table to the end through the services: people by ``choose_action``, bots by the referee."""
    for _ in range(max_steps):
        table = Table.objects.get(pk=table_id)
        if table.status != Table.Status.PLAYING:
            return table
        state = state_of(table)
        seat = state.to_act
        if seat is None:
            waiting = [s for s in table.seats.all() if s.user_id and not s.left and not s.ready]
            if waiting:
                services.round_ready(table_id=table_id, user=waiting[0].user)
            else:  # nobody left to confirm: the break runs out
                assert services.turn_timeout(table_id=table_id, now=table.turn_deadline + timedelta(seconds=1))
            continue
        user = users[seat]
        if user is None or table.seats.get(index=seat).left:
            assert services.referee_pass() >= 1
            continue
        view = engines.engine(table.game).view(state, seat)
        services.move_apply(table_id=table_id, user=user, version=table.version, action=choose_action(view))
    raise AssertionError("the table did not finish")
