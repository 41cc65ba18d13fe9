"""Hostile input, generated (hypothesis): random message shapes, types, sizes and text (lone surrogates
too), numbers past every limit, meld previews (surrogates in their ids and cards), versions and actions built
from real card codes, sent by a seated player, the other player, a
signed-in spectator or an anonymous visitor. Every message is answered by an ``error`` with a documented
code (and then the table's version is unchanged) or by valid frames; the socket still answers ``ping``;
every frame is text a real socket can carry (UTF-8); nobody gets another seat's cards; and nothing is
logged at ERROR (no traceback)."""

from __future__ import annotations

import json
import logging

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import channel_layers
from hypothesis import given
from hypothesis import strategies as st

from games import services
from games.models import Table
from tests.games import fuzzing
from tests.games.fuzzing import CURRENT, FUZZ, LEGAL, Binary, Raw
from tests.games.helpers import Socket, state_of

DOCUMENTED = fuzzing.documented_error_codes()
ANSWER_TIMEOUT = 10


def test_the_documented_codes_are_read_from_the_protocol():
    assert {"bad_message", "too_large", "stale_version", "rate_limited", "server_error"} <= DOCUMENTED
    assert "state" not in DOCUMENTED and "sync" not in DOCUMENTED


def materialize(value, *, version: int, legal: list[dict]):
    if value == CURRENT and isinstance(value, str) and not isinstance(value, Raw):
        return version
    if value == LEGAL and isinstance(value, str) and not isinstance(value, Raw):
        return legal[0] if legal else {"action": "draw", "from": "stock"}
    if isinstance(value, dict):
        return {k: materialize(v, version=version, legal=legal) for k, v in value.items()}
    if isinstance(value, list):
        return [materialize(v, version=version, legal=legal) for v in value]
    return value


class Probe:
    """A socket whose every output is checked to be a text frame a real connection could carry."""

    def __init__(self, socket: Socket):
        self.socket = socket
        self.state: dict | None = socket.pending[0] if socket.pending else None

    async def send(self, message) -> None:
        communicator = self.socket.communicator
        if isinstance(message, Binary):
            await communicator.send_input({"type": "websocket.receive", "bytes": bytes(message)})
        elif isinstance(message, Raw):
            await communicator.send_input({"type": "websocket.receive", "text": str(message)})
        else:
            await communicator.send_input({"type": "websocket.receive", "text": json.dumps(message)})

    async def frame(self) -> dict:
        if self.socket.pending:
            return self.socket.pending.pop(0)
        output = await self.socket.communicator.receive_output(timeout=ANSWER_TIMEOUT)
        assert output["type"] == "websocket.send", f"the server closed the socket: {output}"
        assert output.get("text") is not None, "a binary frame from the server"
        output["text"].encode("utf-8")  # a lone surrogate here would break a real socket's UTF-8
        return json.loads(output["text"])


def check_state(frame: dict, *, table_id: int, seat: int | None) -> None:
    assert isinstance(frame["version"], int) and frame["version"] >= 1
    table = frame["table"]
    assert table["id"] == table_id and isinstance(table["seats"], list)
    if seat is not None and table.get("left") == seat:
        seat = None  # whoever left the match watches from then on: the public view, with the seat they had
    assert table["you"] == seat, (table["you"], seat)
    view = frame["view"]
    assert view is None or isinstance(view, dict)
    if view is not None and seat is None:
        assert "hand" not in view and "legal_actions" not in view  # nobody sees a seat's cards but its own


@sync_to_async
def table_version(table_id: int) -> int:
    return Table.objects.filter(pk=table_id).values_list("version", flat=True).get()


@sync_to_async
def seat_of(table_id: int, user) -> int | None:
    if user is None:
        return None
    return Table.objects.get(pk=table_id).seats.filter(user=user).values_list("index", flat=True).first()


async def drive(table_id: int, user, batch: list) -> None:
    channel_layers.backends.clear()  # a new event loop for each example: a new in-memory layer
    socket = await Socket.open(table_id, user)
    probe = Probe(socket)
    first = await probe.frame()
    assert first["type"] == "state"
    probe.state = first
    seen = first["version"]
    for message in batch:
        before = await table_version(table_id)
        legal = (probe.state or {}).get("view") or {}
        message = materialize(message, version=before, legal=legal.get("legal_actions") or [])
        await probe.send(message)
        await probe.send({"type": "ping"})
        frames = []
        while True:
            frame = await probe.frame()
            if frame["type"] == "pong":
                assert isinstance(frame["version"], int)
                break
            frames.append(frame)
            if frame["type"] == "state":
                seen = max(seen, frame["version"])
        after = await table_version(table_id)
        while seen < after:  # the fan-out of a change this message made may come after the pong
            frame = await probe.frame()
            frames.append(frame)
            if frame["type"] == "state":
                seen = max(seen, frame["version"])
        seat = await seat_of(table_id, user)
        errors = [f for f in frames if f["type"] == "error"]
        case = f"{socket.name} sent {str(message)[:200]!r}"
        for frame in frames:
            assert frame["type"] in ("state", "error", "chat", "presence", "meld_preview"), (case, frame)
            if frame["type"] == "meld_preview":  # only for the seat to act, with what it asked echoed
                assert isinstance(message, dict) and frame["id"] == message.get("id"), (case, frame)
                assert frame["cards"] == message["cards"], (case, frame)
                assert seat is not None, (case, frame)  # a spectator is never answered
            if frame["type"] == "state":
                check_state(frame, table_id=table_id, seat=seat if frame["version"] == after else frame["table"]["you"])
                seen = max(seen, frame["version"])
                probe.state = frame
        for error in errors:
            assert error["code"] in DOCUMENTED, (case, error)
            assert error["code"] != "server_error", (case, error)
            assert isinstance(error["message"], str) and error["message"], (case, error)
            assert error["version"] == before, (case, error)
        if errors:
            assert after == before, f"{case}: refused with {[e['code'] for e in errors]} but the version moved"
    await socket.close()


