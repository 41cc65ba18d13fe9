"""The ``Tipp`` button asks the server (``{"type": "hint"}``): gin's expert searches for the seat to act, from
that seat's own view only, in the computer players' worker (never on the event loop) within 300 ms, and the
answer goes to that socket alone. Everyone else, and Rommé or tournament tables, get a clear error."""

from __future__ import annotations

import json
import random
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.sync import sync_to_async

from games import registry, services, thinking
from games.engine.gin import bots as gin_bots
from games.engine.gin.melds import cards_of
from games.models import Table
from games.thinking import Thinker
from games.web import timekeeper
from tests.games.helpers import Socket, state_of


@sync_to_async
def running_gin(players) -> tuple[int, int, object]:
    table = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
    services.table_join(table_id=table.pk, user=players[1])
    state = state_of(Table.objects.get(pk=table.pk))
    return table.pk, state.to_act, state


@sync_to_async
def running_romme(players) -> tuple[int, int]:
    table = services.table_create(user=players[0], game="romme", preset="standard", options={"seats": 3})
    for user in players[1:3]:
        services.table_join(table_id=table.pk, user=user)
    return table.pk, state_of(Table.objects.get(pk=table.pk)).to_act


@pytest.fixture
def recorded_thinker(monkeypatch):
    """The site's thinker with a worker thread instead of a process, and every search it runs recorded:
    (bots module, view, level, seed, seconds, the thread it ran on)."""
    calls: list[tuple] = []
    real = thinking.think

    def think(bots, view, level, seed, seconds):
        calls.append((bots, view, level, seed, seconds, threading.current_thread()))
        return real(bots, view, level, seed, seconds)

    monkeypatch.setattr(thinking, "think", think)
    pool = ThreadPoolExecutor(max_workers=1)
    monkeypatch.setattr(timekeeper, "_thinker", Thinker(0.5, executor=lambda: pool))
    yield calls
    pool.shutdown(wait=True)


async def answer(socket: Socket) -> dict:
    return await socket.until(lambda f: f["type"] in ("hint", "error", "state"))


def test_the_hint_budget_is_300_ms_of_the_expert():
    assert thinking.HINT_SECONDS == 0.3
    assert thinking.HINT_LEVEL == "expert"
    assert "expert" in gin_bots.SEARCH_LEVELS


@pytest.mark.django_db(transaction=True)
async def test_the_hint_is_the_experts_search_from_the_seats_own_view(players, recorded_thinker, monkeypatch):
    # A long budget here, so that the search plays all its deals and the answer can be checked against the
    # expert's own choice for the same view and seed (the site's budget is the 300 ms checked above).
    monkeypatch.setattr(thinking, "HINT_SECONDS", 60.0)
    table_id, to_act, state = await running_gin(players)
    socket = await Socket.open(table_id, players[to_act])
    frame = await socket.until(lambda f: f["type"] == "state")
    await socket.send({"type": "hint"})
    hint = await answer(socket)
    assert hint["type"] == "hint"
    assert hint["version"] == frame["version"]
    assert hint["action"] in frame["view"]["legal_actions"]

    [(bots, view, level, seed, seconds, thread)] = recorded_thinker
    assert (bots, level, seconds) == ("games.engine.gin.bots", "expert", 60.0)
    assert thread is not threading.main_thread()  # the worker's, not the event loop's
    assert hint["action"] == gin_bots.choose_action(view, "expert", random.Random(seed))
    # The search saw the seat's own view and nothing of the other hand.
    assert view == registry.get("gin").engine.view(state, to_act)
    other = state.round.hands[1 - to_act]
    text = json.dumps(view)
    hidden = cards_of(other)
    assert len(hidden) == 10
    assert not [code for code in hidden if f'"{code}"' in text]
    await socket.close()


@pytest.mark.django_db(transaction=True)
async def test_a_hint_runs_with_the_site_budget(players, recorded_thinker):
    table_id, to_act, _ = await running_gin(players)
    socket = await Socket.open(table_id, players[to_act])
    await socket.until(lambda f: f["type"] == "state")
    await socket.send({"type": "hint"})
    assert (await answer(socket))["type"] == "hint"
    assert [call[4] for call in recorded_thinker] == [0.3]
    await socket.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("who", ["other seat", "spectator", "anonymous"])
async def test_only_the_seat_to_act_gets_a_hint(players, spectator, recorded_thinker, who):
    table_id, to_act, _ = await running_gin(players)
    user = {"other seat": players[1 - to_act], "spectator": spectator, "anonymous": None}[who]
    socket = await Socket.open(table_id, user)
    await socket.until(lambda f: f["type"] == "state")
    await socket.send({"type": "hint"})
    error = await answer(socket)
    assert error["type"] == "error"
    assert error["code"] == ("not_your_turn" if who == "other seat" else "not_seated")
    assert not recorded_thinker  # nothing was searched
    # No state follows a refused hint (it changes nothing), and the socket still answers.
    await socket.send({"type": "ping"})
    assert (await socket.until(lambda f: f["type"] in ("pong", "state")))["type"] == "pong"
    await socket.close()


@pytest.mark.django_db(transaction=True)
async def test_a_romme_hint_is_its_experts_from_the_seats_own_view(players, recorded_thinker):
    # Rommé's expert thinks in the worker too (its SEARCH_LEVELS), so Rommé gets the Tipp from it.
    table_id, to_act = await running_romme(players)
    socket = await Socket.open(table_id, players[to_act])
    frame = await socket.until(lambda f: f["type"] == "state")
    await socket.send({"type": "hint"})
    hint = await answer(socket)
    assert hint["type"] == "hint", hint
    assert hint["action"] in frame["view"]["legal_actions"]
    [(bots, view, level, _seed, seconds, thread)] = recorded_thinker
    assert (bots, level, seconds) == ("games.engine.romme.bots", "expert", 0.3)
    assert thread is not threading.main_thread()
    state = await sync_to_async(lambda: state_of(Table.objects.get(pk=table_id)))()
    assert view == registry.get("romme").engine.view(state, to_act)  # the seat's own view, nothing more
    await socket.close()
