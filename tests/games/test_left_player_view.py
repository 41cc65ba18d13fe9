"""Whoever left a match sees it as a spectator from then on: after resigning at a 3-seat Rommé table (the
match goes on without them), every frame their sockets receive, by fan-out or on reconnecting, is the
public view: no ``hand``, no ``best_opening``, nothing the spectators do not get."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from games import services
from games.reads import selectors
from tests.games.helpers import Socket, play_over_sockets

pytestmark = pytest.mark.django_db(transaction=True)

SEAT_ONLY_KEYS = ("hand", "best_opening", "hand_augen", "legal_actions")


def assert_public(frame: dict, public_view: dict | None, where: str) -> None:
    view = frame["view"]
    assert view is not None, where
    leaked = [key for key in SEAT_ONLY_KEYS if key in view]
    assert leaked == [], f"{where}: version {frame['version']} carries {leaked}"
    if public_view is not None:
        assert view == public_view, f"{where}: version {frame['version']} differs from the public view"


async def test_a_romme_player_who_resigned_receives_only_the_public_view(players, spectator):
    anna, ben, cleo = players[:3]
    table = await sync_to_async(services.table_create)(user=anna, game="romme", preset="standard",
                                                      options={"seats": 3, "rounds": 2})
    for user in (ben, cleo):
        await sync_to_async(services.table_join)(table_id=table.pk, user=user)
    sockets = {index: await Socket.open(table.pk, user, deltas=True) for index, user in enumerate((anna, ben, cleo))}
    sven = await Socket.open(table.pk, spectator, deltas=True)
    for socket in (*sockets.values(), sven):
        await socket.until(lambda f: f["type"] == "state")
    assert "hand" in sockets[2].state["view"]  # seated: her own hand, before she leaves

    await sockets[2].send({"type": "resign"})
    resigned = await sockets[2].until(lambda f: f["type"] == "state" and f["table"]["seats"][2]["left"])
    await sven.until_version(resigned["version"])
    public = {f["version"]: f["view"] for f in sven.frames if f["type"] == "state"}
    assert_public(resigned, public.get(resigned["version"]), "the fan-out of her resignation")

    cleo_frames: list[dict] = []

    async def watch(socket, frame):
        if socket is sven:
            public[frame["version"]] = frame["view"]
        elif socket is sockets[2]:
            cleo_frames.append(frame)

    reconnects: list[dict] = []

    async def reconnect_now() -> None:
        again = await Socket.open(table.pk, cleo, deltas=True)
        reconnects.append(await again.until(lambda f: f["type"] == "state"))
        reconnects.append(await sync_to_async(selectors.table_state_for)(table_id=table.pk, user=None))
        await again.close()

    await reconnect_now()
    final = await play_over_sockets({0: sockets[0], 1: sockets[1]}, watchers=[sockets[2], sven], on_state=watch)
    assert final["table"]["status"] == "finished"
    await sockets[2].drain()
    await sven.drain()
    for frame in sven.frames:
        if frame["type"] == "state":
            public[frame["version"]] = frame["view"]
    assert len(cleo_frames) > 10  # the match went on for a good while after she left
    assert len(sockets[2].deltas) > 10  # most of them as deltas (checked as the states they make)
    for frame in cleo_frames:
        assert_public(frame, public.get(frame["version"]), "fan-out after she left")
    await reconnect_now()
    for mine, theirs in zip(reconnects[::2], reconnects[1::2], strict=True):
        assert_public(mine, theirs["view"] if theirs["version"] == mine["version"] else None, "on reconnect")
    for socket in (*sockets.values(), sven):
        await socket.close()
