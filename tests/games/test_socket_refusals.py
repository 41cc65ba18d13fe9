"""Every socket is charged and a socket refused too often in a row is closed (issue 25, games/delivery/limits.py):
the notice socket, which used to answer every message (2,000 garbage messages, 2,000 replies), answers the
burst and then ``rate_limited``; after ``GAMES_SOCKET_REFUSALS_TO_CLOSE`` refusals in a row a table, lobby or notice socket
is told so and closed with 4429, and whatever still arrives is dropped unread. A message that got its token
breaks the row; a ping answered with the bucket empty neither counts nor breaks it."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from games import services
from games.delivery import limits as ratelimit
from tests.games.helpers import Socket, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def open_socket(path: str, user=None) -> WebsocketCommunicator:
    from ginsite.asgi import application

    headers = [(b"origin", b"http://testserver")]
    if user is not None:
        cookie = await sync_to_async(session_cookie)(user)
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    communicator = WebsocketCommunicator(application, path, headers=headers)
    assert (await communicator.connect(timeout=5))[0]
    return communicator


async def until_closed(communicator: WebsocketCommunicator) -> tuple[list[str], int]:
    """The error codes the socket was sent, other frames skipped, and the code it was closed with."""
    codes = []
    while True:
        output = await communicator.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return codes, output["code"]
        frame = json.loads(output["text"])
        if frame["type"] == "error":
            codes.append(frame["code"])


async def test_two_thousand_garbage_messages_on_the_notice_socket_get_the_burst_then_a_close(players):
    # The site's own limits: 60 at once, 5 a second, 20 refusals in a row.
    from django.conf import settings

    notices = await open_socket("/ws/notices/", players[0])
    for _ in range(2000):
        await notices.send_input({"type": "websocket.receive", "text": "garbage"})
    codes, close_code = await until_closed(notices)
    assert close_code == ratelimit.CLOSE_CODE
    answered = codes.count("bad_message")
    assert settings.GAMES_SOCKET_BURST <= answered <= settings.GAMES_SOCKET_BURST + 10  # a flood takes < 2 s
    assert codes[-ratelimit.refusals_to_close():] == ["rate_limited"] * ratelimit.refusals_to_close()
    assert len(codes) < 200


async def test_the_lobby_socket_is_closed_after_the_refusals_too(settings):
    settings.GAMES_SOCKET_BURST = 3
    settings.GAMES_SOCKET_RATE = 0.001
    lobby = await open_socket("/ws/lobby/")
    assert json.loads((await lobby.receive_output(timeout=5))["text"])["type"] == "lobby"
    for _ in range(3 + ratelimit.refusals_to_close() + 50):
        await lobby.send_input({"type": "websocket.receive", "text": '{"type": "sync"}'})
    codes, close_code = await until_closed(lobby)
    assert codes == ["rate_limited"] * ratelimit.refusals_to_close()  # the three syncs were answered with lists
    assert close_code == ratelimit.CLOSE_CODE


async def test_a_rested_bucket_breaks_the_row_a_trickle_and_pings_do_not(players, monkeypatch):
    clock = Clock()
    monkeypatch.setattr(ratelimit, "bucket_for_socket", lambda: ratelimit.TokenBucket(rate=1, burst=2, clock=clock))
    table = await sync_to_async(services.table_create)(user=players[0], game="gin", preset="schnell", options={})
    socket = await Socket.open(table.pk, players[0])
    await socket.until(lambda f: f["type"] == "state")
    row = ratelimit.refusals_to_close() - 1

    async def syncs(count: int, kind: str) -> None:
        for _ in range(count):
            await socket.send({"type": "sync"})
            frame = await socket.until(lambda f: f["type"] in ("error", "state"))
            assert (frame["type"] if kind == "state" else frame.get("code")) == kind, frame

    await syncs(2, "state")  # the burst
    await syncs(row - 1, "rate_limited")
    clock.now += 1  # one token from the refill: granted, but the socket is still at the limit
    await syncs(1, "state")
    await syncs(1, "rate_limited")  # the row goes on: 19 refusals
    for _ in range(3):  # pings are answered with the bucket empty, and neither count nor break the row
        await socket.send({"type": "ping"})
        await socket.until(lambda f: f["type"] == "pong")
    clock.now += 2  # the bucket fills again: the next message ends the row
    await syncs(2, "state")
    await syncs(row, "rate_limited")  # a whole row again, short of the close by one
    await socket.send({"type": "sync"})  # the 20th in a row
    codes, close_code = await until_closed(socket.communicator)
    assert codes == ["rate_limited"] and close_code == ratelimit.CLOSE_CODE
