"""The referee inside the web process, for sites without Redis (the embedded default: one daphne process and
the in-memory channel layer).

With the in-memory layer a referee in its own process could not reach the sockets: its changes would be
committed but nobody would be told, and every socket had to ask the database once a second whether its table
had changed. Here the referee's passes run in the daphne process's own event loop instead, through the same
services (``games.services.referee_pass``), and their frames go out through the process's channel layer like
any socket's move. The database stays the only truth: the referee keeps nothing in memory between passes (a
restarted process picks up every overdue table on its first pass), and the services' row lock and due-time
check make it safe beside any other referee.

Every pass also keeps **the other clocks** (at most once every ``GAMES_TICK_SECONDS``): the catch-up of
match ends whose announcement was lost, then ``games.signals.referee_tick`` (the ranked pool's widening
window, the tournaments' starts, breaks and forfeits), then the post-match analysis's hand-over of the next
finished match to its worker process (``games.services.analysis.clock_step``), through :func:`clock_tick`, the one tick that
``manage.py referee`` sends too, so that no clock runs in one setup only. Its database work runs on the
database thread like a pass, and what it changes reaches the sockets like a move.

Computer players that search (gin's Experte) think in a worker process (``games.thinking``): a pass starts
their search and goes on; the pass after the answer arrives plays it.

Started by ``ginsite.asgi`` when daphne's reactor runs and ``GAMES_REFEREE_IN_PROCESS`` is on (the default
with the in-memory layer; off with Redis, where ``manage.py referee`` processes do the work).

The same loop also **watches for changes made by other processes** (a shell, a management command, a test
process; with the in-memory layer their frames reach nobody): once every ``GAMES_WATCH_SECONDS`` (1 s) one
query reads the versions of the tables that have sockets in this process, and a table whose version is newer
than the frames this process sent gets its frames built and sent; every ``GAMES_LOBBY_WATCH_SECONDS`` (2 s),
while lobby sockets are open, one query reads the lobby and sends the whole list if it changed. That is one
query a second for the whole process, where each socket used to ask once a second (1,000 sockets: 1,000
queries a second, each a trip to the one database thread).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter

from channels.layers import get_channel_layer
from django.conf import settings
from django.db import DatabaseError

from games import services
from games.analysis import Analyst
from games.delivery import events
from games.models import Table
from games.reads import selectors
from games.services import analysis as match_analysis
from games.services.ending import matches_catch_up
from games.signals import referee_tick
from games.thinking import Thinker
from games.web.dbthread import in_thread

logger = logging.getLogger(__name__)

#: Tables one database call plays at most, so that sockets' moves are not held up behind a long pass.
BATCH = 20

_task: asyncio.Task | None = None
#: Where this process's searching computer players think (a worker process, started at the first search).
_thinker: Thinker | None = None


def thinker() -> Thinker:
    global _thinker
    if _thinker is None:
        _thinker = Thinker(float(settings.GAMES_BOT_THINK_SECONDS))
    return _thinker

#: Where this process's referee analyses finished matches (a worker process, started at the first match).
_analyst: Analyst | None = None


def analyst() -> Analyst:
    global _analyst
    if _analyst is None:
        _analyst = Analyst()
    return _analyst


#: Sockets of this process per table id, and how many lobby sockets.
_sockets: Counter = Counter()
_lobby_sockets = 0
#: The highest version of each watched table whose frames this process has sent (or a socket read).
_announced: dict[int, int] = {}


def socket_opened(table_id: int, version: int) -> None:
    _sockets[table_id] += 1
    announced(table_id, version)


def socket_closed(table_id: int) -> None:
    _sockets[table_id] -= 1
    if _sockets[table_id] <= 0:
        del _sockets[table_id]
        _announced.pop(table_id, None)


def lobby_socket(opened: bool) -> None:
    global _lobby_sockets
    _lobby_sockets += 1 if opened else -1


def announced(table_id: int | None, version: int | None) -> None:
    if table_id is not None and table_id in _sockets and version is not None and version > _announced.get(table_id, -1):
        _announced[table_id] = version


def sent(messages: list[tuple[str, dict]]) -> None:
    """Called by games.delivery.events for every batch of frames this process sends (registered below)."""
    for _, message in messages:
        version = message.get("version")
        if version is not None:
            announced(message.get("table"), version)


def wanted() -> bool:
    """Whether this site's web process should keep time itself (``GAMES_REFEREE_IN_PROCESS``: "auto", the
    default, means exactly when the channel layer is the in-memory one)."""
    configured = str(settings.GAMES_REFEREE_IN_PROCESS).strip().lower()
    if configured in ("1", "true", "yes", "on"):
        return True
    if configured in ("0", "false", "no", "off"):
        return False
    backend = str(settings.CHANNEL_LAYERS.get("default", {}).get("BACKEND", ""))
    return backend.endswith("InMemoryChannelLayer")


def interval() -> float:
    return float(settings.GAMES_REFEREE_INTERVAL)


def tick_every() -> float:
    """Seconds between two ticks of the other clocks (``GAMES_TICK_SECONDS``), in every referee."""
    return float(settings.GAMES_TICK_SECONDS)


def clock_tick(*, analyse: bool = True) -> None:
    """One tick of the clocks beside the tables, for every referee (this one and ``manage.py referee``):
    announce lost match ends again, then ``referee_tick`` for the other apps, then the analysis's hand-over
    (``analyse=False``: not, for a process about to exit, ``manage.py referee --once``, whose worker would die with
    it). Nothing here raises: a failing step is logged and the next tick tries again."""
    try:
        matches_catch_up()
    except Exception:  # noqa: BLE001 - the ticks for the other apps must still go out
        logger.exception("catching up lost match-end announcements failed")
    for receiver, error in referee_tick.send_robust(sender=services.referee_pass):
        if isinstance(error, Exception):
            logger.error("referee_tick listener %r failed", receiver, exc_info=error)
    if not analyse:
        return
    try:
        # The analysis of finished matches: a hand-over to the analyst's worker process, never the work here.
        match_analysis.clock_step(analyst())
    except Exception:  # noqa: BLE001 - the clock must go on
        logger.exception("the post-match analysis step failed")


async def tick(layer) -> None:
    """:func:`clock_tick` on the database thread; what it changed goes out from the event loop."""
    outbox: list = []
    token = events.OUTBOX.set(outbox)
    try:
        await in_thread(clock_tick)()
    finally:
        events.OUTBOX.reset(token)
        if outbox and layer is not None:
            await events.send_now(layer, outbox)


async def one_pass() -> int:
    """Play what is due, a batch per database call; returns how many changes were played."""

    layer = get_channel_layer()
    total = 0
    while True:
        outbox: list = []
        token = events.OUTBOX.set(outbox)
        try:
            played = await in_thread(services.referee_pass)(limit=BATCH, thinker=thinker())
        finally:
            events.OUTBOX.reset(token)
            if outbox and layer is not None:
                await events.send_now(layer, outbox)
        total += played
        if played < BATCH:
            return total


def _versions(ids: list[int]) -> list[tuple[int, int]]:
    rows: list[tuple[int, int]] = []
    for start in range(0, len(ids), 500):
        rows += Table.objects.filter(pk__in=ids[start:start + 500]).values_list("pk", "version")
    return rows


def _frames_of(table_ids: list[int]) -> list[tuple[str, dict]]:
    messages: list[tuple[str, dict]] = []
    for table_id in table_ids:
        table = selectors.table_get(table_id=table_id)
        if table is not None:
            snapshot = selectors.table_snapshot(table=table)
            messages += events.table_frames(snapshot) + events.lobby_frame(snapshot)
    return events.wire(messages)


async def watch(layer) -> int:
    """Send the frames of tables that other processes changed; returns how many tables that was."""

    ids = list(_sockets)
    if not ids or layer is None:
        return 0
    rows = await in_thread(_versions)(ids)
    changed = [pk for pk, version in rows if version > _announced.get(pk, version)]
    if not changed:
        return 0
    messages = await in_thread(_frames_of)(changed)
    # A move of this process may have been sent meanwhile: only what is still news goes out.
    fresh = [
        (group, message) for group, message in messages
        if message.get("version") is None or message["version"] > _announced.get(message.get("table"), -1)
    ]
    await events.send_now(layer, fresh)  # records the versions sent (see sent())
    return len(changed)


_last_lobby: str | None = None


async def watch_lobby(layer) -> None:
    """While lobby sockets are open: the whole list again if it changed since the last look."""
    global _last_lobby

    if _lobby_sockets <= 0 or layer is None:
        _last_lobby = None
        return
    tables = await in_thread(selectors.lobby_tables)()
    text = events.frame_text({"type": "lobby", "tables": tables})
    if text != _last_lobby:
        await layer.group_send(events.LOBBY_GROUP, {"type": "lobby.frame", "text": text})
    _last_lobby = text


async def run() -> None:
    """Keep time until cancelled: a pass, then a short sleep when nothing was due; and watch for changes
    made by other processes."""
    logger.info("referee running inside this process (every %.2f s)", interval())
    layer = get_channel_layer()
    watch_every = float(settings.GAMES_WATCH_SECONDS)
    lobby_every = float(settings.GAMES_LOBBY_WATCH_SECONDS)
    next_watch = next_lobby = next_tick = time.monotonic()
    while True:
        now = time.monotonic()
        if now >= next_tick:
            next_tick = now + tick_every()
            try:
                await tick(layer)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the clock must not stop for one bad tick (a database restart)
                logger.exception("referee tick failed")
        try:
            if watch_every > 0 and now >= next_watch:
                next_watch = now + watch_every
                await watch(layer)
            if lobby_every > 0 and now >= next_lobby:
                next_lobby = now + lobby_every
                await watch_lobby(layer)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - a failed look is tried again on the next round
            logger.exception("watching for changes failed")
        try:
            played = await one_pass()
        except asyncio.CancelledError:
            raise
        except DatabaseError:
            # The database is away (a restart): wait and try again rather than stop keeping time.
            logger.exception("referee pass failed")
            played = 0
        except Exception:  # noqa: BLE001 - the referee must not die of one bad pass
            logger.exception("referee pass failed")
            played = 0
        if not played:
            # A search that finishes wakes the loop at once: its move need not wait for the next interval.
            await thinker().wait_async(interval())


def start() -> asyncio.Task | None:
    """Start the in-process referee on the running event loop (once per process)."""
    global _task
    if _task is not None and not _task.done():
        return _task
    _task = asyncio.get_event_loop().create_task(run())
    return _task


events.on_sent.append(sent)
