"""The Redis channel layer's receive (``ginsite.layers.RedisChannelLayer``): one script per received message,
nothing lost when a receive is cancelled with its message on the wire, nothing received twice otherwise.

Runs against the Redis the settings name (``REDIS_URL``, the PostgreSQL + Redis half of CI); skipped on the
embedded default, whose layer is in memory."""

from __future__ import annotations

import asyncio
import copy
import gc
import socket
import sys
import time

import pytest
import redis
from channels.exceptions import ChannelFull
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


def test_waiting_messages_arrive_once_each_in_order_in_one_command_for_all(layer, monkeypatch):
    commands: list[str] = []
    execute = redis.asyncio.Redis.execute_command

    async def counted(self, *args, **options):
        commands.append(str(args[0]).upper())
        return await execute(self, *args, **options)

    async def run() -> tuple[list[int], list[int]]:
        channel = await layer.new_channel()
        for number in range(5):
            await layer.send(channel, {"type": "x", "n": number})
        monkeypatch.setattr(redis.asyncio.Redis, "execute_command", counted)
        got = [(await layer.receive(channel))["n"] for _ in range(5)]
        await asyncio.sleep(0.05)  # what channels-redis would fire off after each message
        monkeypatch.undo()
        await layer.send(channel, {"type": "x", "n": 5})
        later = [(await layer.receive(channel))["n"]]
        backup = layer.prefix + layer.non_local_name(channel) + "$inflight"
        index = layer.consistent_hash(layer.non_local_name(channel))
        backed_up = [layer.deserialize(m)["n"] for m in await layer.connection(index).zrange(backup, 0, -1)]
        return got + later, backed_up

    got, backed_up = asyncio.run(run())
    assert got == [0, 1, 2, 3, 4, 5]
    # channels-redis: a clean-up script, BZPOPMIN, ZADD and a ZPOPMIN fired off after it, per message.
    # (A Redis that does not hold the script yet answers EVALSHA with NOSCRIPT, and gets its text: EVAL.)
    assert commands == ["EVALSHA"] or commands == ["EVALSHA", "EVAL"], commands
    # The first batch's backup copies went with the next script: only the message received last is backed up.
    assert backed_up == [5]


def test_one_receive_takes_at_most_receive_batch_messages_off_the_channel(layer):
    async def run() -> tuple[int, int, list[int]]:
        layer.receive_batch = 3
        channel = await layer.new_channel()
        for number in range(5):
            await layer.send(channel, {"type": "x", "n": number})
        first = (await layer.receive(channel))["n"]
        key = layer.prefix + layer.non_local_name(channel)
        connection = layer.connection(layer.consistent_hash(layer.non_local_name(channel)))
        left, backed_up = await connection.zcard(key), await connection.zcard(key + "$inflight")
        rest = [(await layer.receive(channel))["n"] for _ in range(4)]
        return left, backed_up, [first, *rest]

    left, backed_up, got = asyncio.run(run())
    assert (left, backed_up) == (2, 3)  # three popped and backed up, two still on the channel
    assert got == [0, 1, 2, 3, 4]


def test_a_batch_is_shared_out_to_the_channels_of_the_process_it_was_sent_to(layer):
    """One process channel carries the messages of every socket of the process: a batch popped by one
    receive reaches each socket's receive, each message once."""

    async def run() -> tuple[list, bool]:
        first, second = await layer.new_channel(), await layer.new_channel()
        for number in range(3):
            await layer.send(first, {"type": "x", "n": number})
            await layer.send(second, {"type": "x", "n": 10 + number})

        async def three(channel):
            return [(await layer.receive(channel))["n"] for _ in range(3)]

        got = await asyncio.gather(three(first), three(second))
        return list(got), await _waiting(layer, layer.non_local_name(first))

    got, left = asyncio.run(run())
    assert got == [[0, 1, 2], [10, 11, 12]]
    assert left is False


