"""A channel layer's calls from synchronous code (``games.delivery.sync_calls``): on the server's loop inside a
server, on one loop the process keeps elsewhere, so that a channels-redis layer's connections are kept instead
of one opened and closed per call (the referee process, a management command)."""

from __future__ import annotations

import asyncio
import os

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from channels_redis.core import RedisChannelLayer

from games.delivery import sync_calls


class _WhereLayer(RedisChannelLayer):
    """A channels-redis layer (no server needed) with a call that says which loop it ran on."""

    async def where(self, tag: str):
        return tag, asyncio.get_running_loop()


def test_calls_of_a_redis_layer_from_plain_synchronous_code_all_run_on_one_kept_loop():
    layer = _WhereLayer(hosts=["redis://127.0.0.1:1"])
    first = sync_calls.call_from_sync(layer.where, "a")
    second = sync_calls.call_from_sync(layer.where, "b")
    assert first[0] == "a" and second[0] == "b"
    assert first[1] is second[1] is sync_calls._kept_loop()
    assert first[1].is_running()


def test_inside_a_server_thread_the_call_runs_on_the_servers_own_loop():
    layer = _WhereLayer(hosts=["redis://127.0.0.1:1"])

    async def server():
        return asyncio.get_running_loop(), await sync_to_async(sync_calls.call_from_sync)(layer.where, "c")

    loop, (tag, ran_on) = asyncio.run(server())
    assert tag == "c" and ran_on is loop and ran_on is not sync_calls._kept_loop()


def test_a_layer_that_is_not_channels_redis_is_called_as_async_to_sync_calls_it():
    class Memory:
        async def where(self):
            return asyncio.get_running_loop()

    ran_on = sync_calls.call_from_sync(Memory().where)
    assert ran_on is not sync_calls._kept_loop()


def _connections_received(client) -> int:
    return int(client.info("stats")["total_connections_received"])


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="the channel layer is channels-redis with REDIS_URL")
def test_sends_from_synchronous_code_arrive_and_keep_their_redis_connections():
    import redis
    from django.conf import settings

    client = redis.Redis.from_url(settings.REDIS_URL)  # the counting's own connection, opened once
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    before = _connections_received(client)
    for number in range(20):
        sync_calls.call_from_sync(layer.send, channel, {"type": "test.frame", "number": number})
    opened = _connections_received(client) - before
    # One per Redis server at most (the first send on the kept loop); asgiref's own loop per call opened 20.
    assert opened <= len(layer.hosts)

    async def receive_all():
        return [await layer.receive(channel) for _ in range(20)]

    assert [message["number"] for message in async_to_sync(receive_all)()] == list(range(20))
