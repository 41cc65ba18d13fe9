"""Computer players that search think off the referee's pass (``games.thinking``): a pass starts the search and
goes on with the other tables; a later pass plays the answer, if the table is still where the search saw it."""

import random
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db.models import F

from games import registry, services
from games.engine.gin import match as gin
from games.models import Move, Table
from games.thinking import FAILED, Thinker
from tests.games.helpers import choose_action, state_of

pytestmark = pytest.mark.django_db


def bot_to_move(user, level: str) -> Table:
    """A gin table of ``user`` against a computer player of ``level``, played on until the computer is to act."""
    table = services.table_create(user=user, game="gin", preset="klassisch", options={})
    services.table_fill_with_bots(table_id=table.pk, user=user, level=level)
    for _ in range(10):
        table = Table.objects.get(pk=table.pk)
        state = state_of(table)
        if state.to_act == 1:
            return table
        services.move_apply(table_id=table.pk, user=user, version=table.version,
                            action=choose_action(registry.get("gin").engine.view(state, 0)))
    raise AssertionError("the computer never came to move")


@pytest.fixture
def held_thinker():
    """A thinker whose one worker thread is busy until the event is set: its searches wait for the test."""
    pool = ThreadPoolExecutor(max_workers=1)
    gate = threading.Event()
    pool.submit(gate.wait)
    yield Thinker(5.0, executor=lambda: pool), gate
    gate.set()
    pool.shutdown(wait=True)


def finished(thinker: Thinker, table_id: int) -> None:
    while thinker.thinking(table_id):
        thinker.wait(1.0)


def test_a_pass_goes_on_while_an_expert_thinks_and_a_later_pass_plays_its_move(players, held_thinker):
    expert = bot_to_move(players[0], "expert")
    simple = bot_to_move(players[1], "simple")
    due = max(expert.bot_due_at, simple.bot_due_at)
    thinker, gate = held_thinker

    assert services.referee_pass(now=due, thinker=thinker) == 1  # the simple bot's move, not held up
    assert Table.objects.get(pk=simple.pk).version == simple.version + 1
    assert Table.objects.get(pk=expert.pk).version == expert.version
    assert thinker.thinking(expert.pk)
    services.referee_pass(now=due, thinker=thinker)  # (the simple bot may move again: no pause in tests)
    assert Table.objects.get(pk=expert.pk).version == expert.version  # still thinking: skipped

    gate.set()
    finished(thinker, expert.pk)
    assert services.referee_pass(now=due, thinker=thinker) == 1
    move = Move.objects.filter(table=expert).order_by("-seq").first()
    assert (move.seat, move.by, move.version) == (1, Move.By.BOT, expert.version + 1)
    assert move.action in gin.view(state_of(expert), 1)["legal_actions"]


def test_an_answer_for_a_table_that_moved_on_is_dropped_and_the_search_started_again(players, held_thinker):
    table = bot_to_move(players[0], "expert")
    thinker, gate = held_thinker
    assert services.referee_pass(now=table.bot_due_at, thinker=thinker) == 0
    gate.set()
    finished(thinker, table.pk)
    Table.objects.filter(pk=table.pk).update(version=F("version") + 1)  # another referee played meanwhile

    assert services.referee_pass(now=table.bot_due_at, thinker=thinker) == 0
    assert thinker.thinking(table.pk) or thinker.answer(table.pk, table.version + 1) is not None
    assert not Move.objects.filter(table=table, version=table.version + 1).exists()


def test_a_search_that_fails_gives_the_timeout_move_and_the_table_goes_on(players, monkeypatch):
    def broken(*args):
        raise RuntimeError("the search broke")

    monkeypatch.setattr("games.thinking.think", broken)
    table = bot_to_move(players[0], "expert")
    thinker = Thinker(5.0, executor=lambda: ThreadPoolExecutor(max_workers=1))
    assert services.referee_pass(now=table.bot_due_at, thinker=thinker) == 0
    finished(thinker, table.pk)
    assert services.referee_pass(now=table.bot_due_at, thinker=thinker) == 1
    thinker.shutdown()
    moves = Move.objects.filter(table=table, version=table.version + 1)
    assert [m.by for m in moves] and {m.by for m in moves} == {Move.By.TIMEOUT}


def test_the_levels_that_do_not_search_still_move_in_the_pass(players, held_thinker):
    table = bot_to_move(players[0], "advanced")
    thinker, _gate = held_thinker
    assert services.referee_pass(now=table.bot_due_at, thinker=thinker) == 1
    assert not thinker.thinking(table.pk)


def test_the_worker_is_a_spawned_process_that_needs_no_django():
    m = gin.new_match({"target": 100}, rng=random.Random(4))
    view = gin.view(m, m.to_act)
    thinker = Thinker(0.5)
    try:
        thinker.start(7, 3, bots="games.engine.gin.bots", view=view, level="expert", seed=11)
        finished(thinker, 7)
        assert thinker.answer(7, 4) is None  # another version: dropped
        thinker.start(7, 3, bots="games.engine.gin.bots", view=view, level="expert", seed=11)
        finished(thinker, 7)
        action = thinker.answer(7, 3)
    finally:
        thinker.shutdown()
    assert action is not FAILED and action in view["legal_actions"]


@pytest.mark.django_db(transaction=True)
async def test_the_referee_inside_daphne_leaves_the_search_to_the_worker_and_plays_its_answer(players, held_thinker,
                                                                                              monkeypatch):
    """games.web.timekeeper's pass (run on the event loop's database thread) returns while the expert thinks."""
    from asgiref.sync import sync_to_async

    from games.web import timekeeper

    thinker, gate = held_thinker
    monkeypatch.setattr(timekeeper, "_thinker", thinker)
    table = await sync_to_async(bot_to_move)(players[0], "expert")
    monkeypatch.setattr("django.utils.timezone.now", lambda: table.bot_due_at)

    await timekeeper.one_pass()
    assert thinker.thinking(table.pk)
    assert (await Table.objects.aget(pk=table.pk)).version == table.version

    gate.set()
    while thinker.thinking(table.pk):
        await thinker.wait_async(1.0)
    assert await timekeeper.one_pass() >= 1
    assert (await Table.objects.aget(pk=table.pk)).version == table.version + 1


def test_answers_nobody_comes_back_for_are_let_go(monkeypatch):
    monkeypatch.setattr("games.thinking.MAX_JOBS", 3)
    monkeypatch.setattr("games.thinking.think", lambda *args: {"action": "pass"})
    thinker = Thinker(1.0, executor=lambda: ThreadPoolExecutor(max_workers=1))
    try:
        for table_id in range(3):
            thinker.start(table_id, 1, bots="games.engine.gin.bots", view={}, level="expert", seed=0)
            finished(thinker, table_id)
        thinker.start(3, 1, bots="games.engine.gin.bots", view={}, level="expert", seed=0)
        finished(thinker, 3)
        assert [thinker.answer(table_id, 1) for table_id in range(4)] == [None, None, None, {"action": "pass"}]
    finally:
        thinker.shutdown()