def test_a_batch_whose_receive_was_cancelled_on_the_wire_comes_again(layer):
    """The pop ran on Redis but its receiver never took the messages (cancelled): they wait in the backup
    queue, and the next receive gets them, in order; messages handed over are not received again."""

    async def run() -> tuple[list, list, dict]:
        channel = await layer.new_channel()
        process_wide = layer.non_local_name(channel)  # "specific.<process>!": one queue for the process
        key = layer.prefix + process_wide
        index = layer.consistent_hash(process_wide)
        await layer.send(channel, {"type": "x", "n": 1})
        await layer.send(channel, {"type": "x", "n": 2})
        # What a receive cancelled after its script ran leaves behind: the messages popped and backed up, and
        # not marked as handed over.
        popped = await layer._brpop_with_clean(index, key, timeout=1)
        again = [await layer.receive(channel), await layer.receive(channel)]  # not lost
        await layer.send(channel, {"type": "x", "n": 3})
        third = await layer.receive(channel)  # not message 1 or 2 again: they were handed over
        return [layer.deserialize(m)["n"] for m in popped], [m["n"] for m in again], third

    popped, again, third = asyncio.run(run())
    assert popped == [1, 2]
    assert again == [1, 2]
    assert third["n"] == 3


def test_a_receive_cancelled_in_its_blocking_pop_loses_nothing_sent_after(layer):
    async def run() -> dict:
        channel = await layer.new_channel()
        waiting = asyncio.ensure_future(layer.receive(channel))
        await asyncio.sleep(0.2)  # in its blocking pop on an empty channel
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        await layer.send(channel, {"type": "x", "n": 4})
        return await asyncio.wait_for(layer.receive(channel), timeout=3)

    assert asyncio.run(run())["n"] == 4


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


def test_a_message_sent_to_one_socket_waits_on_the_shard_its_process_receives_from(two_shards):
    """channels-redis's ``send`` picks the Redis server by a hash of the socket's whole channel name, its
    receive by the process's part of it: a message could wait where the process never looks."""
    layer = two_shards

    async def run() -> tuple[list[int], int]:
        channels = []
        while len(channels) < 3:  # sockets whose whole name hashes to the other shard than their process's part
            channel = await layer.new_channel()
            if layer.consistent_hash(channel) != layer.consistent_hash(layer.non_local_name(channel)):
                channels.append(channel)
        for n, channel in enumerate(channels):
            await layer.send(channel, {"type": "x", "n": n})
        got = [(await asyncio.wait_for(layer.receive(channel), timeout=3))["n"] for channel in channels]
        return got, await layer.connection(layer.consistent_hash(layer.non_local_name(channels[0]))).exists(
            layer.prefix + layer.non_local_name(channels[0]))

    got, left = asyncio.run(run())
    assert got == [0, 1, 2]
    assert left == 0  # each message received once, none left waiting


def test_a_full_socket_channel_refuses_a_message_sent_to_it(two_shards):
    layer = two_shards
    layer.capacity = 2

    async def run() -> list[int]:
        channel = await layer.new_channel()
        await layer.send(channel, {"type": "x", "n": 0})
        await layer.send(channel, {"type": "x", "n": 1})
        with pytest.raises(ChannelFull):
            await layer.send(channel, {"type": "x", "n": 2})
        return [(await layer.receive(channel))["n"] for _ in range(2)]

    assert asyncio.run(run()) == [0, 1]


def _a_group_on_each_shard(layer: RedisChannelLayer, pattern: str) -> dict[int, str]:
    """A group name (``pattern`` with a number) per shard of ``layer``, by the shard's index."""
    groups: dict[int, str] = {}
    for n in range(100):
        groups.setdefault(layer.consistent_hash(pattern.format(n)), pattern.format(n))
        if len(groups) == 2:
            break
    return groups


def test_a_fan_out_over_two_shards_asks_both_side_by_side_and_delivers_each_frame_once(two_shards):
    layer = two_shards
    groups = _a_group_on_each_shard(layer, "table-{}")
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
        called = {index: False for index in groups}

        def patched(index):
            made = connection(index)
            if not called[index]:  # the first script on each shard: the look-up of who is in its group
                called[index] = True
                made = copy.copy(made)
                made.evalsha = waiting_for_the_other(index, made.evalsha)
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


@pytest.fixture
def short_socket_timeout():
    """The layer with a socket timeout (0.3 s) shorter than its blocking pop's (1 s): the relation of redis-py
    8's defaults (5 s and channels-redis's 5 s) with the race made certain instead of likely."""
    config = dict(settings.CHANNEL_LAYERS["default"]["CONFIG"])
    config.update(prefix="test-blocking", hosts=[{**host, "socket_timeout": 0.3} for host in config["hosts"]])
    made = RedisChannelLayer(**config)
    made.brpop_timeout = 1
    yield made
    asyncio.run(_flush(made))


