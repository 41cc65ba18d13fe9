"""Sockets to paths no app serves are accepted and closed with 4404, without a traceback in the log."""

from __future__ import annotations

import logging

import pytest
from channels.testing import WebsocketCommunicator

from ginsite.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

UNKNOWN_PATHS = [
    "/ws/table/abc/",
    "/ws/table/1/extra/",
    "/ws/table/-1/",
    "/ws/table/",
    "/ws/lobby",
    "/ws/nothing/",
    "/",
    "/ws/table/%00/",
    "/ws/table/١٢/",  # Arabic-Indic digits are no table id
]


async def close_code_of(path: str) -> int | None:
    communicator = WebsocketCommunicator(application, path, headers=[(b"origin", b"http://testserver")])
    connected, _ = await communicator.connect(timeout=5)
    assert connected, path
    output = await communicator.receive_output(timeout=5)
    await communicator.disconnect()
    return output["code"] if output["type"] == "websocket.close" else None


@pytest.mark.parametrize("path", UNKNOWN_PATHS)
async def test_a_socket_to_an_unknown_path_is_closed_with_4404_and_no_traceback(path, caplog):
    caplog.set_level(logging.ERROR)
    assert await close_code_of(path) == 4404
    assert [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info] == []


@pytest.mark.parametrize("table_id", ["0", "99999999999999999999999999"])
async def test_a_table_id_that_cannot_exist_is_closed_with_4404_and_no_traceback(table_id, caplog):
    caplog.set_level(logging.ERROR)
    assert await close_code_of(f"/ws/table/{table_id}/") == 4404
    assert [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info] == []


async def test_known_paths_still_reach_their_consumers():
    communicator = WebsocketCommunicator(application, "/ws/lobby/", headers=[(b"origin", b"http://testserver")])
    assert (await communicator.connect(timeout=5))[0]
    assert (await communicator.receive_json_from(timeout=5))["type"] == "lobby"
    await communicator.disconnect()


async def test_an_unknown_path_from_a_foreign_origin_is_refused_at_the_handshake():
    communicator = WebsocketCommunicator(application, "/ws/nothing/", headers=[(b"origin", b"http://evil.example")])
    connected, _ = await communicator.connect(timeout=5)
    assert not connected
