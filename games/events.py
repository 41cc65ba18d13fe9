"""After-commit fan-out: every committed change to a table reaches each seated player as their own view,
spectators as the public one, and the lobby as a table summary, through the channel layer.

Frames are built inside the transaction (from the state just written) and sent only after it commits, so a
client never hears of a change that was rolled back.

What travels through the channel layer is each frame's JSON text, serialised once however many sockets get
it (:func:`wire`), with the two facts a socket routes it by: the version, and which users are seated.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Callable, Iterable
from contextvars import ContextVar

from asgiref.sync import async_to_sync
from channels.layers import BaseChannelLayer, get_channel_layer
from django.db import transaction

from games import presenters
from games.dbthread import in_thread

logger = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"


def public_group(table_id: int) -> str:
    """Spectators (and anonymous visitors) of a table."""
    return f"table.{table_id}.public"


def everyone_group(table_id: int) -> str:
    """Every socket of a table, for chat and presence."""
    return f"table.{table_id}.all"


def user_group(table_id: int, user_id: int) -> str:
    """Every socket of one user at one table. Keyed by user, not seat, so that a socket whose user leaves a
    seat can never receive the next occupant's cards."""
    return f"table.{table_id}.user.{user_id}"


def frame_text(frame: dict) -> str:
    """A frame as the socket sends it (compact JSON, UTF-8 as is)."""
    return json.dumps(frame, separators=(",", ":"), ensure_ascii=False)


