"""A channel layer's calls from synchronous code (the frames of a change, a sign-out's close), each on a loop
that keeps the layer's connections.

Inside a server (a socket's or a view's database call) asgiref's ``async_to_sync`` runs the call on the server's
own loop. Elsewhere (the referee process, a management command, a test) it starts a thread and an event loop
for the one call, and channels-redis keeps its connections per event loop: every such call opened a connection
to each Redis server it used and closed it again (4.1 ms a send, against 0.7 ms with the in-memory layer,
measured on this machine). For a channels-redis layer those calls run on one loop the process keeps instead,
in a thread of its own, with its connections."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Coroutine
from typing import Any

from asgiref.sync import SyncToAsync, async_to_sync
from channels_redis.core import RedisChannelLayer

#: How long a call from synchronous code may take on the kept loop (``call_from_sync``) before it fails (and is
#: logged by its caller, like any layer that cannot be reached).
SYNC_CALL_SECONDS = 30.0

_kept: tuple[int, asyncio.AbstractEventLoop] | None = None
_kept_lock = threading.Lock()


def _kept_loop() -> asyncio.AbstractEventLoop:
    """This process's own event loop for the layer's calls from synchronous code, running in a daemon thread
    (started on first use; anew in a forked child, where the parent's thread does not exist)."""
    global _kept
    with _kept_lock:
        if _kept is None or _kept[0] != os.getpid():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="channel-layer-calls", daemon=True).start()
            _kept = (os.getpid(), loop)
        return _kept[1]


def _server_loop() -> asyncio.AbstractEventLoop | None:
    """The server's running event loop, if this thread is one of its ``sync_to_async`` threads (asgiref's
    ``async_to_sync`` then runs a coroutine there)."""
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    if getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None) != os.getpid():
        return None
    return loop if loop is not None and loop.is_running() else None


def call_from_sync(function: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> Any:
    """``async_to_sync(function)(*args)`` for a coroutine function (a bound method) of the channel layer: on the
    server's loop inside a server, on the kept loop (``_kept_loop``) for a channels-redis layer elsewhere. The
    in-memory layer's queues belong to the loop that serves its sockets: its calls stay ``async_to_sync``'s."""
    layer = getattr(function, "__self__", None)
    if not isinstance(layer, RedisChannelLayer) or _server_loop() is not None:
        return async_to_sync(function)(*args)
    return asyncio.run_coroutine_threadsafe(function(*args), _kept_loop()).result(timeout=SYNC_CALL_SECONDS)
