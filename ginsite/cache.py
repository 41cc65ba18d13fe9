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

import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class KeptRedisCacheClient(RedisCacheClient):
    """``get_client`` returns the same ``redis.Redis`` for the same connection pool."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

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

    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = KeptRedisCacheClient

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
