"""The WebSocket ends of live play: a table socket and the lobby feed. They only translate messages into
service calls and pass on the frames the presenter built; the protocol is documented in docs/protocol.md."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import connection
from django.utils.html import escape

from games import events, ratelimit, selectors, services
from games.engine.cards import JOKER, RANKS
from games.engine.romme.melds import InvalidMeld, validate_meld
from games.services import ServiceError

logger = logging.getLogger(__name__)

#: The largest message a client may send (bytes of text).
MESSAGE_MAX_BYTES = 4096

#: The most cards a meld can have (a run of one suit, ace low to ace high).
MELD_MAX_CARDS = 14


def meld_preview(cards: list[str]) -> dict:
    """What ``cards``, chosen in any order, make as one Rommé meld: the order it is laid in and its points,
    or why it is none. Read-only, for the page's meld builder (the page knows no rules).

    The candidate orders are the natural cards by rank (each ace low or high) with the jokers placed in
    every way; ``validate_meld`` alone decides which are melds. Of several readings the one worth most
    points is given (a joker at the top end of a run rather than the bottom; a set's jokers last).

    >>> meld_preview(["7H", "JK", "5H"])
    {'meld': ['5H', 'JK', '7H'], 'points': 18, 'kind': 'run'}
    """
    naturals = [c for c in cards if c != JOKER]
    jokers = len(cards) - len(naturals)
    aces = [c for c in naturals if c[0] == "A"]
    others = sorted((c for c in naturals if c[0] != "A"), key=lambda c: RANKS.find(c[0]))
    best = None
    error = "no cards"
    seen: set[tuple[str, ...]] = set()
    for high in range(len(aces) + 1):
        line = aces[high:] + others + aces[:high]  # aces below the 2, or above the king
        for places in _joker_places(len(line) + jokers, jokers):
            order, rest = [], iter(line)
            for i in range(len(line) + jokers):
                order.append(JOKER if i in places else next(rest))
            key = tuple(order)
            if key in seen:
                continue
            seen.add(key)
            try:
                meld = validate_meld(order)
            except InvalidMeld as exc:
                error = str(exc)
                continue
            # Among equals the last reading wins: jokers as far up as they go (a set's at its end).
            if best is None or meld.points >= best.points:
                best = meld
    if best is None:
        return {"meld": None, "points": None, "error": error}
    return {"meld": list(best.cards), "points": best.points, "kind": best.kind}


def _joker_places(length: int, jokers: int):
    """Every set of ``jokers`` positions out of ``length`` with no two side by side (the rules never allow it)."""
    def choose(start: int, left: int, taken: tuple[int, ...]):
        if left == 0:
            yield frozenset(taken)
            return
        for i in range(start, length - 2 * (left - 1)):
            yield from choose(i + 2, left - 1, (*taken, i))
    yield from choose(0, jokers, ())


def _poll_seconds() -> float:
    """How often a socket checks the table version by itself. Needed only when events cannot cross
    processes (the in-memory channel layer, with the referee in its own process); off with Redis."""
    configured = getattr(settings, "GAMES_STATE_POLL_SECONDS", None)
    if configured is not None:
        return float(configured)
    backend = settings.CHANNEL_LAYERS.get("default", {}).get("BACKEND", "")
    return 1.0 if backend.endswith("InMemoryChannelLayer") else 0.0


def in_thread(function):
    """Run a database function off the event loop. On PostgreSQL calls run side by side in a thread pool (rows
    are locked per table, so tables do not wait on each other); SQLite has a single writer anyway, and its
    in-memory test database must stay on one thread. ``GAMES_DB_PARALLEL = False`` keeps one thread."""
    parallel = getattr(settings, "GAMES_DB_PARALLEL", True) and connection.vendor == "postgresql"
    return database_sync_to_async(function, thread_sensitive=not parallel)


class _JsonConsumer(AsyncWebsocketConsumer):
    async def send_frame(self, frame: dict) -> None:
        await self.send(text_data=json.dumps(frame, separators=(",", ":"), ensure_ascii=False))

    async def send_error(self, code: str, message: str, *, version: int | None = None) -> None:
        await self.send_frame({"type": "error", "code": code, "message": message, "version": version})


class TableConsumer(_JsonConsumer):
    """``/ws/table/<id>/``: a seat's own view for a seated player, the public view for everyone else."""

    async def connect(self):
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.user = self.scope.get("user")
        self.user_id = self.user.pk if self.user is not None and self.user.is_authenticated else None
        self.version = -1
        self.poll_task = None
        query = parse_qs(self.scope.get("query_string", b"").decode("latin1"))
        invite = (query.get("invite") or [""])[0]
        allowed = await in_thread(self._may_watch)(invite)
        if not allowed:
            # Accept first so that the client learns why (a refused handshake tells a browser nothing).
            await self.accept()
            await self.close(code=4404 if allowed is None else 4403)
            return
        self.groups_joined = [events.public_group(self.table_id), events.everyone_group(self.table_id)]
        if self.user_id is not None:
            self.groups_joined.append(events.user_group(self.table_id, self.user_id))
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        # Joined the groups first, then read: nothing can fall between the full state and the next event.
        # One trip to the database for both (a burst of sockets after a restart is what this is for).
        state, chat = await in_thread(self._welcome)()
        if state is None:
            await self.send_error("no_table", "Diesen Tisch gibt es nicht mehr.")
        else:
            await self._deliver(state)
        for frame in chat:
            await self.send_frame(frame)
        await self._presence(online=True)
        seconds = _poll_seconds()
        if seconds > 0:
            self.poll_task = asyncio.create_task(self._poll(seconds))

    def _welcome(self) -> tuple[dict | None, list[dict]]:
        return (
            selectors.table_state_for(table_id=self.table_id, user=self.user),
            selectors.chat_recent(table_id=self.table_id),
        )

    def _may_watch(self, invite: str) -> bool | None:
        table = selectors.table_get(table_id=self.table_id)
        if table is None:
            return None
        return selectors.table_may_watch(table=table, user=self.user, invite_token=invite)

    async def disconnect(self, code):
        if self.poll_task is not None:
            self.poll_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.poll_task
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)
        if getattr(self, "groups_joined", None):
            await self._presence(online=False)

    async def _presence(self, *, online: bool) -> None:
        if self.user_id is None:
            return
        name = escape(self.user.get_username())
        frame = {"type": "presence", "user_id": self.user_id, "user": name, "online": online}
        await self.channel_layer.group_send(
            events.everyone_group(self.table_id), {"type": "table.frame", "audience": "all", "frame": frame}
        )

    async def _poll(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            version = await in_thread(selectors.table_version)(table_id=self.table_id)
            if version is not None and version > self.version:
                await self.send_state()

    async def send_state(self) -> None:
        frame = await in_thread(selectors.table_state_for)(table_id=self.table_id, user=self.user)
        if frame is None:
            await self.send_error("no_table", "Diesen Tisch gibt es nicht mehr.")
            return
        await self._deliver(frame)

    async def _deliver(self, frame: dict) -> None:
        if frame.get("type") == "state":
            self.version = max(self.version, frame["version"])
        await self.send_frame(frame)

    # --- frames from the channel layer ------------------------------------------------------------------

    async def table_frame(self, event):
        frame = event["frame"]
        # A seated player gets their own view on their user group; the public copy is for spectators. Decided
        # by the frame itself, so the order in which the two copies arrive does not matter.
        if event.get("audience") == "public" and self._seated_in(frame):
            return
        await self._deliver(frame)

    def _seated_in(self, frame: dict) -> bool:
        return self.user_id is not None and any(seat["user_id"] == self.user_id for seat in frame["table"]["seats"])

    # --- messages from the client -----------------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None):
        if text_data is None:
            await self.send_error("bad_message", "Nachrichten sind JSON-Text, keine Binärdaten.", version=self.version)
            return
        if len(text_data.encode("utf-8")) > MESSAGE_MAX_BYTES:
            await self.send_error(
                "too_large", f"Die Nachricht ist zu groß (höchstens {MESSAGE_MAX_BYTES} Bytes).", version=self.version
            )
            return
        try:
            message = json.loads(text_data)
        except (ValueError, RecursionError):  # RecursionError: nesting deeper than the parser goes
            await self.send_error("bad_message", "Die Nachricht ist kein gültiges JSON.", version=self.version)
            return
        kind = message.get("type") if isinstance(message, dict) else None
        handler = self.HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            await self.send_error(
                "bad_message", f"Unbekannte Nachricht; erlaubt sind: {', '.join(sorted(self.HANDLERS))}.",
                version=self.version,
            )
            return
        if not ratelimit.allow(self, kind):
            await self.send_error("rate_limited", ratelimit.MESSAGE, version=self.version)
            return
        try:
            await handler(self, message)
            ratelimit.accepted(self, kind)
        except ServiceError as error:
            await self.send_error(error.code, error.message, version=error.version if error.version is not None else self.version)
            if error.code in ("stale_version", "not_your_turn", "not_between_rounds", "turn_over"):
                # The client's picture is out of date: give it the whole current one.
                await self.send_state()
        except Exception:
            # A fault of ours must not cost the player the socket; nothing was committed, the table is as it was.
            logger.exception("table %s: %s failed", self.table_id, kind)
            await self.send_error("server_error", "Da ist auf dem Server etwas schiefgegangen; bitte noch einmal.",
                                  version=self.version)

    async def _call(self, function, **kwargs):
        outbox: list = []
        token = events.OUTBOX.set(outbox)
        try:
            return await in_thread(function)(table_id=self.table_id, user=self.user, **kwargs)
        finally:
            events.OUTBOX.reset(token)
            if outbox:
                await events.send_now(self.channel_layer, outbox)

    async def on_sync(self, message):
        await self.send_state()

    async def on_ping(self, message):
        await self.send_frame({"type": "pong", "version": self.version})

    async def on_move(self, message):
        await self._call(services.move_apply, version=message.get("version"), action=message.get("action"))

    async def on_ready(self, message):
        await self._call(services.round_ready, version=message.get("version"))

    async def on_resign(self, message):
        await self._call(services.match_resign)

    async def on_abort(self, message):
        await self._call(services.match_abort)

    async def on_rematch(self, message):
        await self._call(services.match_rematch)

    async def on_join(self, message):
        await self._call(services.table_join, seat=message.get("seat"), invite_token=message.get("invite", ""))

    async def on_leave(self, message):
        await self._call(services.table_leave)

    async def on_bots(self, message):
        await self._call(services.table_fill_with_bots, level=message.get("level", "simple"))

    async def on_start(self, message):
        await self._call(services.table_start)

    async def on_chat(self, message):
        await self._call(services.chat_post, text=message.get("text"))

    async def on_meld_preview(self, message):
        # Read-only and the same for everyone: nothing of the table is read or changed.
        cards = message.get("cards")
        if (
            not isinstance(cards, list)
            or not 1 <= len(cards) <= MELD_MAX_CARDS
            or not all(isinstance(c, str) and len(c) == 2 for c in cards)
        ):
            await self.send_error("bad_message", f"meld_preview braucht 'cards': 1 bis {MELD_MAX_CARDS} Kartencodes.",
                                  version=self.version)
            return
        answer = meld_preview(cards) if len(cards) >= 3 else {"meld": None, "points": None,
                                                               "error": "a meld needs at least 3 cards"}
        await self.send_frame({"type": "meld_preview", "id": message.get("id"), "cards": cards, **answer})

    HANDLERS = {
        "hello": on_sync,
        "sync": on_sync,
        "ping": on_ping,
        "move": on_move,
        "ready": on_ready,
        "resign": on_resign,
        "abort": on_abort,
        "rematch": on_rematch,
        "join": on_join,
        "leave": on_leave,
        "bots": on_bots,
        "start": on_start,
        "chat": on_chat,
        "meld_preview": on_meld_preview,
    }


class LobbyConsumer(_JsonConsumer):
    """``/ws/lobby/``: the list of public tables, then one ``lobby_table`` frame per change."""

    async def connect(self):
        self.poll_task = None
        await self.channel_layer.group_add(events.LOBBY_GROUP, self.channel_name)
        await self.accept()
        await self.send_list()
        seconds = _poll_seconds()
        if seconds > 0:
            self.poll_task = asyncio.create_task(self._poll(seconds * 5))

    async def send_list(self):
        tables = await in_thread(selectors.lobby_tables)()
        await self.send_frame({"type": "lobby", "tables": tables})

    async def _poll(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            await self.send_list()

    async def disconnect(self, code):
        if self.poll_task is not None:
            self.poll_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.poll_task
        await self.channel_layer.group_discard(events.LOBBY_GROUP, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        # The lobby listens only; "sync" asks for the whole list again.
        try:
            message = json.loads(text_data or "")
        except (ValueError, RecursionError):
            message = None
        if not ratelimit.allow(self, "sync"):
            await self.send_error("rate_limited", ratelimit.MESSAGE)
        elif isinstance(message, dict) and message.get("type") == "sync" and len(text_data) <= MESSAGE_MAX_BYTES:
            await self.send_list()
        else:
            await self.send_error("bad_message", 'Die Lobby versteht nur {"type": "sync"}.')

    async def lobby_frame(self, event):
        await self.send_frame(event["frame"])
