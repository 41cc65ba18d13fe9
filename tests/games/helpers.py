"""Test players: a plain strategy that plays from a seat's own view, and drivers that play tables out."""

from __future__ import annotations

import json
import random
from datetime import timedelta

from games import registry, services
from games.delivery import events
from games.models import Seat, Table

_RNG = random.Random(5)


def choose_action(view: dict) -> dict:
    """What a test player does, seeing only its own view: the game's simple bot where there is one,
    else (gin) knock when it can, pass the first-turn offer, draw from the stock, discard the meter's best."""
    try:
        bots = registry.get(view["game"]).bots
    except ImportError:
        bots = None
    if bots is not None:
        return bots.choose_action(view, "simple", _RNG)
    actions = view["legal_actions"]
    knocks = [a for a in actions if a["action"] == "knock"]
    if knocks:
        best = view["meter"].get("best_discard")
        return next((a for a in knocks if a["card"] == best), knocks[0])
    if view["phase"] == "first_turn":
        return {"action": "pass"}
    if view["phase"] == "draw":
        return {"action": "draw", "from": "stock"}
    best = view["meter"]["best_discard"]
    return {"action": "discard", "card": best}


def state_of(table: Table):
    return registry.get(table.game).engine.Match.from_json(table.state)


def one_move(table_id: int, users: list) -> None:
    """The seat to act plays ``choose_action``'s move through the services (``users`` by seat index)."""
    table = Table.objects.get(pk=table_id)
    state = state_of(table)
    action = choose_action(registry.get(table.game).engine.view(state, state.to_act))
    services.move_apply(table_id=table.pk, user=users[state.to_act], version=table.version, action=action)


def play_out(table_id: int, users: list, *, max_steps: int = 3000) -> Table:
    """Play a table to the end through the services: people by ``choose_action``, bots by the referee."""
    for _ in range(max_steps):
        table = Table.objects.get(pk=table_id)
        if table.status != Table.Status.PLAYING:
            return table
        state = state_of(table)
        seat = state.to_act
        if seat is None:
            waiting = [s for s in table.seats.all() if s.user_id and not s.left and not s.ready]
            if waiting:
                services.round_ready(table_id=table_id, user=waiting[0].user)
            else:  # nobody left to confirm: the break runs out
                assert services.turn_timeout(table_id=table_id, now=table.turn_deadline + timedelta(seconds=1))
            continue
        user = users[seat]
        if user is None or table.seats.get(index=seat).left:
            assert services.referee_pass() >= 1
            continue
        view = registry.get(table.game).engine.view(state, seat)
        services.move_apply(table_id=table_id, user=user, version=table.version, action=choose_action(view))
    raise AssertionError("the table did not finish")


# --- who a frame was sent to -----------------------------------------------------------------------------


def seat_held(table_id: int, user) -> int | None:
    """The seat ``user`` (a user or its id) holds at the table now (a seat given up is not held; a resigned one still is), or
    None: a spectator, or nobody signed in. The audience a frame sent to that user is for."""
    if user is None:
        return None
    return Seat.objects.filter(table_id=table_id, user=user).values_list("index", flat=True).first()


