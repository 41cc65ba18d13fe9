"""Every socket message is charged to the socket's token bucket before it is read or answered
(``games/delivery/limits.py``): garbage, unknown types, malformed previews and refused moves cost what a refused move
costs, so a flood of any of them is answered ``rate_limited`` once the burst is spent, over the real ASGI app.
``ping`` stays free, and nothing on the table changes."""

from __future__ import annotations

import json
import time

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from games import services
from games.delivery import limits as ratelimit
from games.models import Table
from tests.games.helpers import Socket, state_of

create_table = sync_to_async(services.table_create)
join_table = sync_to_async(services.table_join)

BURST = 5
SENT = BURST + 3


@pytest.fixture
def tight_limits(settings):
    settings.GAMES_SOCKET_BURST = BURST
    settings.GAMES_SOCKET_RATE = 0.001  # no refill within a test


async def running_gin(players) -> tuple[Table, Socket, Socket]:
    table = await create_table(user=players[0], game="gin", preset="schnell", options={})
    await join_table(table_id=table.pk, user=players[1])
    anna, ben = await Socket.open(table.pk, players[0]), await Socket.open(table.pk, players[1])
    for socket in (anna, ben):
        await socket.until(lambda f: f["type"] == "state")
    return table, anna, ben


async def send_raw(socket: Socket, text: str) -> None:
    await socket.communicator.send_input({"type": "websocket.receive", "text": text})


async def error_codes(socket: Socket, count: int) -> list[str]:
    """The codes of the next ``count`` errors (state and presence frames in between are skipped)."""
    codes = []
    while len(codes) < count:
        frame = await socket.receive()
        if frame["type"] == "error":
            codes.append(frame["code"])
    return codes


async def table_version(table_id: int) -> int:
    return (await sync_to_async(Table.objects.get)(pk=table_id)).version


GARBAGE = {
    "invalid_json": ("{not json", "bad_message"),
    "unknown_type": ('{"type": "teleport"}', "bad_message"),
    "not_an_object": ("[1, 2, 3]", "bad_message"),
    "bad_meld_preview": ('{"type": "meld_preview", "id": 1, "cards": "7H 8H 9H"}', "bad_message"),
    "meld_preview_of_too_many_cards": ('{"type": "meld_preview", "cards": [' + ", ".join(['"7H"'] * 15) + "]}",
                                       "bad_message"),
    "too_large": ('{"type": "sync", "pad": "' + "x" * 5000 + '"}', "too_large"),
}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", sorted(GARBAGE))
async def test_a_flood_of_each_kind_of_garbage_is_charged_then_rate_limited(players, tight_limits, kind):
    text, code = GARBAGE[kind]
    table, anna, ben = await running_gin(players)
    version = anna.state["version"]
    for _ in range(SENT):
        await send_raw(anna, text)
    assert await error_codes(anna, SENT) == [code] * BURST + ["rate_limited"] * (SENT - BURST)
    assert await table_version(table.pk) == version
    await anna.close()
    await ben.close()


@pytest.mark.django_db(transaction=True)
async def test_binary_messages_are_charged_too(players, tight_limits):
    table, anna, ben = await running_gin(players)
    for _ in range(SENT):
        await anna.communicator.send_input({"type": "websocket.receive", "bytes": b'{"type": "sync"}'})
    assert await error_codes(anna, SENT) == ["bad_message"] * BURST + ["rate_limited"] * (SENT - BURST)
    await anna.close()
    await ben.close()


@pytest.mark.django_db(transaction=True)
async def test_a_flood_of_valid_moves_out_of_turn_is_charged_then_rate_limited(players, tight_limits):
    table, anna, ben = await running_gin(players)
    version = anna.state["version"]
    waiter = anna if anna.state["view"]["to_act"] != 0 else ben
    for _ in range(SENT):
        await waiter.send({"type": "move", "version": version, "action": {"action": "draw", "from": "stock"}})
    assert await error_codes(waiter, SENT) == ["not_your_turn"] * BURST + ["rate_limited"] * (SENT - BURST)
    assert await table_version(table.pk) == version
    await anna.close()
    await ben.close()


@pytest.mark.django_db(transaction=True)
async def test_kinds_share_one_bucket(players, tight_limits):
    table, anna, ben = await running_gin(players)
    for text, _code in GARBAGE.values():
        await send_raw(anna, text)
    await anna.send({"type": "sync"})
    codes = await error_codes(anna, len(GARBAGE))
    assert codes[:BURST] == [code for _text, code in GARBAGE.values()][:BURST]
    assert codes[BURST:] == ["rate_limited"] * (len(GARBAGE) - BURST)
    # The sync after them: refused as well, the bucket is empty whatever emptied it.
    assert await error_codes(anna, 1) == ["rate_limited"]
    await anna.close()
    await ben.close()