@sync_to_async
def playing_table(game: str, players) -> int:
    """A table of ``game`` being played by the players (a fresh one when the last has ended)."""
    options = {} if game == "gin" else {"seats": 3, "rounds": 2}
    table = services.table_create(user=players[0], game=game, preset="schnell" if game == "gin" else "standard",
                                  options=options)
    for user in players[1:3 if game == "romme" else 2]:
        services.table_join(table_id=table.pk, user=user)
    return table.pk


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", ["gin", "romme"])
def test_hostile_messages_on_a_table_socket(game, players, spectator, caplog, settings):
    settings.GAMES_MAX_OPEN_TABLES = 0  # the fuzz opens a new table whenever the last one ended
    caplog.set_level(logging.WARNING)
    people = {"anna": players[0], "ben": players[1], "sven": spectator, "anonymous": None}
    current = {"table": async_to_sync(playing_table)(game, players)}

    # Whoever is to act, twice as often as anyone else: their plausible moves reach the rules and play on.
    senders = st.sampled_from(["to act", "to act", *sorted(people)])

    @FUZZ
    @given(sender=senders, batch=st.lists(fuzzing.table_messages, min_size=1, max_size=6))
    def run(sender, batch):
        table = Table.objects.get(pk=current["table"])
        if table.status != Table.Status.PLAYING:
            current["table"] = async_to_sync(playing_table)(game, players)
            table = Table.objects.get(pk=current["table"])
        if sender == "to act":
            to_act = state_of(table).to_act
            user = table.seats.get(index=to_act).user if to_act is not None else players[0]
        else:
            user = people[sender]
        caplog.clear()
        async_to_sync(drive)(current["table"], user, batch)
        logged = [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
        assert logged == []

    run()


@pytest.mark.django_db(transaction=True)
def test_hostile_meld_previews(players, spectator, caplog):
    # Previews alone, from the seat to act (whose previews are answered: every echo must be text a real
    # socket carries) and from everyone else (refused clearly).
    caplog.set_level(logging.WARNING)
    people = {"ben": players[1], "sven": spectator, "anonymous": None}
    current = {"table": async_to_sync(playing_table)("romme", players)}

    @FUZZ
    @given(sender=st.sampled_from(["to act", "to act", "to act", *sorted(people)]),
           batch=st.lists(fuzzing.previews, min_size=1, max_size=6))
    def run(sender, batch):
        table = Table.objects.get(pk=current["table"])
        to_act = state_of(table).to_act
        user = table.seats.get(index=to_act).user if sender == "to act" and to_act is not None else people.get(sender)
        caplog.clear()
        async_to_sync(drive)(current["table"], user, batch)
        logged = [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
        assert logged == []

    run()


# --- the lobby -------------------------------------------------------------------------------------------


async def drive_lobby(batch: list) -> None:
    from channels.testing import WebsocketCommunicator

    from ginsite.asgi import application

    channel_layers.backends.clear()
    lobby = WebsocketCommunicator(application, "/ws/lobby/", headers=[(b"origin", b"http://testserver")])
    assert (await lobby.connect(timeout=5))[0]
    socket = Socket(lobby, "lobby")
    probe = Probe(socket)
    assert (await probe.frame())["type"] == "lobby"
    for message in batch:
        message = materialize(message, version=0, legal=[])
        await probe.send(message)
        answer = await probe.frame()
        case = f"the lobby got {str(message)[:200]!r}"
        if answer["type"] == "error":
            assert answer["code"] in DOCUMENTED and answer["code"] != "server_error", (case, answer)
        else:
            assert answer["type"] == "lobby" and isinstance(answer["tables"], list), (case, answer)
        await probe.send({"type": "sync"})  # the lobby's own "ping": it still answers
        assert (await probe.frame())["type"] == "lobby", case
    await lobby.disconnect()


@pytest.mark.django_db(transaction=True)
def test_hostile_messages_on_the_lobby_socket(players, caplog):
    caplog.set_level(logging.WARNING)
    services.table_create(user=players[0], game="gin")

    @FUZZ
    @given(batch=st.lists(fuzzing.table_messages, min_size=1, max_size=6))
    def run(batch):
        caplog.clear()
        async_to_sync(drive_lobby)(batch)
        assert [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info] == []

    run()
