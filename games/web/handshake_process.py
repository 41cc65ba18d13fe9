"""The handshakes' reads in a process of their own, where the whole site is one daphne process.

``make run`` serves the site from one daphne process (an SQLite file and the in-memory channel layer, which
cannot span processes). Its event loop and every thread it has share one core through the interpreter's lock:
in a burst of 1,000 sockets that core ran at 100 % for 1.5 s while the machine's other core idled, and the
handshake batches' reads (sessions, users, tables, the seats' views: ``handshakes._open_batch``) were about
0.2 ms of it per socket (docs/scale.md, "The handshakes' reads in a process of their own").

Here a batch goes to a helper process instead (a ``ProcessPoolExecutor`` of one worker, spawned, not forked:
the serving process has threads): as session keys, table ids and invites, read there by the very same
``_open_batch`` on the same database file (SQLite's write-ahead log lets another process read while this one
writes). Back come the users, the openings (state and chat frames, or a refusal) and each session's data, which
the socket's own session store takes as if it had read them itself.

``GAMES_HANDSHAKE_PROCESS``: ``auto`` (the default) uses it where the site is one process on a database file:
the in-memory channel layer and SQLite in a file. Not with PostgreSQL and Redis (several daphne processes share
the cores there already), nor on an in-memory database (the tests': it exists on its one connection only).
``1`` and ``0`` force it on (where the database is a file or PostgreSQL) or off.

A batch the helper cannot take is read on the reader thread as before: before the helper has started and
warmed up (``start``, when daphne's reactor runs), while a helper that died is replaced, and a batch with a
socket whose user is resolved already or whose session is not a database one."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from importlib import import_module
from typing import Any

from channels.auth import UserLazyObject
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore as DbSessionStore
from django.utils.functional import LazyObject, empty

logger = logging.getLogger(__name__)

#: Handshake batches handed to the helper at once: one being read, one waiting in its queue, so the helper
#: never idles between batches (three were no better: docs/scale.md).
SLOTS = 2
#: The most handshakes of one batch for the helper. Each batch costs the serving process a round trip (its
#: answer unpickled, its futures woken) whatever its size; in a burst of 1,000 sockets batches of 200 gave the
#: last sockets their state sooner than 50 (the thread's) or 1,000 (docs/scale.md).
BATCH_MAX = 200
#: After a helper died, how long before another is started.
RESTART_SECONDS = 5.0

_pool: ProcessPoolExecutor | None = None
_ready = False
_failed_at: float | None = None
_warm: Callable[[], tuple[int, float]] | None = None  # what a replacement runs to warm up


def wanted() -> bool:
    """Whether this process reads its handshakes in a helper (``GAMES_HANDSHAKE_PROCESS``, see the module)."""
    from django.db import connection

    from games.web.dbthread import readers_apart

    value = str(settings.GAMES_HANDSHAKE_PROCESS).strip().lower()
    if value in ("0", "false", "no", "off"):
        return False
    apart = readers_apart()  # a database other threads (and so other processes) can read: not in memory
    if value in ("1", "true", "yes", "on"):
        return apart
    from channels.layers import InMemoryChannelLayer, get_channel_layer

    return apart and connection.vendor == "sqlite" and isinstance(get_channel_layer(), InMemoryChannelLayer)


def start(warm: Callable[[], tuple[int, float]]) -> Future | None:
    """Spawn the helper and warm it up (Django set up, then ``warm``, run there: ``handshakes.warm_helper``), if
    ``wanted``; batches go to it once that is done. Returns the warm-up's future (None: no helper here)."""
    global _pool, _ready, _warm
    if not wanted():
        return None
    _warm = warm
    _ready = False
    # spawn, not fork: the serving process has threads (the database's, the reactor's) a fork would copy.
    _pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                initializer=_initialize, initargs=(os.getpid(), _inherited()))
    pool = _pool
    warming = pool.submit(warm)

    def warmed(future: Future) -> None:
        global _pool, _ready
        if future.cancelled() or future.exception() is not None:
            # Set up wrong (its settings, its database): another would be too. The handshakes are read on a thread.
            logger.error("the handshake helper process did not start: %r; handshakes are read on a thread",
                         None if future.cancelled() else future.exception())
            if _pool is pool:
                _pool = None
            pool.shutdown(wait=False, cancel_futures=True)
            return
        if _pool is pool:
            _ready = True
            logger.info("handshake helper process %s ready in %.0f ms", *future.result())

    warming.add_done_callback(warmed)
    return warming


