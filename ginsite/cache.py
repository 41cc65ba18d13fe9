"""Django's Redis cache with its client kept: one ``redis.Redis`` per connection pool, made once.

Django's ``RedisCacheClient.get_client`` makes a new ``redis.Redis`` for every cache call. redis-py 8 builds
that object's table of response callbacks (~170 entries, each key upper-cased) in its constructor, and that
was a fifth of the CPU of a socket's handshake read on the scaled stack (its sessions come from the cache:
cProfile of ``games.web.handshakes._open_batch``, 400 handshakes one by one, docs/scale.md). The client holds
no state of its own besides its pool and is safe to share between threads (redis-py's documentation), so one
per pool serves every thread of the process. Django names ``get_client`` as the place a custom client changes.

And one client, so one connection pool, per process and Redis location: Django keeps a cache object per thread
and, under ASGI, per task (``caches`` is an ``asgiref.local.Local``), and each of those made its own pool, so
every socket's session store (channels makes it in the socket's task) and every request opened a Redis
connection of its own. py-spy on the scaled evening's ramp: connecting to Redis (``ConnectionPool.get_connection``
→ ``connect``) was 8.6 % of both daphnes' samples, inside the handshakes' batched session read.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from typing import Any

import redis.asyncio
from django.core.cache.backends.redis import RedisCache, RedisCacheClient

from ginsite.loopturns import Requests, Together

#: Connections of a loop's asyncio client (``loop_client``): a burst of sockets reading their sessions at once
#: waits for one (``LOOP_WAIT_SECONDS`` at most) instead of opening a connection each. redis-py's default pool
#: refused every read past its 100th in flight ("Too many connections"): a traceback logged per socket, ~340 per
#: daphne in the scaled tournament start, each such socket's session then read by its batch.
LOOP_CONNECTIONS = 8
LOOP_WAIT_SECONDS = 5.0


class KeptRedisCacheClient(RedisCacheClient):
    """``get_client`` returns the same ``redis.Redis`` for the same connection pool."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}
        self._loop_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, redis.asyncio.Redis] = (
            weakref.WeakKeyDictionary())
        self._loop_lock = threading.Lock()
        #: The keys asked for in one turn of the loop, read together (``get_together``).
        self._reads: Together[str] = Together(self._read_together)

    def loop_client(self) -> redis.asyncio.Redis:
        """An asyncio client of the server Django reads from, for the running event loop (one per loop: an
        asyncio connection belongs to the loop that opened it)."""
        loop = asyncio.get_running_loop()
        client = self._loop_clients.get(loop)
        if client is None:
            with self._loop_lock:
                client = self._loop_clients.get(loop)
                if client is None:
                    server = self._servers[self._get_connection_pool_index(False)]  # type: ignore[attr-defined]
                    pool = redis.asyncio.BlockingConnectionPool.from_url(
                        server, max_connections=LOOP_CONNECTIONS, timeout=LOOP_WAIT_SECONDS)
                    client = self._loop_clients[loop] = redis.asyncio.Redis(connection_pool=pool)
        return client

    async def get_together(self, key: str) -> Any:
        """The stored value of ``key`` (None if there is none), read on the running event loop with every other
        key asked for in the same turn of the loop, in one ``MGET``.

        A burst of sockets (a tournament's start: 500 per daphne) read their sessions one ``GET`` each, through
        the loop client's few connections (``LOOP_CONNECTIONS``): 60 round trips in a row per connection, each
        answer a turn of a busy loop of its own."""
        return await self._reads.ask(key)

    async def _read_together(self, requests: Requests[str]) -> None:
        keys = list(dict.fromkeys(key for key, _ in requests))  # each key once, in the order asked
        values = dict(zip(keys, await self.loop_client().mget(keys), strict=True))
        for key, future in requests:
            if not future.done():  # (a read cancelled meanwhile)
                future.set_result(values[key])

    def loads(self, value: Any) -> Any:
        """A value as ``get`` reads it (Django's serializer)."""
        return self._serializer.loads(value)  # type: ignore[attr-defined]  # Django's own, not in the stubs

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]  # Django's own, not in the stubs
        client = self._clients.get(id(pool))
        if client is None:  # two threads may both make one: either serves, the pool is the same
            client = self._clients[id(pool)] = self._client(connection_pool=pool)  # type: ignore[attr-defined]
        return client


#: The process's clients, by the servers and options they were made with (``KeptClientRedisCache._cache``).
_shared: dict[tuple[tuple[str, ...], str], KeptRedisCacheClient] = {}
_shared_lock = threading.Lock()


class KeptClientRedisCache(RedisCache):
    """Django's ``RedisCache`` with :class:`KeptRedisCacheClient`, one per process for the same servers and
    options, whichever thread or task made the cache object."""

    @property
    def _cache(self) -> KeptRedisCacheClient:
        # Django's own attributes (its cached_property of the same name made the client), not in the stubs.
        servers: list[str] = self._servers  # type: ignore[attr-defined]
        options: dict[str, Any] = self._options  # type: ignore[attr-defined]
        key = (tuple(servers), repr(sorted(options.items())))
        client = _shared.get(key)
        if client is None:
            with _shared_lock:
                client = _shared.get(key)
                if client is None:
                    client = _shared[key] = KeptRedisCacheClient(servers, **options)
        return client

    async def aget(self, key: Any, default: Any = None, version: Any = None) -> Any:
        """``get`` on the running event loop (redis.asyncio), where Django's ``aget`` runs the blocking ``get``
        on a thread: a socket's handshake reads its session so while it joins its first groups
        (games.web.handshakes.read_cached_session), with no thread woken for it, and with the other sockets'
        sessions asked for in the same turn of the loop (``KeptRedisCacheClient.get_together``)."""
        key = self.make_and_validate_key(key, version=version)
        value = await self._cache.get_together(key)
        return default if value is None else self._cache.loads(value)