def test_a_receive_on_an_empty_channel_outlasts_the_socket_timeout_and_gets_a_message_sent_later(short_socket_timeout):
    """The blocking pop's reply may take its whole time on Redis (brpop_timeout) and more: the client must not
    give up on it after the pool's socket timeout (redis-py then drops the connection, the error ends the
    consumer, and a message Redis popped meanwhile is lost)."""
    layer = short_socket_timeout

    async def run() -> dict:
        channel = await layer.new_channel()

        async def send_later() -> None:
            await asyncio.sleep(1.6)  # past the socket timeout and past one whole blocking pop
            await layer.send(channel, {"type": "x", "n": 7})

        sender = asyncio.ensure_future(send_later())
        try:
            return await asyncio.wait_for(layer.receive(channel), timeout=5)
        finally:
            await sender

    assert asyncio.run(run())["n"] == 7


async def _read_command(reader: asyncio.StreamReader) -> list[bytes] | None:
    """The next command a client sent, as its arguments (a RESP array of bulk strings); None when it hung up."""
    line = await reader.readline()
    if not line:
        return None
    args = []
    for _ in range(int(line[1:])):
        size = int((await reader.readline())[1:])
        args.append((await reader.readexactly(size + 2))[:-2])
    return args


class _SilentRedis:
    """A TCP server that speaks enough Redis to let a client connect, answers the layer's non-blocking script
    with nothing (an empty channel), and never answers a blocking pop: a Redis that hung."""

    def __init__(self):
        self.pops = 0

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                args = await _read_command(reader)
                if args is None:
                    return
                name = args[0].upper()
                if name == b"BZPOPMIN":
                    self.pops += 1
                    continue  # no answer, ever
                if name == b"HELLO":
                    writer.write(b"%1\r\n+proto\r\n:3\r\n")
                else:
                    writer.write(b"_\r\n" if name in (b"EVAL", b"EVALSHA") else b"+OK\r\n")
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            return