def slots() -> int:
    """How many batches may be in the helper at once (0: no helper to take them now)."""
    if _pool is None and _failed_at is not None and time.monotonic() - _failed_at >= RESTART_SECONDS:
        _restart()
    return SLOTS if _ready else 0


def batch_max() -> int | None:
    """The most handshakes of one batch while the helper takes them (None: no helper now)."""
    return BATCH_MAX if _ready else None


def takes(batch: list) -> bool:
    """Whether the helper can read ``batch``: it is ready, and every socket's user is still to be read from a
    session kept in the database (channels' SessionMiddleware made the store; the deferred user is unread)."""
    if not _ready:
        return False
    engine = import_module(settings.SESSION_ENGINE).SessionStore
    for request in batch:
        scope = request.scope
        user = scope.get("user")
        if not (isinstance(user, UserLazyObject) and user._wrapped is empty):
            return False
        store = session_store(scope)
        if type(store) is not engine or not issubclass(engine, DbSessionStore):
            return False
    return True


async def open_batch(batch: list, read: Callable[[list], list]) -> list:
    """``handshakes._open_batch`` for ``batch``, read in the helper by ``read`` (``handshakes.read_in_helper``,
    given the sockets as session keys, table ids and invites); each socket's session store and user are set
    from what it read. Raises what the helper raised (the caller reads the batch on a thread then)."""
    global _pool, _ready, _failed_at
    pool = _pool
    if pool is None:
        raise RuntimeError("no handshake helper process")
    payload = [(session_store(request.scope).session_key, request.table_id, request.invite) for request in batch]
    try:
        answers = await asyncio.wrap_future(pool.submit(read, payload))
    except Exception:
        if _pool is pool and getattr(pool, "_broken", False):
            logger.exception("the handshake helper process died; another starts in %.0f s", RESTART_SECONDS)
            _pool, _ready, _failed_at = None, False, time.monotonic()
            pool.shutdown(wait=False, cancel_futures=True)
        raise
    results = []
    for request, (session_key, data, result) in zip(batch, answers, strict=True):
        if data is not None:  # read there (else this socket failed before its session was read)
            store = session_store(request.scope)
            store._session_key = session_key  # None: no such session, or dropped (its password changed)
            store._session_cache = data
        if not isinstance(result, Exception):
            request.scope["user"]._wrapped = result[0]
        results.append(result)
    return results


def stop() -> None:
    """Shut the helper down (tests; the process's exit does it too)."""
    global _pool, _ready, _failed_at
    pool, _pool, _ready, _failed_at = _pool, None, False, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


def _restart() -> None:
    global _failed_at
    _failed_at = None
    try:
        if _warm is not None:
            start(_warm)
    except Exception:  # noqa: BLE001 - the handshakes are read on a thread meanwhile; tried again later
        logger.exception("starting another handshake helper process failed")
        _failed_at = time.monotonic()


def session_store(scope: dict) -> Any:
    """The session store of ``scope`` (channels' SessionMiddleware puts it in a LazyObject), or None."""
    session = scope.get("session")
    if isinstance(session, LazyObject):
        wrapped = session._wrapped  # type: ignore[attr-defined]  # LazyObject's own slot, not in the stubs
        return wrapped if wrapped is not empty else None
    return session


# --- in the helper ------------------------------------------------------------------------------------


#: How often the helper looks whether the serving process is still there.
PARENT_CHECK_SECONDS = 1.0


def _inherited() -> dict[str, Any]:
    """The settings a batch's reads depend on, handed to the helper as the serving process has them: the helper
    sets itself up from the same environment, but a process may have changed its settings after starting (a test
    server pointing at its test database, with a game of the tests' own)."""
    return {"DATABASES": settings.DATABASES, "INSTALLED_APPS": settings.INSTALLED_APPS,
            "SECRET_KEY": settings.SECRET_KEY, "SECRET_KEY_FALLBACKS": settings.SECRET_KEY_FALLBACKS,
            "SESSION_ENGINE": settings.SESSION_ENGINE, "AUTHENTICATION_BACKENDS": settings.AUTHENTICATION_BACKENDS}


def _initialize(parent: int, inherited: dict[str, Any]) -> None:
    # Ctrl-C in `make run`'s terminal reaches the whole process group: the serving process stops the helper.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A serving process killed outright never says so (the helper holds both ends of its queue's pipe, so it
    # reads no end of file): the helper goes as soon as it has another parent.
    threading.Thread(target=_leave_with, args=(parent,), name="handshake-helper-parent", daemon=True).start()
    import django

    for name, value in inherited.items():
        setattr(settings, name, value)
    django.setup()


def _leave_with(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(0)
