"""The Redis channel layer's receive (``ginsite.layers.RedisChannelLayer``): one script per received message,
nothing lost when a receive is cancelled with its message on the wire, nothing received twice otherwise.

Runs against the Redis the settings name (``REDIS_URL``, the PostgreSQL + Redis half of CI); skipped on the
embedded default, whose layer is in memory."""

from __future__ import annotations

import asyncio

import pytest
import redis
from django.conf import settings

from ginsite.layers import RedisChannelLayer

pytestmark = pytest.mark.skipif(
    settings.CHANNEL_LAYERS["default"]["BACKEND"] != "ginsite.layers.RedisChannelLayer",
    reason="the Redis channel layer needs REDIS_URL",
)


@pytest.fixture
def layer():
    config = dict(settings.CHANNEL_LAYERS["default"]["CONFIG"])
    config["prefix"] = "test-receive"  # keys of their own, whatever else shares this Redis
    made = RedisChannelLayer(**config)
    yield made
    asyncio.run(_flush(made))


async def _flush(layer: RedisChannelLayer) -> None:
    await layer.flush()
    await layer.close_pools()


def test_received_messages_arrive_once_each_in_order_in_one_command_each(layer, monkeypatch):
    commands: list[str] = []
    execute = redis.asyncio.Redis.execute_command

    async def counted(self, *args, **options):
        commands.append(str(args[0]).upper())
        return await execute(self, *args, **options)

    async def run() -> list[int]:
        channel = await layer.new_channel()
        for number in range(5):
            await layer.send(channel, {"type": "x", "n": number})
        monkeypatch.setattr(redis.asyncio.Redis, "execute_command", counted)
        got = [(await layer.receive(channel))["n"] for _ in range(5)]
        await asyncio.sleep(0.05)  # what channels-redis would fire off after each message
        monkeypatch.undo()
        return got

    assert asyncio.run(run()) == [0, 1, 2, 3, 4]
    # channels-redis: a clean-up script, BZPOPMIN, ZADD and a ZPOPMIN fired off after it, per message.
    assert commands == ["EVALSHA"] * 5 or commands == ["EVAL"] * 5, commands


def test_a_message_whose_receive_was_cancelled_on_the_wire_comes_again(layer):
    """The pop ran on Redis but its receiver never took the message (cancelled): the message waits in the
    backup queue, and the next receive gets it; a message handed over is not received again."""

    async def run() -> tuple[dict, dict, dict]:
        channel = await layer.new_channel()
        process_wide = layer.non_local_name(channel)  # "specific.<process>!": one queue for the process
        key = layer.prefix + process_wide
        index = layer.consistent_hash(process_wide)
        await layer.send(channel, {"type": "x", "n": 1})
        await layer.send(channel, {"type": "x", "n": 2})
        # What a receive cancelled after its script ran leaves behind: the message popped and backed up, and
        # not marked as handed over.
        popped = await layer._brpop_with_clean(index, key, timeout=1)
        assert layer.deserialize(popped)["n"] == 1
        again = await layer.receive(channel)  # the cancelled one's message first, not lost
        second = await layer.receive(channel)
        await layer.send(channel, {"type": "x", "n": 3})
        third = await layer.receive(channel)  # not message 2 again: it was handed over
        return again, second, third

    again, second, third = asyncio.run(run())
    assert (again["n"], second["n"], third["n"]) == (1, 2, 3)


@pytest.fixture
def two_shards():
    """The layer over two Redis "servers" (two databases of the one in the settings: the layer only knows its
    ``hosts`` list), as ``REDIS_CHANNEL_URLS`` shards it in production."""
    config = dict(settings.CHANNEL_LAYERS["default"]["CONFIG"])
    url = config["hosts"][0]["address"].rsplit("/", 1)[0]
    config.update(prefix="test-shards", hosts=[{"address": f"{url}/13"}, {"address": f"{url}/12"}])
    made = RedisChannelLayer(**config)
    yield made
    asyncio.run(_flush(made))


def test_a_fan_out_over_two_shards_asks_both_side_by_side_and_delivers_each_frame_once(two_shards):
    layer = two_shards
    groups = {}
    for n in range(100):  # a group on each shard
        groups.setdefault(layer.consistent_hash(f"table-{n}"), f"table-{n}")
        if len(groups) == 2:
            break
    started = {index: asyncio.Event() for index in groups}
    in_flight_together: list[int] = []

    def waiting_for_the_other(index, call):
        # A round trip to one shard does not end before the other shard's has begun: asked one after the
        # other, the first would wait here for ever (and the test fails at its timeout).
        async def call_and_wait(*args, **kwargs):
            started[index].set()
            await asyncio.wait_for(started[1 - index].wait(), timeout=5)
            in_flight_together.append(index)
            return await call(*args, **kwargs)
        return call_and_wait

    async def run() -> dict:
        channels = {index: await layer.new_channel() for index in groups}
        for index, group in groups.items():
            await layer.group_add(group, channels[index])
        connection = layer.connection

        def patched(index):
            made = connection(index)
            pipeline = made.pipeline

            def pipe(*args, **kwargs):
                p = pipeline(*args, **kwargs)
                p.execute = waiting_for_the_other(index, p.execute)
                return p
            made.pipeline = pipe
            return made

        layer.connection = patched  # type: ignore[method-assign]
        try:
            await layer.group_send_many([(group, {"type": "x", "to": group}) for group in groups.values()])
        finally:
            layer.connection = connection  # type: ignore[method-assign]
        got = {index: await layer.receive(channels[index]) for index in groups}
        extra = [await asyncio.wait_for(layer.receive(channels[index]), 0.2) for index in groups
                 if await _waiting(layer, channels[index])]
        return {"got": got, "extra": extra}

    outcome = asyncio.run(run())
    assert sorted(in_flight_together) == [0, 1]
    assert {index: m["to"] for index, m in outcome["got"].items()} == groups
    assert outcome["extra"] == []


async def _waiting(layer: RedisChannelLayer, channel: str) -> bool:
    index = layer.consistent_hash(channel) if "!" in channel else 0
    return bool(await layer.connection(index).zcard(layer.prefix + channel))
