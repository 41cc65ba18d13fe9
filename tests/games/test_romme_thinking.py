"""Rommé's expert searches (its lookahead), so it thinks in the referee's worker (``games.thinking``) like gin's:
a pass starts its search and goes on with the other tables; a later pass plays the answer."""

import random
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from games import registry, services
from games.engine.romme import bots
from games.engine.romme import match as romme
from games.models import Move, Table
from games.thinking import FAILED, Thinker
from tests.games.helpers import choose_action, state_of

pytestmark = pytest.mark.django_db


def romme_bot_to_move(user, level: str) -> Table:
    """A Rommé table of ``user`` and three computer players of ``level``, played on until a computer is to act."""
    table = services.table_create(user=user, game="romme", preset="standard", options={})
    services.table_fill_with_bots(table_id=table.pk, user=user, level=level)
    for _ in range(10):
        table = Table.objects.get(pk=table.pk)
        state = state_of(table)
        if state.to_act != 0:
            return table
        services.move_apply(table_id=table.pk, user=user, version=table.version,
                            action=choose_action(registry.get("romme").engine.view(state, 0)))
    raise AssertionError("no computer came to move")


def finished(thinker: Thinker, table_id: int) -> None:
    while thinker.thinking(table_id):
        thinker.wait(1.0)


def test_the_romme_expert_searches_and_the_other_levels_do_not():
    entry = registry.get("romme")
    assert entry.bot_searches("expert")
    assert not entry.bot_searches("simple") and not entry.bot_searches("advanced")
    assert bots.SEARCH_LEVELS == ("expert",)


def test_a_pass_goes_on_while_a_romme_expert_thinks_and_a_later_pass_plays_its_move(players):
    pool = ThreadPoolExecutor(max_workers=1)
    gate = threading.Event()
    pool.submit(gate.wait)
    thinker = Thinker(5.0, executor=lambda: pool)
    try:
        table = romme_bot_to_move(players[0], "expert")
        assert services.referee_pass(now=table.bot_due_at, thinker=thinker) == 0  # started, not played here
        assert thinker.thinking(table.pk)
        assert Table.objects.get(pk=table.pk).version == table.version
        gate.set()
        finished(thinker, table.pk)
        assert services.referee_pass(now=table.bot_due_at, thinker=thinker) >= 1
    finally:
        gate.set()
        pool.shutdown(wait=True)
    move = Move.objects.filter(table=table, version=table.version + 1).first()
    assert move is not None and move.by == Move.By.BOT
    assert move.action in romme.view(state_of(table), move.seat)["legal_actions"]


def test_the_romme_expert_thinks_in_a_spawned_worker_within_its_deadline():
    rng = random.Random(6)
    m = romme.new_match({"scoring": "masters"}, rng=rng)
    for _ in range(30):  # into the round, where there is a discard to weigh
        m = romme.apply_action(m, m.to_act, bots.choose_action(romme.view(m, m.to_act), "simple", rng), rng=rng)
    view = romme.view(m, m.to_act)
    thinker = Thinker(0.5)
    try:
        thinker.start(9, 1, bots="games.engine.romme.bots", view=view, level="expert", seed=3)
        finished(thinker, 9)
        action = thinker.answer(9, 1)
    finally:
        thinker.shutdown()
    assert action is not FAILED and action in view["legal_actions"]


def test_the_romme_expert_stops_its_lookahead_when_told():
    """With ``stop`` true from the start the expert weighs one candidate only: the heuristic's choice."""
    rng = random.Random(8)
    m = romme.new_match({"scoring": "masters"}, rng=rng)
    compared = 0
    while not m.over and m.phase != "round_over":
        seat = m.to_act
        view = romme.view(m, seat)
        if view["phase"] != "draw":
            stopped = bots.choose_action(view, "expert", random.Random(1), stop=lambda: True)
            bots_lookahead = bots.LOOKAHEAD_CANDIDATES
            try:
                bots.LOOKAHEAD_CANDIDATES = 0
                heuristic = bots.choose_action(view, "expert", random.Random(1))
            finally:
                bots.LOOKAHEAD_CANDIDATES = bots_lookahead
            assert stopped == heuristic
            compared += 1
        m = romme.apply_action(m, seat, bots.choose_action(view, "expert", rng), rng=rng)
    assert compared > 10
