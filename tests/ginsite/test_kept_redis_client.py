"""The site's Redis cache keeps its ``redis.Redis`` client (ginsite/cache.py): Django's makes one per call, and
redis-py's constructor was a fifth of a handshake read's CPU on the scaled stack."""

from __future__ import annotations

import os
import threading
import uuid

import pytest

from ginsite.cache import KeptClientRedisCache


def test_every_call_of_the_cache_uses_the_one_client_of_its_pool():
    cache = KeptClientRedisCache("redis://127.0.0.1:6379/4", {"KEY_PREFIX": "kept"})
    client = cache._cache.get_client("a")
    assert cache._cache.get_client("b") is client
    assert cache._cache.get_client("c", write=True) is client  # one server: reads and writes share its pool


def test_a_cache_of_two_servers_keeps_one_client_per_server():
    cache = KeptClientRedisCache("redis://127.0.0.1:6379/4;redis://127.0.0.1:6380/4", {})
    writer = cache._cache.get_client(write=True)
    reader = cache._cache.get_client()  # Django reads from the servers after the first
    assert writer is not reader
    assert cache._cache.get_client(write=True) is writer and cache._cache.get_client() is reader
    assert writer.connection_pool.connection_kwargs["port"] == 6379
    assert reader.connection_pool.connection_kwargs["port"] == 6380


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs a Redis server (REDIS_URL), as CI's second run has")
def test_threads_sharing_the_kept_client_each_read_what_they_wrote():
    cache = KeptClientRedisCache(os.environ["REDIS_URL"], {"KEY_PREFIX": f"kept-{uuid.uuid4().hex}"})
    wrong: list[str] = []

    def work(n: int) -> None:
        for i in range(50):
            cache.set(f"{n}-{i}", {"n": n, "i": i}, 30)
            if cache.get_many([f"{n}-{i}"]) != {f"{n}-{i}": {"n": n, "i": i}}:
                wrong.append(f"{n}-{i}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert wrong == []
    assert cache.get("3-49") == {"n": 3, "i": 49}
    cache.delete_many([f"{n}-{i}" for n in range(8) for i in range(50)])


def test_cache_objects_of_the_same_servers_share_one_client_and_pool():
    one = KeptClientRedisCache("redis://127.0.0.1:6379/4", {"KEY_PREFIX": "kept"})
    two = KeptClientRedisCache("redis://127.0.0.1:6379/4", {"KEY_PREFIX": "other"})  # prefixes are the cache's own
    other_database = KeptClientRedisCache("redis://127.0.0.1:6379/5", {})
    assert one._cache is two._cache
    assert one._cache.get_client() is two._cache.get_client()
    assert other_database._cache is not one._cache


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs a Redis server (REDIS_URL), as CI's second run has")
def test_sockets_tasks_each_with_their_own_cache_object_open_one_connection():
    """Django keeps a cache object per task under ASGI (channels makes a socket's session store in its task):
    sessions read in many tasks go through one pool and, one at a time, one connection."""
    import asyncio

    from django.core.cache import caches

    async def read(key: str) -> tuple[object, object]:
        cache = caches["default"]  # this task's own object
        cache.get_many([key])
        return cache, cache._cache

    async def many() -> list[tuple[object, object]]:
        return await asyncio.gather(*(asyncio.create_task(read(f"kept-{i}")) for i in range(20)))

    shared = caches.create_connection("default")._cache  # a cache object of no task's (caches' own not set here)
    pool = shared.get_client().connection_pool
    opened = pool._created_connections  # the process's pool may be in use already (the tests before)
    # On a thread of its own, as daphne's loop: no cache object made there before (this thread's may be set).
    out: list = []
    thread = threading.Thread(target=lambda: out.append(asyncio.run(many())))
    thread.start()
    thread.join(30)
    read_in = out[0]
    assert len({id(cache) for cache, _client in read_in}) == 20  # Django's objects, one per task
    assert {id(client) for _cache, client in read_in} == {id(shared)}
    assert pool._created_connections - opened <= 1


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs a Redis server (REDIS_URL), as CI's second run has")
def test_aget_reads_on_the_loop_what_get_reads_and_each_loop_has_its_client():
    import asyncio

    cache = KeptClientRedisCache(os.environ["REDIS_URL"], {"KEY_PREFIX": f"kept-{uuid.uuid4().hex}"})
    cache.set("session", {"_auth_user_id": "7", "n": [1, 2]}, 30)
    cache.set("count", 12, 30)  # Django's serializer keeps integers as text

    async def read() -> tuple:
        got = (await cache.aget("session"), await cache.aget("count"), await cache.aget("missing", "none"),
               await cache.aget("session", version=2))
        return got, cache._cache.loop_client()

    (first, client_one), (second, client_two) = asyncio.run(read()), asyncio.run(read())
    assert first == second == ({"_auth_user_id": "7", "n": [1, 2]}, 12, "none", None)
    assert client_one is not client_two  # an asyncio connection belongs to the loop that opened it
    cache.delete_many(["session", "count"])


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs a Redis server (REDIS_URL), as CI's second run has")
def test_a_burst_of_reads_on_one_loop_waits_for_a_few_connections_instead_of_failing():
    """Five hundred sockets reading their sessions at once (a tournament's start): every read answers, over at
    most ``LOOP_CONNECTIONS`` connections. redis-py's default pool refused every read past its 100th in flight."""
    import asyncio

    from ginsite import cache as kept

    cache = KeptClientRedisCache(os.environ["REDIS_URL"], {"KEY_PREFIX": f"kept-{uuid.uuid4().hex}"})
    cache.set("session", {"_auth_user_id": "7"}, 30)

    async def burst() -> tuple[list, int]:
        got = await asyncio.gather(*(cache.aget("session") for _ in range(500)))
        pool = cache._cache.loop_client().connection_pool
        return got, len(pool._available_connections) + len(pool._in_use_connections)

    got, opened = asyncio.run(burst())
    assert got == [{"_auth_user_id": "7"}] * 500
    assert 1 <= opened <= kept.LOOP_CONNECTIONS
    cache.delete("session")


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs a Redis server (REDIS_URL), as CI's second run has")
def test_the_reads_of_one_turn_of_the_loop_go_to_redis_in_one_mget(monkeypatch):
    """A burst of sockets read their sessions with a ``GET`` each, in a row over the loop client's few
    connections; those asked for in one turn of the event loop are one ``MGET`` now, each read its own value."""
    import asyncio

    import redis.asyncio

    cache = KeptClientRedisCache(os.environ["REDIS_URL"], {"KEY_PREFIX": f"kept-{uuid.uuid4().hex}"})
    for n in range(0, 300, 2):
        cache.set(f"session-{n}", {"_auth_user_id": str(n)}, 30)
    commands: list[str] = []
    execute = redis.asyncio.Redis.execute_command

    async def counted(self, *args, **options):
        commands.append(str(args[0]).upper())
        return await execute(self, *args, **options)

    monkeypatch.setattr(redis.asyncio.Redis, "execute_command", counted)

    async def burst() -> list:
        return await asyncio.gather(*(cache.aget(f"session-{n % 300}", "missing") for n in range(600)))

    got = asyncio.run(burst())
    assert got == [{"_auth_user_id": str(n % 300)} if n % 2 == 0 else "missing" for n in range(600)]
    assert commands == ["MGET"]
    cache.delete_many([f"session-{n}" for n in range(0, 300, 2)])
