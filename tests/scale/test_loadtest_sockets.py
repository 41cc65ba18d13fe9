"""The load generator's sockets: a socket the server closed (bare daphne closes with 1011 when its application
fails) is counted as dropped, once, and does not end the run."""

import asyncio

from websockets.asyncio.client import connect
from websockets.asyncio.server import serve

from loadtest import players


async def _closed_by_the_server(figures):
    async def handler(ws):
        await ws.close(1011, "internal error")

    async with serve(handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        sock = players.Socket(figures, site=False)
        # No reader task: the send below is the first to meet the close, as a move sent in the same instant.
        sock.ws = await connect(f"ws://127.0.0.1:{port}/")
        await sock.ws.wait_closed()
        first = await sock.send({"seat": 0, "version": 0})
        second = await sock.send({"seat": 0, "version": 0})
        return sock, first, second


def test_a_send_on_a_socket_the_server_closed_counts_one_drop_and_does_not_raise():
    figures = players.Figures()
    sock, first, second = asyncio.run(_closed_by_the_server(figures))
    assert (first, second) == (False, False)
    assert sock.closed
    assert figures.errors == 1
    assert figures.error_kinds == {"closed:ConnectionClosedError": 1}