def test_a_blocking_pop_that_redis_never_answers_fails_after_its_own_time_plus_the_socket_timeout():
    """A dead Redis is still noticed on the blocking pop: its reply gets the pop's time on Redis plus the
    socket timeout (1 + 0.3 s here), then the receive fails with redis-py's TimeoutError."""
    silent = _SilentRedis()

    async def run() -> float:
        server = await asyncio.start_server(silent.serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        layer = RedisChannelLayer(hosts=[{"address": f"redis://127.0.0.1:{port}/0", "socket_timeout": 0.3}],
                                  prefix="test-silent")
        layer.brpop_timeout = 1
        channel = await layer.new_channel()
        started = time.monotonic()
        try:
            with pytest.raises(redis.exceptions.TimeoutError):
                await asyncio.wait_for(layer.receive(channel), timeout=5)
            return time.monotonic() - started
        finally:
            await layer.close_pools()
            server.close()

    elapsed = asyncio.run(run())
    assert silent.pops == 1
    assert 1.2 <= elapsed < 3, elapsed


def test_a_message_the_blocking_pop_returns_costs_no_command_after_it(layer, monkeypatch):
    """On a quiet channel a receive is the script (nothing waiting) and the blocking pop, then the hand-over:
    no backup copy written after the pop (channels-redis: a ZADD per message)."""
    commands: list[str] = []
    execute = redis.asyncio.Redis.execute_command
    receiver: list[asyncio.Task] = []

    async def counted(self, *args, **options):
        if asyncio.current_task() in receiver:  # the receive's commands, not the sender's
            commands.append(str(args[0]).upper())
        return await execute(self, *args, **options)

    async def run() -> tuple[dict, dict]:
        channel = await layer.new_channel()

        async def send_later(n: int) -> None:
            await asyncio.sleep(0.3)  # the receive is in its blocking pop by then
            await layer.send(channel, {"type": "x", "n": n})

        monkeypatch.setattr(redis.asyncio.Redis, "execute_command", counted)
        sender = asyncio.ensure_future(send_later(1))
        receiving = asyncio.ensure_future(layer.receive(channel))
        receiver.append(receiving)
        first = await asyncio.wait_for(receiving, timeout=3)
        await sender
        await asyncio.sleep(0.05)
        monkeypatch.undo()
        await layer.send(channel, {"type": "x", "n": 2})
        return first, await asyncio.wait_for(layer.receive(channel), timeout=3)

    first, second = asyncio.run(run())
    assert (first["n"], second["n"]) == (1, 2)  # and message 1 not again
    # The script only (the blocking pop is read on a connection of its own, not through execute_command).
    assert commands in (["EVAL"], ["EVALSHA"]), commands


def test_scripts_go_by_their_sha_and_a_server_that_lost_them_gets_the_text_once(layer, monkeypatch):
    """The layer's scripts go as ``EVALSHA`` (40 bytes, not the script's text on every call); a Redis that does
    not hold one (restarted, ``SCRIPT FLUSH``) gets its text once with ``EVAL`` and the next call goes by SHA."""
    commands: list[str] = []
    execute = redis.asyncio.Redis.execute_command

    async def counted(self, *args, **options):
        commands.append(str(args[0]).upper())
        return await execute(self, *args, **options)

    async def run() -> list[int]:
        channel = await layer.new_channel()
        connection = layer.connection(layer.consistent_hash(layer.non_local_name(channel)))
        await connection.script_flush()  # as a restarted Redis: no script cached
        monkeypatch.setattr(redis.asyncio.Redis, "execute_command", counted)
        await layer.send(channel, {"type": "x", "n": 1})
        await layer.send(channel, {"type": "x", "n": 2})
        monkeypatch.undo()
        return [(await layer.receive(channel))["n"] for _ in range(2)]

    assert asyncio.run(run()) == [1, 2]
    assert commands == ["EVALSHA", "EVAL", "EVALSHA"], commands


def test_a_command_is_written_without_a_task_of_its_own(layer):
    """redis-py writes each command under ``asyncio.wait_for``, a new Task per command on Python 3.11; the
    layer's connections write it directly (``ginsite.layers._SendWithoutTask``)."""

    async def run() -> tuple[list, dict]:
        channel = await layer.new_channel()
        await layer.send(channel, {"type": "x", "n": 1})  # the pool's connection made, the script cached
        loop = asyncio.get_running_loop()
        made: list = []

        def counting(loop, coro, **kwargs):
            made.append(getattr(coro, "__qualname__", coro))
            return asyncio.Task(coro, loop=loop, **kwargs)

        loop.set_task_factory(counting)
        try:
            await layer.send(channel, {"type": "x", "n": 2})
        finally:
            loop.set_task_factory(None)
        await layer.receive(channel)
        return made, await layer.receive(channel)

    made, second = asyncio.run(run())
    assert made == []
    assert second["n"] == 2


class _DeafRedis:
    """A TCP server that lets a client connect (answers what a connection sends first) and then stops reading:
    a Redis whose socket buffer stays full."""

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                args = await _read_command(reader)
                if args is None:
                    return
                if args[0].upper() in (b"EVAL", b"EVALSHA"):
                    await asyncio.sleep(30)  # reads nothing more
                    return
                writer.write(b"%1\r\n+proto\r\n:3\r\n" if args[0].upper() == b"HELLO" else b"+OK\r\n")
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            return


def test_a_write_redis_does_not_take_fails_after_the_socket_timeout_and_drops_the_connection():
    """Without a Task per write the write still has the socket timeout: a command Redis does not read fails
    with redis-py's TimeoutError after it (0.3 s here), and the connection is dropped."""
    deaf = _DeafRedis()

    async def run() -> tuple[float, int]:
        server = await asyncio.start_server(deaf.serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        layer = RedisChannelLayer(hosts=[{"address": f"redis://127.0.0.1:{port}/0", "socket_timeout": 0.3}],
                                  prefix="test-deaf")
        pool = layer.connection(0).connection_pool
        started = time.monotonic()
        try:
            with pytest.raises(redis.exceptions.TimeoutError):
                # Far more than the loopback's socket buffers hold: the write waits for a reader.
                await asyncio.wait_for(layer.send("deaf", {"type": "x", "blob": b"x" * 64_000_000}), timeout=10)
            return time.monotonic() - started, sum(c.is_connected for c in pool._available_connections)
        finally:
            await layer.close_pools()
            server.close()

    elapsed, connected = asyncio.run(run())
    assert 0.3 <= elapsed < 5, elapsed
    assert connected == 0


def test_a_fan_out_to_a_shards_groups_asks_who_is_in_them_in_one_command_and_skips_expired_members(layer, monkeypatch):
    commands: list[str] = []
    execute = redis.asyncio.Redis.execute_command

    async def counted(self, *args, **options):
        commands.append(str(args[0]).upper())
        return await execute(self, *args, **options)

    async def run() -> tuple[list, list, bool, bool]:
        fresh, stale, other = [await layer.new_channel() for _ in range(3)]
        groups = [g for g in (f"fan-{n}" for n in range(100)) if layer.consistent_hash(g) == 0][:2]
        await layer.group_add(groups[0], fresh)
        await layer.group_add(groups[0], stale)
        await layer.group_add(groups[1], other)
        # ``stale`` joined longer ago than the group expiry: it is no member any more.
        key = layer._group_key(groups[0])
        await layer.connection(0).zadd(key, {stale: time.time() - layer.group_expiry - 10})
        monkeypatch.setattr(redis.asyncio.Redis, "execute_command", counted)
        await layer.group_send_many([(groups[0], {"type": "x", "n": 0}), (groups[1], {"type": "x", "n": 1})])
        monkeypatch.undo()
        got = [await layer.receive(fresh), await layer.receive(other)]
        left = [m.decode() for m in await layer.connection(0).zrange(key, 0, -1)]
        return got, left, await _waiting(layer, stale), stale in left

    got, left, stale_waiting, stale_left = asyncio.run(run())
    assert [m["n"] for m in got] == [0, 1]
    assert not stale_waiting and not stale_left and len(left) == 1
    # The look-up of both groups, then the deliveries (to the shard of the receiving process: one or two); a
    # server that did not hold a script yet got its text once more (EVAL).
    assert commands[0] == "EVALSHA" and set(commands) <= {"EVALSHA", "EVAL"}, commands
    assert commands.count("EVALSHA") <= 3, commands


def test_sockets_of_a_process_waiting_together_each_get_their_own_messages_when_the_reader_is_cancelled(layer):
    config = dict(settings.CHANNEL_LAYERS["default"]["CONFIG"])
    config["prefix"] = layer.prefix
    sender = RedisChannelLayer(**config)

    async def run() -> tuple[bool, dict, dict]:
        channels = [await layer.new_channel() for _ in range(6)]
        waits = [asyncio.ensure_future(layer.receive(channel)) for channel in channels]
        await asyncio.sleep(0.1)  # the first receive reads (its blocking pop), the others wait for it
        reading = layer._receives.reading
        waits[0].cancel()  # the reader goes: another waiting receive must read now
        await asyncio.gather(waits[0], return_exceptions=True)
        for n, channel in reversed(list(enumerate(channels[1:], start=1))):
            await sender.send(channel, {"type": "x", "n": n})
        first = {n: (await asyncio.wait_for(wait, 5))["n"] for n, wait in enumerate(waits[1:], start=1)}
        # Messages already waiting, several for one socket, received one by one in their order.
        for n in (1, 2, 1, 3):
            await sender.send(channels[n], {"type": "x", "n": n, "at": time.monotonic()})
        again = {n: [(await asyncio.wait_for(layer.receive(channels[n]), 5))["n"] for _ in range(count)]
                 for n, count in ((1, 2), (2, 1), (3, 1))}
        await _flush(sender)
        return reading, first, again

    reading, first, again = asyncio.run(run())
    assert reading
    assert first == {n: n for n in range(1, 6)}
    assert again == {1: [1, 1], 2: [2], 3: [3]}
    assert not layer._receives.waiting and not layer._receives.reading and layer._receives.count == 0
    assert layer.receive_count == 0


def test_a_group_message_to_a_socket_of_the_same_process_is_handed_over_without_redis(layer, monkeypatch):
    config = dict(settings.CHANNEL_LAYERS["default"]["CONFIG"])
    config["prefix"] = layer.prefix
    other = RedisChannelLayer(**config)  # another daphne process's layer
    commands: list[str] = []
    execute = redis.asyncio.Redis.execute_command

    async def counted(self, *args, **options):
        commands.append(str(args[0]).upper())
        return await execute(self, *args, **options)

    async def run() -> dict:
        mine, theirs, reading = await layer.new_channel(), await other.new_channel(), await layer.new_channel()
        for channel, group in ((mine, "here"), (theirs, "there"), (reading, "reader")):
            await layer.group_add(group, channel)
        # ``mine`` has received before and waits again; ``reading`` waited first, so it reads the process's
        # channel (its blocking pop): its messages keep coming through Redis.
        await layer.send(mine, {"type": "x", "n": -1})
        assert (await layer.receive(mine))["n"] == -1
        waiting_reader = asyncio.ensure_future(layer.receive(reading))
        await asyncio.sleep(0.05)
        waiting_mine = asyncio.ensure_future(layer.receive(mine))
        await asyncio.sleep(0.05)
        reader = layer._receives.reader
        monkeypatch.setattr(redis.asyncio.Redis, "execute_command", counted)
        await layer.group_send_many([("here", {"type": "x", "n": 0, "seated": (1, 2)})])
        here_commands = list(commands)
        got_mine = await asyncio.wait_for(waiting_mine, 5)
        await layer.group_send_many([("there", {"type": "x", "n": 1}), ("reader", {"type": "x", "n": 2})])
        got_theirs = await asyncio.wait_for(other.receive(theirs), 5)
        got_reader = await asyncio.wait_for(waiting_reader, 5)
        monkeypatch.undo()
        await _flush(other)
        return {"reader": reader, "mine": mine, "reading": reading, "here_commands": here_commands,
                "got": [got_mine["n"], got_theirs["n"], got_reader["n"]], "seated": got_mine["seated"]}

    outcome = asyncio.run(run())
    assert outcome["got"] == [0, 1, 2]
    assert outcome["reader"] == outcome["reading"]
    # Only who is in the group was asked: nothing delivered through Redis, nothing popped for ``mine``; the
    # message as it was sent (through Redis a tuple would come as a list).
    assert outcome["here_commands"] == ["EVALSHA"], outcome["here_commands"]
    assert outcome["seated"] == (1, 2)


def test_a_group_message_sent_from_another_threads_loop_goes_through_redis_and_arrives(layer):
    import threading

    async def run() -> tuple[int, list[str]]:
        mine = await layer.new_channel()
        await layer.group_add("here", mine)
        await layer.send(mine, {"type": "x", "n": -1})
        assert (await layer.receive(mine))["n"] == -1  # a socket of this loop, receiving
        reader = asyncio.ensure_future(layer.receive(await layer.new_channel()))  # reads the process's channel
        await asyncio.sleep(0.05)
        waiting = asyncio.ensure_future(layer.receive(mine))
        await asyncio.sleep(0.05)
        assert layer._receives.reader != mine
        commands: list[str] = []
        execute = redis.asyncio.Redis.execute_command

        async def counted(self, *args, **options):
            commands.append(str(args[0]).upper())
            return await execute(self, *args, **options)

        def elsewhere() -> None:  # a view's thread: async_to_sync there runs its own loop
            redis.asyncio.Redis.execute_command = counted  # type: ignore[method-assign]
            try:
                asyncio.run(layer.group_send_many([("here", {"type": "x", "n": 0})]))
            finally:
                redis.asyncio.Redis.execute_command = execute  # type: ignore[method-assign]

        thread = threading.Thread(target=elsewhere)
        thread.start()
        await asyncio.get_running_loop().run_in_executor(None, thread.join)
        got = (await asyncio.wait_for(waiting, 5))["n"]
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)
        return got, commands

    got, commands = asyncio.run(run())
    assert got == 0
    assert commands.count("EVALSHA") + commands.count("EVAL") >= 2, commands  # the look-up and the delivery


def _strand_a_reader_and_a_waiter(layer) -> tuple[asyncio.AbstractEventLoop, list[asyncio.Task]]:
    """Two receives of a loop that then closes without ending them (as a Task made while ``asyncio.run``
    shuts its loop down is never cancelled): the reader in its pop, holding the read lock of the process's
    channel, and a socket waiting on a Future for it."""

    async def never(*args, **kwargs):
        await asyncio.get_running_loop().create_future()

    loop = asyncio.new_event_loop()
    layer._brpop_with_clean = never  # a pop that never answers: no Redis connection of this loop
    try:
        channels = [loop.run_until_complete(layer.new_channel()) for _ in range(2)]
        stranded = [loop.create_task(layer.receive(channel)) for channel in channels]
        loop.run_until_complete(asyncio.sleep(0.05))
        assert layer._receives.reading and layer._receives.waiting
    finally:
        del layer._brpop_with_clean
    loop.close()
    return loop, stranded


def test_receives_a_closed_loop_left_behind_neither_keep_the_next_loop_from_receiving_nor_disturb_it(layer):
    """The next loop's receives begin afresh instead of waiting for the receives a closed loop left behind
    (channels-redis: "Two event loops are trying to receive()", or a reader waiting for the lock forever);
    when the garbage collector ends the stranded ones later, here in the middle of the next loop's read,
    their clean-up changes nothing of it."""
    _, stranded = _strand_a_reader_and_a_waiter(layer)

    async def run() -> tuple[list[int], tuple]:
        channel = await layer.new_channel()
        await layer.send(channel, {"type": "x", "n": 1})
        got = [(await asyncio.wait_for(layer.receive(channel), 5))["n"]]
        waiting = asyncio.ensure_future(layer.receive(channel))
        await asyncio.sleep(0.05)  # it reads: the blocking pop, holding the read lock
        stranded.clear()
        gc.collect()  # the stranded receives' coroutines end here, on this loop's thread
        state = (layer._receives.reading, layer._receives.reader == channel, layer._receives.count)
        await layer.send(channel, {"type": "x", "n": 2})
        got.append((await asyncio.wait_for(waiting, 5))["n"])
        return got, state

    got, state = asyncio.run(run())
    assert got == [1, 2]
    assert state == (True, True, 1)
    assert layer._receives.count == 0 and layer.receive_count == 0


def test_receives_a_closed_loop_left_behind_end_without_resolving_its_futures_when_collected(layer):
    """Collected before any other loop received: their clean-up (the reader waking a waiting receive) must
    not touch a Future of the closed loop ("Event loop is closed", raised out of the collection)."""
    _, stranded = _strand_a_reader_and_a_waiter(layer)
    raised: list = []
    hook = sys.unraisablehook
    sys.unraisablehook = raised.append
    try:
        stranded.clear()
        gc.collect()
    finally:
        sys.unraisablehook = hook
    assert [(r.exc_value, r.object) for r in raised] == []
    # The reader ended (its read lock released); the waiter's Future is still in its loop's state, which
    # the next loop's receive drops.
    assert not layer._receives.reading and layer._receives.count == 1
    assert not layer.receive_clean_locks.locks
    layer._receives = None
    gc.collect()


def test_a_handshake_joins_groups_on_two_shards_side_by_side(two_shards):
    """``regroup`` (a socket's handshake joins its table's groups): one pipelined round trip per shard, the
    shards' round trips in flight together, not one after the other."""
    layer = two_shards
    groups = _a_group_on_each_shard(layer, "table.{}.all")
    started = {index: asyncio.Event() for index in groups}
    in_flight_together: list[int] = []

    async def run() -> dict[int, int]:
        channel = await layer.new_channel()
        connection = layer.connection

        def patched(index):
            made = copy.copy(connection(index))
            pipeline = made.pipeline

            def waiting_pipeline(*args, **kwargs):
                pipe = pipeline(*args, **kwargs)
                execute = pipe.execute

                async def execute_and_wait(*a, **k):
                    started[index].set()
                    # Asked one after the other, the first shard's round trip would wait here for ever.
                    await asyncio.wait_for(started[1 - index].wait(), timeout=5)
                    in_flight_together.append(index)
                    return await execute(*a, **k)

                pipe.execute = execute_and_wait
                return pipe

            made.pipeline = waiting_pipeline
            return made

        layer.connection = patched  # type: ignore[method-assign]
        try:
            await layer.regroup(channel, add=list(groups.values()))
        finally:
            layer.connection = connection  # type: ignore[method-assign]
        members = {}
        for index, group in groups.items():
            members[index] = await layer.connection(index).zcard(layer._group_key(group))
        await layer.regroup(channel, discard=list(groups.values()))
        return members

    members = asyncio.run(run())
    assert sorted(in_flight_together) == [0, 1]
    assert members == {index: 1 for index in groups}


def test_a_burst_of_handshakes_joins_its_groups_over_a_few_connections_each_waiting_for_one(layer):
    """Five hundred sockets of one process joining their groups at once (a tournament's start): every join
    lands, over at most ``max_connections`` connections per server and loop (a blocking pool), none of them
    announcing itself with ``CLIENT SETINFO``. channels-redis's pool opened a connection per join in flight
    (~500 per daphne), each reading redis-py's version from its installed metadata."""
    limit = layer.hosts[0]["max_connections"]
    assert limit < 500

    async def burst() -> tuple[int, int, list]:
        channels = [f"specific.burst!{n}" for n in range(500)]
        await asyncio.gather(*(layer.regroup(channel, add=[f"burst-{n % 50}"]) for n, channel in enumerate(channels)))
        client = layer.connection(0)
        opened = len(client.connection_pool._available_connections) + len(client.connection_pool._in_use_connections)
        members = sum([await client.zcard(layer._group_key(f"burst-{n}")) for n in range(50)])
        # What each connection would send as CLIENT SETINFO (Redis before 7.2, Debian's, ignores the command
        # and lists no lib-name, so the connections are asked, not the server).
        pool = client.connection_pool
        return opened, members, [c.driver_info for c in (*pool._available_connections, *pool._in_use_connections)
                                 if c.driver_info is not None]

    opened, members, announced = asyncio.run(burst())
    assert members == 500
    assert 1 <= opened <= limit
    assert announced == []


def test_the_regroups_of_one_turn_of_the_loop_go_to_redis_in_one_pipeline_per_shard(two_shards, monkeypatch):
    """Every socket of a burst asked for its own round trip (and a connection to wait for); now the regroups
    asked for in one turn of the event loop share a pipeline per shard, each socket's joins and leaves done."""
    layer = two_shards
    executed: list[int] = []
    execute = redis.asyncio.client.Pipeline.execute

    async def counted(self, *args, **kwargs):
        executed.append(len(self.command_stack))
        return await execute(self, *args, **kwargs)

    monkeypatch.setattr(redis.asyncio.client.Pipeline, "execute", counted)

    async def burst() -> tuple[dict, list[str]]:
        channels = [f"specific.turn!{n}" for n in range(200)]
        await asyncio.gather(*(layer.regroup(channel, add=[f"turn-{n % 20}", "turn-all"])
                               for n, channel in enumerate(channels)))
        await asyncio.gather(*(layer.regroup(channel, discard=["turn-all"]) for channel in channels[:50]))
        counts = {}
        for group in [f"turn-{n}" for n in range(20)] + ["turn-all"]:
            client = layer.connection(layer.consistent_hash(group))
            counts[group] = await client.zcard(layer._group_key(group))
        return counts, channels

    counts, _ = asyncio.run(burst())
    assert counts == {**{f"turn-{n}": 10 for n in range(20)}, "turn-all": 150}
    shards = {layer.consistent_hash(group) for group in [f"turn-{n}" for n in range(20)] + ["turn-all"]}
    assert len(shards) == 2
    # Two turns of the loop (the joins, then the leaves), each a pipeline per shard it touched.
    assert len(executed) == 3
    assert sum(executed) == 200 * 2 * 2 + 50


def test_a_shard_that_fails_fails_only_the_regroups_with_commands_on_it():
    """Regroups sent together: the sockets whose groups live on a server that cannot be reached hear of it,
    the others' joins are done."""
    config = dict(settings.CHANNEL_LAYERS["default"]["CONFIG"])
    url = config["hosts"][0]["address"].rsplit("/", 1)[0]
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        dead = probe.getsockname()[1]
    config.update(prefix="test-dead-shard", hosts=[{"address": f"{url}/13"},
                                                    {"address": f"redis://127.0.0.1:{dead}/0", "timeout": 1}])
    layer = RedisChannelLayer(**config)
    groups = [f"dead-{n}" for n in range(40)]
    alive = [group for group in groups if layer.consistent_hash(group) == 0]
    assert alive and len(alive) < len(groups)

    async def burst() -> tuple[list, int]:
        outcomes = await asyncio.gather(*(layer.regroup(f"specific.dead!{n}", add=[group])
                                          for n, group in enumerate(groups)), return_exceptions=True)
        joined = sum([await layer.connection(0).zcard(layer._group_key(group)) for group in alive])
        for group in alive:
            await layer.connection(0).delete(layer._group_key(group))
        return outcomes, joined

    outcomes, joined = asyncio.run(burst())
    for group, outcome in zip(groups, outcomes, strict=True):
        if group in alive:
            assert outcome is None
        else:
            assert isinstance(outcome, redis.exceptions.ConnectionError)
    assert joined == len(alive)