@pytest.mark.django_db(transaction=True)
async def test_ping_stays_free_with_the_bucket_empty(players, tight_limits):
    table, anna, ben = await running_gin(players)
    version = anna.state["version"]
    for _ in range(SENT):
        await send_raw(anna, "{not json")
    await error_codes(anna, SENT)
    for _ in range(3):
        await anna.send({"type": "ping"})
        assert (await anna.until(lambda f: f["type"] in ("pong", "error"))) == {"type": "pong", "version": version}
    # A ping padded past what a ping can be is not read with the bucket empty.
    await send_raw(anna, '{"type": "ping", "pad": "' + "x" * 50 + '"}')
    assert await error_codes(anna, 1) == ["rate_limited"]
    await anna.close()
    await ben.close()


@pytest.mark.django_db(transaction=True)
async def test_pings_cost_nothing_while_the_bucket_is_full(players, tight_limits):
    table, anna, ben = await running_gin(players)
    for _ in range(3 * BURST):
        await anna.send({"type": "ping"})
    for _ in range(3 * BURST):
        await anna.until(lambda f: f["type"] == "pong")
    # Every token is still there: a burst of syncs is answered.
    for _ in range(BURST):
        await anna.send({"type": "sync"})
    for _ in range(BURST):
        frame = await anna.until(lambda f: f["type"] in ("state", "error"))
        assert frame["type"] == "state"
    await anna.close()
    await ben.close()


@pytest.mark.django_db(transaction=True)
async def test_meld_previews_are_charged_even_when_answered(players, tight_limits):
    # A preview changes nothing: it costs its token like any such message (it used to give it back, so a
    # flood of previews was answered without end, each a run of the solver).
    table = await create_table(user=players[0], game="romme", preset="standard", options={"seats": 3})
    for user in players[1:3]:
        await join_table(table_id=table.pk, user=user)
    to_act = await sync_to_async(lambda: state_of(Table.objects.get(pk=table.pk)).to_act)()
    player = await Socket.open(table.pk, players[to_act])
    await player.until(lambda f: f["type"] == "state")
    for n in range(SENT):
        await player.send({"type": "meld_preview", "id": n, "cards": ["7H", "JK", "5H"]})
    answers = [await player.until(lambda f: f["type"] in ("meld_preview", "error")) for _ in range(SENT)]
    assert [a["type"] for a in answers] == ["meld_preview"] * BURST + ["error"] * (SENT - BURST)
    assert [a["id"] for a in answers[:BURST]] == list(range(BURST))
    assert {a["code"] for a in answers[BURST:]} == {"rate_limited"}
    await player.close()


@pytest.mark.django_db(transaction=True)
async def test_a_thousand_garbage_messages_get_at_most_the_burst_and_the_rate_of_answers(players):
    # The site's own limits (60 at once, then 5 a second), measured against the time the flood took; after
    # 20 refusals in a row the socket is closed (4429) and the rest is not answered at all.
    from django.conf import settings

    table, anna, ben = await running_gin(players)
    started = time.monotonic()
    for _ in range(1000):
        await send_raw(anna, "{not json")
    codes = []
    while True:
        output = await anna.communicator.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            break
        frame = json.loads(output["text"])
        if frame["type"] == "error":
            codes.append(frame["code"])
    elapsed = time.monotonic() - started
    assert output["code"] == ratelimit.CLOSE_CODE
    answered = codes.count("bad_message")
    assert codes.count("rate_limited") >= ratelimit.refusals_to_close()
    assert len(codes) < 1000
    assert settings.GAMES_SOCKET_BURST <= answered <= settings.GAMES_SOCKET_BURST + settings.GAMES_SOCKET_RATE * elapsed + 1
    await ben.close()


# --- the lobby -------------------------------------------------------------------------------------------


async def open_lobby() -> WebsocketCommunicator:
    from ginsite.asgi import application

    lobby = WebsocketCommunicator(application, "/ws/lobby/", headers=[(b"origin", b"http://testserver")])
    assert (await lobby.connect(timeout=5))[0]
    assert (await lobby.receive_json_from(timeout=5))["type"] == "lobby"
    return lobby


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("text", ["{not json", '{"type": "teleport"}', "null"])
async def test_a_flood_of_lobby_garbage_is_charged_then_rate_limited(tight_limits, text):
    lobby = await open_lobby()
    for _ in range(SENT):
        await lobby.send_input({"type": "websocket.receive", "text": text})
    codes = [(await lobby.receive_json_from(timeout=5))["code"] for _ in range(SENT)]
    assert codes == ["bad_message"] * BURST + ["rate_limited"] * (SENT - BURST)
    await lobby.send_json_to({"type": "sync"})  # the bucket is empty whatever emptied it
    assert (await lobby.receive_json_from(timeout=5))["code"] == "rate_limited"
    await lobby.disconnect()