class SentFrames:
    """Every ``state`` frame ``games.delivery.events`` sends, with the group it went to, so a check can take the audience
    from where a frame was *sent* (a user's group: that user's seat; the public group: no seat) instead of
    trusting the frame's own ``you``. Install with pytest's ``monkeypatch``."""

    def __init__(self, monkeypatch):
        self.sent: list[tuple[str, dict]] = []
        self.deltas: list[tuple[str, dict]] = []  # every delta frame sent, as it went
        self.last: dict[str, dict] = {}  # per group, the last state sent
        send, send_now = events._send, events.send_now

        def recorded_send(messages):
            self._record(messages)
            send(messages)

        async def recorded_send_now(layer, messages):
            # As send_now sends them: wired (on the loop, where the frames of a change are wired there).
            messages = events.wire(messages)
            self._record(messages)
            await send_now(layer, messages)

        monkeypatch.setattr(events, "_send", recorded_send)
        monkeypatch.setattr(events, "send_now", recorded_send_now)

    def _record(self, messages) -> None:
        for group, message in messages:
            if message.get("type") != "table.frame":
                continue
            # Built frames, or as they go through the layer: serialised once (``events.wire``).
            frame = message["frame"] if "frame" in message else json.loads(message["text"])
            if frame.get("type") == "state":
                self.sent.append((group, frame))
            if "delta" in message:
                # The delta a socket holding the group's last state gets instead: the state it makes of that
                # state is checked like any frame (so the delta carries nothing the whole frame may not), and
                # must be the whole frame.
                delta = json.loads(message["delta"])
                base = self.last.get(group)
                assert base is not None and base["version"] == delta["after"], f"a delta to {group} follows nothing sent"
                made = events.apply_delta(base, delta)
                assert made == frame, f"the delta to {group} for version {delta['version']} is not its state"
                self.deltas.append((group, delta))
                self.sent.append((group, made))
            if frame.get("type") == "state":
                self.last[group] = frame

    def take(self) -> list[tuple[str, dict]]:
        """The frames sent since the last call, oldest first."""
        taken, self.sent = self.sent, []
        return taken

    @staticmethod
    def audience(group: str, table_id: int) -> int | None:
        """The seat a frame sent to ``group`` is for (None: spectators). Sync: reads the seats."""
        if group == events.public_group(table_id):
            return None
        user_prefix = events.user_group(table_id, 0).removesuffix("0")
        assert group.startswith(user_prefix), f"a state frame went to {group}"
        return seat_held(table_id, int(group.removeprefix(user_prefix)))


# --- sockets --------------------------------------------------------------------------------------------


