"""Who may ask for a meld preview on the table socket, and what it costs (issue 25): only the seat to act, in
its own turn; everyone else gets a clear error and no state; each preview costs a token like any message that
changes nothing; an ``id`` or card the page could not take back (a lone surrogate, a huge number) is refused
with ``bad_message``, never a server error."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async

from games import services
from games.delivery import limits as ratelimit
from games.models import Table
from games.reads import selectors
from tests.games.helpers import Socket, state_of

BURST = 5


@pytest.fixture
def tight_limits(settings):
    settings.GAMES_SOCKET_BURST = BURST
    settings.GAMES_SOCKET_RATE = 0.001  # no refill within a test


@sync_to_async
def running_romme(players) -> tuple[int, int]:
    table = services.table_create(user=players[0], game="romme", preset="standard", options={"seats": 3})
    for user in players[1:3]:
        services.table_join(table_id=table.pk, user=user)
    return table.pk, state_of(Table.objects.get(pk=table.pk)).to_act


PREVIEW = {"type": "meld_preview", "id": 1, "cards": ["7H", "JK", "5H"]}


async def answer(socket: Socket) -> dict:
    return await socket.until(lambda f: f["type"] in ("meld_preview", "error", "state"))


@pytest.mark.django_db(transaction=True)
async def test_the_seat_to_act_gets_its_preview(players):
    table_id, to_act = await running_romme(players)
    socket = await Socket.open(table_id, players[to_act])
    await socket.until(lambda f: f["type"] == "state")
    await socket.send(PREVIEW)
    assert await answer(socket) == {**PREVIEW, **selectors.meld_preview(game="romme", cards=PREVIEW["cards"])}
    await socket.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("who", ["another seat", "spectator", "anonymous"])
async def test_anyone_but_the_seat_to_act_is_refused_clearly(players, spectator, who):
    table_id, to_act = await running_romme(players)
    user = {"another seat": players[(to_act + 1) % 3], "spectator": spectator, "anonymous": None}[who]
    socket = await Socket.open(table_id, user)
    await socket.until(lambda f: f["type"] == "state")
    await socket.send(PREVIEW)
    error = await answer(socket)
    assert error["type"] == "error"
    assert error["code"] == ("not_your_turn" if who == "another seat" else "not_seated")
    assert "eigenen Zug" in error["message"] or "am Zug" in error["message"]
    # No state follows a refused preview (it changes nothing), and the socket still answers.
    await socket.send({"type": "ping"})
    assert (await socket.until(lambda f: f["type"] in ("pong", "state")))["type"] == "pong"
    await socket.close()


@pytest.mark.django_db(transaction=True)
async def test_the_turn_passing_on_moves_the_right_to_ask(players):
    table_id, to_act = await running_romme(players)
    player = await Socket.open(table_id, players[to_act])
    state = await player.until(lambda f: f["type"] == "state")
    await player.send(PREVIEW)
    assert (await answer(player))["type"] == "meld_preview"
    # Draw, then discard: the turn passes on, and the same socket is refused from then on.
    await player.send({"type": "move", "version": state["version"], "action": {"action": "draw", "from": "stock"}})
    state = await player.until(lambda f: f["type"] == "state" and f["version"] > state["version"])
    card = state["view"]["hand"][0]
    await player.send({"type": "move", "version": state["version"], "action": {"action": "discard", "card": card}})
    state = await player.until(lambda f: f["type"] == "state" and f["version"] > state["version"])
    assert state["view"]["to_act"] != to_act
    await player.send(PREVIEW)
    error = await answer(player)
    assert error["type"] == "error" and error["code"] == "not_your_turn"
    await player.close()


@sync_to_async
def running_gin(players) -> tuple[int, int]:
    table = services.table_create(user=players[0], game="gin", preset="schnell", options={})
    services.table_join(table_id=table.pk, user=players[1])
    return table.pk, state_of(Table.objects.get(pk=table.pk)).to_act


@pytest.mark.django_db(transaction=True)
async def test_a_game_without_a_meld_builder_refuses_previews_even_to_the_seat_to_act(players):
    # The game's registry entry says whether it has a preview (gin's offers none): nobody asks Rommé's rules
    # about a gin hand.
    table_id, to_act = await running_gin(players)
    socket = await Socket.open(table_id, players[to_act])
    await socket.until(lambda f: f["type"] == "state")
    await socket.send(PREVIEW)
    error = await answer(socket)
    assert (error["type"], error["code"]) == ("error", "no_preview")
    assert error["message"] == selectors.PREVIEW_NONE[1]
    await socket.close()


def test_a_preview_is_asked_of_the_games_own_entry():
    from games import registry

    assert registry.get("gin").meld_preview is None
    with pytest.raises(ValueError, match="the game 'gin' has no meld preview"):
        selectors.meld_preview(game="gin", cards=["7H", "8H", "9H"])


@pytest.mark.django_db(transaction=True)
async def test_refused_previews_are_charged_and_a_flood_of_them_ends_in_a_close(players, spectator, tight_limits):
    table_id, _to_act = await running_romme(players)
    socket = await Socket.open(table_id, None)
    await socket.until(lambda f: f["type"] == "state")
    for _ in range(BURST + ratelimit.refusals_to_close() + 10):
        await socket.send(PREVIEW)
    codes = []
    while True:
        output = await socket.communicator.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            break
        codes.append(json.loads(output["text"])["code"])
    assert codes == ["not_seated"] * BURST + ["rate_limited"] * ratelimit.refusals_to_close()
    assert output["code"] == ratelimit.CLOSE_CODE


HOSTILE_PREVIEWS = {
    "surrogate id": '{"type": "meld_preview", "id": "\\ud800", "cards": ["7H", "JK", "5H"]}',
    "surrogate in a card": '{"type": "meld_preview", "id": 1, "cards": ["7H", "\\ud800H", "5H"]}',
    "huge id": '{"type": "meld_preview", "id": ' + "9" * 4000 + ', "cards": ["7H", "JK", "5H"]}',
    "float id": '{"type": "meld_preview", "id": NaN, "cards": ["7H", "JK", "5H"]}',
    "object id": '{"type": "meld_preview", "id": {"a": 1}, "cards": ["7H", "JK", "5H"]}',
    "long id": '{"type": "meld_preview", "id": "' + "x" * 65 + '", "cards": ["7H", "JK", "5H"]}',
    "card of other characters": '{"type": "meld_preview", "id": 1, "cards": ["7H", "é5", "5H"]}',
}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", sorted(HOSTILE_PREVIEWS))
async def test_a_preview_the_page_could_not_take_back_is_a_bad_message(players, kind, caplog):
    table_id, to_act = await running_romme(players)
    socket = await Socket.open(table_id, players[to_act])
    await socket.until(lambda f: f["type"] == "state")
    await socket.communicator.send_input({"type": "websocket.receive", "text": HOSTILE_PREVIEWS[kind]})
    output = await socket.communicator.receive_output(timeout=5)
    output["text"].encode("utf-8")  # a lone surrogate in a frame would break the real socket
    error = json.loads(output["text"])
    assert error["type"] == "error" and error["code"] == "bad_message", error
    assert "meld_preview" in error["message"]
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
    await socket.close()