def wire(messages: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """The messages as they go through the channel layer: ``frame`` replaced by its ``text`` (one
    ``json.dumps`` per frame, shared by every group and socket that gets it), plus for a ``state`` frame its
    ``version`` and the ``seated`` user ids (a seated socket ignores the public copy of its table)."""
    texts: dict[int, tuple[str, dict]] = {}
    out = []
    for group, message in messages:
        frame = message.get("frame")
        if frame is None:
            out.append((group, message))
            continue
        if id(frame) not in texts:
            facts: dict = {}
            if frame.get("type") == "state":
                facts["table"] = frame["table"]["id"]
                facts["version"] = frame["version"]
                facts["seated"] = tuple(s["user_id"] for s in frame["table"]["seats"] if s["user_id"] is not None)
            texts[id(frame)] = (frame_text(frame), facts)
        text, facts = texts[id(frame)]
        sent = {key: value for key, value in message.items() if key != "frame"}
        sent["text"] = text
        sent.update(facts)
        out.append((group, sent))
    return out


def _send(messages: list[tuple[str, dict]]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    messages = wire(messages)
    if hasattr(layer, "group_send_many"):  # ginsite.layers: all groups in a few round trips
        try:
            async_to_sync(layer.group_send_many)(messages)
        except Exception:  # a full or unreachable layer must not undo a committed move; clients resync
            logger.exception("could not send to %s", ", ".join(group for group, _ in messages))
        return
    for group, message in messages:
        try:
            async_to_sync(layer.group_send)(group, message)
        except Exception:  # a full or unreachable layer must not undo a committed move; clients resync
            logger.exception("could not send to %s", group)


#: Set by a socket around the service call it makes: the frames are then handed back to it and sent from the
#: event loop, so the one database thread of the process is not held up waiting on the channel layer.
OUTBOX: ContextVar[list | None] = ContextVar("games_outbox", default=None)


def send_after_commit(messages: list[tuple[str, dict]]) -> None:
    outbox = OUTBOX.get()
    if outbox is not None:
        transaction.on_commit(lambda: outbox.extend(wire(messages)))
    else:
        def send() -> None:
            _send(messages)
            _after_run(_after_taken())

        transaction.on_commit(send)


# --- after the fan-out -------------------------------------------------------------------------------------
# Work that must wait until a change's frames are out: the end of a match's announcement (its listeners
# rate the match and may start a tournament's next stage; the players must not wait for that to see the
# last card fall). With an OUTBOX (a socket's call, the in-process referee) the work rides in the outbox
# behind the frames, and ``send_now`` starts it once it has handed them to the channel layer, in a task of
# its own, so the socket that made the move is free to deliver its own frame meanwhile. Without one (a
# management command, a view, the admin) the frames go out from their own on-commit callback, and that
# callback runs the work queued before it; every change that ends a match also sends its frames.


#: An outbox entry that is not a frame, shaped like one (group, message) so that whoever reads an outbox can
#: treat every entry alike: its message carries the ``callback`` to run once the frames before it are out.
#: It never reaches the channel layer.
AFTER = "games.after_fanout"


def _after_entry(callback: Callable[[], object]) -> tuple[str, dict]:
    return ("", {"type": AFTER, "callback": callback})


_after_queue = threading.local()


def _after_pending() -> list:
    if not hasattr(_after_queue, "callbacks"):
        _after_queue.callbacks = []
    return _after_queue.callbacks


def _after_taken() -> list[Callable[[], object]]:
    pending = _after_pending()
    taken = list(pending)
    pending.clear()
    return taken


def after_fanout(callback: Callable[[], object]) -> None:
    """Run ``callback`` once the current transaction has committed **and** the frames it scheduled are
    sent; never if it rolls back. Call it before scheduling the frames (``table_changed``)."""
    outbox = OUTBOX.get()
    if outbox is not None:
        transaction.on_commit(lambda: outbox.append(_after_entry(callback)))
    else:
        transaction.on_commit(lambda: _after_pending().append(callback))


def _after_run(callbacks: list[Callable[[], object]]) -> None:
    for callback in callbacks:
        try:
            callback()
        except Exception:  # noqa: BLE001 - the change is committed; the clock's catch-up retries
            logger.exception("work after the fan-out failed: %r", callback)


_after_tasks: set[asyncio.Task] = set()


async def _after_run_async(callbacks: list[Callable[[], object]]) -> None:
    for callback in callbacks:
        outbox: list = []
        token = OUTBOX.set(outbox)
        try:
            await in_thread(callback)()
        except Exception:  # noqa: BLE001 - see _after_run
            logger.exception("work after the fan-out failed: %r", callback)
        finally:
            OUTBOX.reset(token)
        if outbox:  # what the work changed (a tournament's next stage) goes out the same way
            layer = get_channel_layer()
            if layer is not None:
                await send_now(layer, outbox)


async def after_fanout_settled() -> None:
    """Wait until the work started after this process's fan-outs has finished (tests, a clean shutdown)."""
    while _after_tasks:
        await asyncio.gather(*list(_after_tasks), return_exceptions=True)


#: Called with every batch of wired messages this process sends from the event loop (the in-process referee,
#: ``games.timekeeper``, notes which versions went out). Registered by whoever listens; events imports none.
on_sent: list = []


async def send_now(layer: BaseChannelLayer, messages: list[tuple[str, dict]]) -> None:
    """Send the wired messages a socket (or the in-process referee) collected in its OUTBOX, from the event
    loop, in order. A failure is logged, not raised: the change is committed, and clients resync. Work the
    outbox holds for after the fan-out (``after_fanout``) starts once every frame is handed over."""
    after = [message["callback"] for _, message in messages if message.get("type") == AFTER]
    if after:
        messages = [(group, message) for group, message in messages if message.get("type") != AFTER]
    await _send_frames(layer, messages)
    if after:
        task = asyncio.get_running_loop().create_task(_after_run_async(after))
        _after_tasks.add(task)
        task.add_done_callback(_after_tasks.discard)


async def _send_frames(layer: BaseChannelLayer, messages: list[tuple[str, dict]]) -> None:
    if not messages:
        return
    for hook in on_sent:
        hook(messages)
    if hasattr(layer, "group_send_many"):  # ginsite.layers: all groups in a few round trips
        try:
            await layer.group_send_many(messages)
        except Exception as error:  # noqa: BLE001 - see _send
            logger.error("could not send to %s: %r", ", ".join(group for group, _ in messages), error)
        return
    for group, message in messages:
        try:
            await layer.group_send(group, message)
        except Exception as error:  # noqa: BLE001 - see _send
            logger.error("could not send to %s: %r", group, error)


def table_frames(snapshot: presenters.TableSnapshot, *, also_users: Iterable[int] = ()) -> list[tuple[str, dict]]:
    """One ``state`` frame per seated user and one public frame; ``also_users`` (e.g. who just left a seat)
    get the public view on their own group, so their sockets learn they are spectators now."""
    table_id = snapshot.table.pk
    messages: list[tuple[str, dict]] = []
    seated = set()
    for seat in snapshot.seats:
        if seat.user_id is not None:
            seated.add(seat.user_id)
            frame = presenters.table_state(snapshot, seat.index)
            messages.append((user_group(table_id, seat.user_id), {"type": "table.frame", "audience": "user", "frame": frame}))
    public = presenters.table_state(snapshot, None)
    for user_id in set(also_users) - seated:
        messages.append((user_group(table_id, user_id), {"type": "table.frame", "audience": "user", "frame": public}))
    messages.append((public_group(table_id), {"type": "table.frame", "audience": "public", "frame": public}))
    return messages


def lobby_frame(snapshot: presenters.TableSnapshot) -> list[tuple[str, dict]]:
    table = snapshot.table
    if table.private:
        return []
    frame = {"type": "lobby_table", "table": presenters.table_summary(table, snapshot.seats)}
    return [(LOBBY_GROUP, {"type": "lobby.frame", "frame": frame})]


def table_changed(snapshot: presenters.TableSnapshot, *, lobby: bool = False, also_users: Iterable[int] = ()) -> None:
    """Schedule the fan-out of a change for after the commit."""
    messages = table_frames(snapshot, also_users=also_users)
    if lobby:
        messages += lobby_frame(snapshot)
    send_after_commit(messages)


def chat_posted(table_id: int, frame: dict) -> None:
    send_after_commit([(everyone_group(table_id), {"type": "table.frame", "audience": "all", "frame": frame})])