def session_cookie(user) -> str:
    """A real session for ``user``, as the browser would carry it after signing in."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


class Socket:
    """One client of ``/ws/table/<id>/`` on the real ASGI app; keeps every frame it was sent."""

    def __init__(self, communicator, name: str):
        self.communicator = communicator
        self.name = name
        self.frames: list[dict] = []
        self.pending: list[dict] = []  # read while opening, not yet handed out
        self.state: dict | None = None
        self.deltas: list[dict] = []  # the delta frames received, as they came

    @classmethod
    async def open(cls, table_id: int, user=None, *, invite: str = "", path: str | None = None,
                   deltas: bool = False) -> Socket:
        """``deltas``: ask for what changed after the first whole state (``?frames=delta``)."""
        from asgiref.sync import sync_to_async
        from channels.testing import WebsocketCommunicator

        from ginsite.asgi import application

        headers = [(b"origin", b"http://testserver")]
        if user is not None:
            cookie = await sync_to_async(session_cookie)(user)
            headers.append((b"cookie", f"sessionid={cookie}".encode()))
        query = "&".join([f"invite={invite}"] * bool(invite) + ["frames=delta"] * deltas)
        url = path or f"/ws/table/{table_id}/" + (f"?{query}" if query else "")
        communicator = WebsocketCommunicator(application, url, headers=headers)
        connected, _ = await communicator.connect(timeout=5)
        assert connected
        socket = cls(communicator, user.get_username() if user is not None else "anonymous")
        socket.user = user
        socket.close_code = None
        first = await communicator.receive_output(timeout=5)
        if first["type"] == "websocket.close":  # refused: the server says why with the close code
            socket.close_code = first["code"]
        else:
            socket.pending.append(json.loads(first["text"]))
        return socket

    async def send(self, message: dict) -> None:
        await self.communicator.send_json_to(message)

    async def receive(self, timeout: float = 5) -> dict:
        """The next frame; a ``delta`` is handed out as the ``state`` it makes of the last one (as a client
        does with it, docs/protocol.md), and kept as it came in ``deltas``."""
        frame = self.pending.pop(0) if self.pending else await self.communicator.receive_json_from(timeout=timeout)
        if frame["type"] == "delta":
            self.deltas.append(frame)
            if self.state is not None and frame["version"] <= self.state["version"]:
                return await self.receive(timeout)  # overtaken: this socket holds that version already
            # A delta that does not follow this socket's last state would be the server's fault: it sends
            # one only to a socket whose last state is the delta's base.
            assert self.state is not None and self.state["version"] == frame["after"], (
                f"{self.name}: a delta {frame['after']}→{frame['version']} on version "
                f"{self.state and self.state['version']}"
            )
            frame = events.apply_delta(self.state, frame)
        self.frames.append(frame)
        if frame["type"] == "state" and (self.state is None or frame["version"] >= self.state["version"]):
            self.state = frame
        return frame

    async def until(self, predicate, timeout: float = 5) -> dict:
        """Read frames until one satisfies ``predicate``; returns it."""
        while True:
            frame = await self.receive(timeout)
            if predicate(frame):
                return frame

    async def until_version(self, version: int) -> dict:
        if self.state is not None and self.state["version"] >= version:
            return self.state
        return await self.until(lambda f: f["type"] == "state" and f["version"] >= version)

    async def drain(self) -> None:
        """Read whatever has arrived already."""
        while self.pending or not await self.communicator.receive_nothing(timeout=0.05):
            await self.receive()

    async def close(self) -> None:
        await self.communicator.disconnect()


async def play_over_sockets(sockets: dict[int, Socket], *, watchers=(), max_steps: int = 3000,
                            on_state=None) -> dict:
    """Play a table to the end: each seated person through their own socket with ``choose_action`` on the
    view they were sent, computer players through the referee. Every socket in ``sockets`` and ``watchers``
    reads every frame. ``on_state(socket, frame)`` sees each state frame as it arrives."""
    from asgiref.sync import sync_to_async

    everyone = [*sockets.values(), *watchers]

    async def settle(version: int) -> None:
        for socket in everyone:
            seen = len(socket.frames)
            await socket.until_version(version)
            if on_state is not None:
                for frame in socket.frames[seen:]:
                    if frame["type"] == "state":
                        await on_state(socket, frame)

    any_socket = next(iter(sockets.values()))
    for _ in range(max_steps):
        state = any_socket.state
        version = state["version"]
        if state["table"]["status"] != "playing":
            return state
        view = state["view"]
        seat = view["to_act"]
        if seat is None:
            waiting = [s for s in state["table"]["seats"] if not s["ready"] and not s["left"] and s["user_id"]]
            if waiting:
                await sockets[waiting[0]["index"]].send({"type": "ready", "version": version})
            else:
                await sync_to_async(_break_ends)(state["table"]["id"])
        elif seat in sockets:
            mine = sockets[seat].state["view"]
            await sockets[seat].send({"type": "move", "version": version, "action": choose_action(mine)})
        else:
            assert await sync_to_async(services.referee_pass)() >= 1
        await settle(version + 1)
    raise AssertionError("the table did not finish")


def _break_ends(table_id: int) -> None:
    table = Table.objects.get(pk=table_id)
    assert services.turn_timeout(table_id=table_id, now=table.turn_deadline + timedelta(seconds=1))


def playing_gin(players):
    """A gin table of ``players[0]`` and ``players[1]``, its match started (the quick preset)."""
    from games import services

    table = services.table_create(user=players[0], game="gin", preset="schnell", options={})
    services.table_join(table_id=table.pk, user=players[1])
    return table


def assert_own_views(seated: list[dict], watchers: list[dict]) -> None:
    """``seated``: the first states of seats 0, 1, …, each with its own hand, no two sharing a card;
    ``watchers``: states of sockets holding no seat, showing none of those cards anywhere in their view."""
    import json

    assert [state["table"]["you"] for state in seated] == list(range(len(seated)))
    assert [state["table"]["you"] for state in watchers] == [None] * len(watchers)
    hands = [set(state["view"]["hand"]) for state in seated]
    assert all(hands) and sum(map(len, hands)) == len(set().union(*hands))
    for watcher in watchers:
        text = json.dumps(watcher["view"])
        assert not any(f'"{card}"' in text for card in set().union(*hands))
