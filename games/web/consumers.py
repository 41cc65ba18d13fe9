"""The WebSocket ends of live play: a table socket and the lobby feed. They only translate messages into
service calls and pass on the frames the presenter built; the protocol is documented in docs/protocol.md."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import re
import secrets
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from games import services
from games.delivery import events, framecache
from games.delivery import limits as ratelimit
from games.reads import previews, selectors
from games.services import ServiceError
from games.web import handshakes, timekeeper
from games.web.dbthread import in_thread

logger = logging.getLogger(__name__)

#: The largest message a client may send (bytes of text).
MESSAGE_MAX_BYTES = 4096

#: The most cards a meld can have (a run of one suit, ace low to ace high).
MELD_MAX_CARDS = 14
#: What a preview's cards must look like to be read (the engine names any that is no card).
_CARD_CODE = re.compile(r"[0-9A-Z]{2}")
#: A preview's ``id`` is echoed: a whole number a browser holds exactly, or a short text of real characters.
PREVIEW_ID_MAX = 2**53 - 1
PREVIEW_ID_CHARS = 64
#: How long a preview may take, queue included, before it is answered ``busy`` (the solver's own work is
#: bounded by ``hints.PREVIEW_BUDGET``; this bounds the wait behind other sockets' previews).
PREVIEW_SECONDS = 2.0
#: How long a hint may take, the wait behind the computer players' searches in the worker included, before it
#: is answered ``busy`` (the search itself stops at ``thinking.HINT_SECONDS``).
HINT_WAIT_SECONDS = 2.0



def _echoable_id(value: object) -> bool:
    if value is None:
        return True
    if isinstance(value, int) and not isinstance(value, bool):
        return -PREVIEW_ID_MAX <= value <= PREVIEW_ID_MAX
    if isinstance(value, str):
        return len(value) <= PREVIEW_ID_CHARS and not any("\ud800" <= c <= "\udfff" for c in value)
    return False


def _poll_seconds() -> float:
    """How often a socket checks the table version by itself: off (0) unless ``GAMES_STATE_POLL_SECONDS``
    asks for it. Every change reaches sockets through the channel layer, the referee's too (with the
    in-memory layer it runs inside the daphne process, see games/web/timekeeper.py)."""
    return float(settings.GAMES_STATE_POLL_SECONDS or 0)


#: Kept here for whoever imported it from this module (games.web.notice_consumers did).
resolve_user = handshakes.resolve_user


async def _signed_out(consumer) -> None:
    """Close ``consumer`` because its person signed out: nothing it is sent later acts as them."""
    from django.contrib.auth.models import AnonymousUser

    consumer.user = AnonymousUser()
    consumer.user_id = None
    await consumer.send_error("signed_out", "Du hast dich abgemeldet; diese Verbindung ist geschlossen.")
    await consumer.close(code=handshakes.CLOSE_SIGNED_OUT)


async def regroup(layer, channel: str, *, add=(), discard=()) -> None:
    """Join ``add`` and leave ``discard`` with ``channel``: in one round trip, with the other sockets' joins of
    the same turn of the loop, where the layer can (``ginsite.layers``); a group at a time elsewhere."""
    if hasattr(layer, "regroup"):
        await layer.regroup(channel, add=add, discard=discard)
        return
    for group in add:
        await layer.group_add(group, channel)
    for group in discard:
        await layer.group_discard(group, channel)


class _JsonConsumer(AsyncWebsocketConsumer):
    async def dispatch(self, message):
        # channels' dispatch first hops to the database thread to close old connections, for every frame
        # from the client and every message from the layer: on the embedded default that is one queue for
        # the whole process, so every frame of every socket waited behind the moves. The database calls
        # here (in_thread) close old connections in their own thread, before and after.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def websocket_disconnect(self, message):
        # As channels' own, without its hop to close connections (see dispatch).
        await self.disconnect(message["code"])
        raise StopConsumer()

    async def send_frame(self, frame: dict) -> None:
        await self.send(text_data=events.frame_text(frame))

    async def send_error(self, code: str, message: str, *, version: int | None = None) -> None:
        await self.send_frame({"type": "error", "code": code, "message": message, "version": version})


class TableConsumer(_JsonConsumer):
    """``/ws/table/<id>/``: a seat's own view for a seated player, the public view for everyone else."""

    #: The digest (``events.text_digest``) of the last ``state`` this socket was sent: a ``delta`` frame
    #: goes out only when it follows exactly that state.
    base: str | None = None

    @functools.cached_property
    def wants_deltas(self) -> bool:
        """Whether the client asked for what changed after the first whole state (``?frames=delta``)."""
        query = parse_qs(self.scope.get("query_string", b"").decode("latin1"))
        return (query.get("frames") or [""])[0] == "delta"

    async def connect(self):
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.user = None
        self.user_id = None
        self.version = -1
        self.poll_task = None
        self.groups_joined: list[str] = []
        self.admitted = False  # frames go out only once the socket may watch (see table_frame)
        # Accepted before anything else: a handshake never waits behind database work (daphne drops one that
        # is not accepted within its connect timeout). The client learns the rest, refusals included, from
        # the frames and the close code that follow.
        await self.accept()
        if not handshakes.take_address(self):
            await self._refuse_too_many("address")
            return
        query = parse_qs(self.scope.get("query_string", b"").decode("latin1"))
        invite = (query.get("invite") or [""])[0]
        # Groups that do not depend on who this is are joined first, so that nothing falls between the state
        # read below and the next frame. Frames that arrive meanwhile wait: the consumer handles its messages
        # one after the other, so they come after this handshake's state, in the order they were sent.
        # The session's data from its cache meanwhile, where the cache reads on the loop (the scaled stack).
        await asyncio.gather(
            self._regroup(add=[events.everyone_group(self.table_id), events.public_group(self.table_id)]),
            handshakes.read_cached_session(self.scope),
        )
        # Who this is (session and user), whether they may watch, the state and the chat, read together with
        # the other handshakes arriving now (games.web.handshakes: one read per table, not per socket).
        user, opened = await handshakes.open_table(self.scope, self.table_id, invite)
        self.user = user
        if user is not None and user.is_authenticated:
            self.user_id = user.pk
        if not isinstance(opened, tuple):
            await self._regroup(discard=list(self.groups_joined))
            self.user_id = None
            if isinstance(opened, str):  # a same-deals table only staff may watch for now: say so
                await self.send_error("staff_only", opened)
            await self.close(code=4404 if opened is None else 4403)
            return
        if self.user_id is not None and not handshakes.take_person(self, self.user_id):
            await self._regroup(discard=list(self.groups_joined))
            self.user_id = None
            await self._refuse_too_many("person")
            return
        state, chat = opened
        # The state goes out first, then the groups of who this is are joined: the client holds its state a
        # Redis round trip sooner, and nothing is lost by it. The state was read before this socket was in
        # those groups, so a change committed in between (or while they are being joined) reaches it only on
        # the public group, joined before the read: a public frame newer than the state, on which a seated
        # socket reads its own state again (table_frame). And every frame from the layer waits until this
        # handshake is over (the consumer handles its messages one after the other), so none goes out
        # before the state.
        self.admitted = True
        await self._send_state(state)
        timekeeper.socket_opened(self.table_id, self.version)
        self.watched = True
        for frame in chat:
            await self.send_frame(frame)
        # Seated: its frames come on the user group; the public group is for everyone else. Signed in: the
        # person's group, through which signing out closes the socket.
        add = ([events.user_group(self.table_id, self.user_id), handshakes.person_group(self.user_id)]
               if self.user_id is not None else [])
        await self._regroup(
            add=add,
            discard=[events.public_group(self.table_id)] if state.you is not None else [],
        )
        if self.user_id is not None:
            self.present = self.user
            handshakes.presence_opened(self.channel_layer, self.table_id, self.user)
        seconds = _poll_seconds()
        if seconds > 0:
            self.poll_task = asyncio.create_task(self._poll(seconds))

    async def _refuse_too_many(self, kind: str) -> None:
        await self.send_error("too_many_sockets", handshakes.too_many_message(kind))
        await self.close(code=handshakes.CLOSE_TOO_MANY)

    async def person_signed_out(self, event) -> None:
        """The person signed out or deleted their account: this socket acts as nobody from now and closes."""
        self.admitted = False  # nothing more of their seat reaches it
        await _signed_out(self)

    async def _regroup(self, *, add=(), discard=()) -> None:
        """Join ``add`` and leave ``discard`` (in one round trip where the layer can, see ginsite.layers)."""
        add = [g for g in add if g not in self.groups_joined]
        discard = [g for g in discard if g in self.groups_joined or g in add]
        await regroup(self.channel_layer, self.channel_name, add=add, discard=discard)
        self.groups_joined = [g for g in self.groups_joined + add if g not in discard]

    async def _leave_public(self) -> None:
        public = events.public_group(self.table_id)
        if public in self.groups_joined:
            self.groups_joined.remove(public)
            await self.channel_layer.group_discard(public, self.channel_name)

    async def _follow(self, *, seated: bool) -> None:
        """Keep the public group for sockets whose user holds no seat (a frame said the seating changed)."""
        public = events.public_group(self.table_id)
        if seated:
            await self._leave_public()
        elif public not in self.groups_joined:
            await self.channel_layer.group_add(public, self.channel_name)
            self.groups_joined.append(public)
            # A public frame sent between the change and the join reached nobody here: read the state again.
            await self.send_state()

    async def disconnect(self, code):
        poll_task = getattr(self, "poll_task", None)
        if poll_task is not None:
            poll_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await poll_task
        if getattr(self, "watched", False):
            self.watched = False
            timekeeper.socket_closed(self.table_id)
        handshakes.release(self)
        joined = list(getattr(self, "groups_joined", []))
        if joined:
            await self._regroup(discard=joined)
        present, self.present = getattr(self, "present", None), None
        if present is not None:
            handshakes.presence_closed(self.channel_layer, self.table_id, present)

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
            await self._send_state(events.StateText.of(frame))
            return
        await self.send_frame(frame)

    async def _send_state(self, state: events.StateText) -> None:
        self.version = max(self.version, state.version)
        if self.wants_deltas:
            self.base = state.digest  # the state a delta frame may follow (see table_frame)
        await self.send(text_data=state.text)

    # --- frames from the channel layer ------------------------------------------------------------------

    async def table_frame(self, event):
        if not self.admitted:
            # Joined the public group before the check: a private table's frames never reach a socket it refused.
            return
        text = event.get("text")
        if text is None:  # a message of an older sender: the frame itself
            frame = event["frame"]
            if event.get("audience") == "public" and self._seated_in(frame):
                return
            await self._deliver(frame)
            return
        # A seated player gets their own view on their user group; the public copy is for spectators. Decided
        # by the frame itself (who it says is seated), so the order in which the two copies arrive does not
        # matter; and the socket follows the seating: in the public group only while its user holds no seat.
        seated = event.get("seated")
        if seated is not None and self.user_id is not None:
            here = self.user_id in seated
            if event.get("audience") == "public" and here:
                await self._follow(seated=True)
                if event.get("version", -1) > self.version:
                    # A change this seat's own frame may have missed (it came while the socket was joining
                    # its groups, or just as its user took the seat): read the seat's state again.
                    await self.send_state()
                return
            if event.get("audience") == "user":
                await self._follow(seated=here)
        version = event.get("version")
        if version is not None:
            if version < self.version:
                # Overtaken: this socket was sent a newer state already (a frame the layer handed over in this
                # process can pass one still on its way through Redis). An older state would turn the page back.
                return
            framecache.moved(self.table_id, version)
            self.version = version
            # After the first whole state, what changed (docs/protocol.md): the delta when this socket's last
            # state is the one it follows, else the whole frame.
            if self.wants_deltas:
                text = self._delta_or_whole(event, text)
            self.base = event.get("digest")
        await self.send(text_data=text)

    def _delta_or_whole(self, event: dict, text: str) -> str:
        """The delta frame when this socket's last state is the one it follows (the sender's, or one made
        here of a state another process built), else the whole state ``text``."""
        if event.get("audience") == "public":
            group = events.public_group(self.table_id)
        elif self.user_id is not None:
            group = events.user_group(self.table_id, self.user_id)
        else:
            group = None
        if event.get("delta") is not None and event.get("base") == self.base:
            if group is not None:
                events.state_noted(group, event)  # this process's next change to the group goes as a delta too
            return event["delta"]
        if self.base is None or "digest" not in event or group is None:
            return text
        return events.delta_received(group, event, self.base) or text

    def _seated_in(self, frame: dict) -> bool:
        return self.user_id is not None and any(seat["user_id"] == self.user_id for seat in frame["table"]["seats"])

    # --- messages from the client -----------------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None):
        if ratelimit.closing(self):
            return  # being closed for refusals (ratelimit.refuse): what still arrives is dropped unread
        # Charged before anything is read or answered: garbage costs a token as a refused move does.
        if not ratelimit.charge(self):
            if ratelimit.is_ping(text_data):
                await self.on_ping(None)  # ping is free even with the bucket empty
            else:
                await ratelimit.refuse(self, version=self.version)
            return
        if text_data is None:
            await self.send_error("bad_message", "Nachrichten sind JSON-Text, keine Binärdaten.", version=self.version)
            return
        if len(text_data.encode("utf-8", "surrogatepass")) > MESSAGE_MAX_BYTES:
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
        ratelimit.free(self, kind)
        try:
            await handler(self, message)
            ratelimit.accepted(self, kind)
        except ServiceError as error:
            await self.send_error(error.code, error.message, version=error.version if error.version is not None else self.version)
            if error.code in ("stale_version", "not_your_turn", "not_between_rounds", "turn_over") and kind not in ("meld_preview", "hint"):
                # The client's picture is out of date: give it the whole current one (not for a preview:
                # it changes nothing, and a flood of them must not cost a state read each).
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
        cards = message.get("cards")
        if (
            not isinstance(cards, list)
            or not 1 <= len(cards) <= MELD_MAX_CARDS
            or not all(isinstance(c, str) and _CARD_CODE.fullmatch(c) for c in cards)
        ):
            raise ServiceError("bad_message", f"meld_preview braucht 'cards': 1 bis {MELD_MAX_CARDS} Kartencodes "
                                              "(zwei Zeichen, Ziffern oder Großbuchstaben).")
        preview_id = message.get("id")
        if not _echoable_id(preview_id):
            raise ServiceError("bad_message", f"meld_preview: 'id' ist eine ganze Zahl (höchstens {PREVIEW_ID_MAX}) "
                                              f"oder ein Text von höchstens {PREVIEW_ID_CHARS} Zeichen.")
        game = await self._may_preview()
        try:
            answer = await asyncio.wait_for(
                previews.meld_preview(game=game, cards=cards),
                PREVIEW_SECONDS,
            )
        except TimeoutError:
            raise ServiceError("busy", "Die Prüfung der Meldung hat zu lange gedauert; bitte noch einmal.") from None
        await self.send_frame({"type": "meld_preview", "id": preview_id, "cards": cards, **answer})

    async def on_hint(self, message):
        """The ``Tipp`` button: the expert's action for this seat, searched in the computer players' worker
        (never on the event loop) within ``thinking.HINT_SECONDS``, from this seat's own view only. The
        answer goes to this socket alone, with the version it is for."""
        if self.user_id is None:
            raise ServiceError(*selectors.HINT_NOT_SEATED, version=self.version)
        version, refusal, request = await in_thread(selectors.hint_request)(table_id=self.table_id, user=self.user)
        if refusal is not None or request is None:
            raise ServiceError(*(refusal or selectors.HINT_NONE), version=max(version, self.version))
        future = timekeeper.thinker().hint(bots=request["bots"], view=request["view"], seed=secrets.randbits(64))
        try:
            action = await asyncio.wait_for(asyncio.wrap_future(future), HINT_WAIT_SECONDS)
        except TimeoutError:
            future.cancel()
            raise ServiceError("busy", "Der Tipp hat zu lange gedauert; bitte noch einmal.", version=version) from None
        await self.send_frame({"type": "hint", "version": version, "action": action})

    async def _may_preview(self) -> str:
        """Only the seat to act may ask for previews, at a table of a game that has them
        (``selectors.meld_preview_refusal``): anonymous sockets are refused unread; a signed-in one reads who is
        to act once per table version (kept on the socket). Returns the table's game."""
        if self.user_id is None:
            raise ServiceError(*selectors.PREVIEW_NOT_SEATED, version=self.version)
        known = getattr(self, "_preview_turn", None)
        if known is None or known[0] < self.version:
            known = self._preview_turn = await in_thread(selectors.meld_preview_refusal)(
                table_id=self.table_id, user=self.user)
        if known[2] is not None:
            raise ServiceError(*known[2], version=self.version)
        return known[1]

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
        "hint": on_hint,
    }


class LobbyConsumer(_JsonConsumer):
    """``/ws/lobby/``: the list of public tables, then one ``lobby_table`` frame per change."""

    async def connect(self):
        self.poll_task = None
        await self.channel_layer.group_add(events.LOBBY_GROUP, self.channel_name)
        timekeeper.lobby_socket(True)
        self.counted = True
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
        if getattr(self, "counted", False):
            self.counted = False
            timekeeper.lobby_socket(False)

    async def receive(self, text_data=None, bytes_data=None):
        # The lobby listens only; "sync" asks for the whole list again. Charged before it is read, as at a table.
        if ratelimit.closing(self):
            return
        if not ratelimit.charge(self):
            await ratelimit.refuse(self)
            return
        try:
            message = json.loads(text_data or "")
        except (ValueError, RecursionError):
            message = None
        if isinstance(message, dict) and message.get("type") == "sync" and len(text_data) <= MESSAGE_MAX_BYTES:
            await self.send_list()
        else:
            await self.send_error("bad_message", 'Die Lobby versteht nur {"type": "sync"}.')

    async def lobby_frame(self, event):
        text = event.get("text")
        await self.send(text_data=text if text is not None else events.frame_text(event["frame"]))
