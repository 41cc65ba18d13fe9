"""What a move's fan-out and its receives cost a daphne process in the site's Redis channel layer (issue 24), CPU
only, the site's layer against itself with one lever undone, taking turns in one process on the same Redis.

A cycle is a move's Redis work as the scaled load test makes it: one ``group_send_many`` of a ~6 KB state frame
to each seat's user group (one socket each: the mover's on the sending layer, the other seat's on another layer,
the other daphne process), an empty public group and the lobby group, then both sockets' receives. Variants:

- ``site``: ``ginsite.layers.RedisChannelLayer`` as it is;
- ``through Redis``: the same layer with the mover's own socket's frame going through Redis (packed,
  delivered, popped and unpacked) as before a socket of the sending process was handed its message in-process
  (``RedisChannelLayer._hand_over``);
- ``pipelined look-up``: the layer through Redis asking who is in the groups with redis-py's pipeline of two commands
  per group (``ZREMRANGEBYSCORE`` and ``ZRANGE``, each packed and its reply parsed in Python), as it did before
  the look-up was one script per shard (``RedisChannelLayer._MEMBERS``);
- ``two-task receive``: the layer through Redis receiving with channels-redis's ``receive`` (every waiting receive
  races a Task taking the read lock against a Task getting from its buffer), as it did before its receive
  waited on one Future (``RedisChannelLayer.receive``).

It prints each variant's median over the rounds of the process's CPU per cycle (``time.process_time``: both
layers' sides, as one daphne process does both) and its ratio to ``site``.

    .venv/bin/python -m bench.layer_fanout [--url unix:///run/redis-ginsite/redis-6379.sock?db=9] [--cycles 2000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")

import django  # noqa: E402

django.setup()

from channels_redis.core import RedisChannelLayer as _ChannelsRedisChannelLayer  # noqa: E402

from ginsite.layers import RedisChannelLayer, _side_by_side  # noqa: E402

FRAME = {"type": "table.frame", "audience": "user", "text": "x" * 6000, "version": 1, "seated": (1, 2),
         "digest": "d" * 24, "delta": "y" * 400, "base": "b" * 24}


class ThroughRedis(RedisChannelLayer):
    """The site's layer with every group message going through Redis, this process's sockets' too."""

    def _hand_over(self, receives, names, message):
        return names


class PipelinedLookUp(ThroughRedis):
    """The layer through Redis with the look-up of who is in the groups as it was: a pipeline per shard."""

    async def group_send_many(self, messages):
        members: list[list[str]] = [[] for _ in messages]
        by_shard: dict[int, list[int]] = {}
        for i, (group, _) in enumerate(messages):
            by_shard.setdefault(self.consistent_hash(group), []).append(i)
        oldest = int(time.time()) - self.group_expiry

        async def look_up(index: int, positions: list[int]) -> None:
            pipe = self.connection(index).pipeline(transaction=False)
            for i in positions:
                key = self._group_key(messages[i][0])
                pipe.zremrangebyscore(key, min=0, max=oldest)
                pipe.zrange(key, 0, -1)
            results = await pipe.execute()
            for n, i in enumerate(positions):
                members[i] = [name.decode("utf8") for name in results[2 * n + 1]]

        await _side_by_side(look_up(index, positions) for index, positions in by_shard.items())
        await self._deliver_to(messages, members)


class TwoTasksReceive(ThroughRedis):
    """The layer through Redis with channels-redis's own ``receive`` (two Tasks and ``asyncio.wait`` per wait)."""

    receive = _ChannelsRedisChannelLayer.receive


VARIANTS = {"site": RedisChannelLayer, "through Redis": ThroughRedis, "pipelined look-up": PipelinedLookUp,
            "two-task receive": TwoTasksReceive}


async def _cycle_cost(layer_class, url: str, cycles: int) -> float:
    config = {"hosts": [{"address": url, "max_connections": 1000}], "prefix": "bench-layer-fanout",
              "capacity": 1500, "expiry": 30}
    sender, receiver = layer_class(**config), layer_class(**config)
    sockets = [(sender, await sender.new_channel()), (receiver, await receiver.new_channel())]
    await sender.group_add("table.1.user.1", sockets[0][1])
    await sender.group_add("table.1.user.2", sockets[1][1])
    messages = [("table.1.user.1", FRAME), ("table.1.user.2", FRAME), ("table.1.public", FRAME),
                ("lobby", {"type": "lobby.frame", "text": "z" * 300})]

    async def cycle() -> None:
        await sender.group_send_many(messages)
        await asyncio.gather(*(layer.receive(channel) for layer, channel in sockets))

    try:
        for _ in range(max(20, cycles // 10)):  # connections made, scripts cached
            await cycle()
        started = time.process_time()
        for _ in range(cycles):
            await cycle()
        return 1e6 * (time.process_time() - started) / cycles
    finally:
        await sender.flush()
        await receiver.flush()
        await sender.close_pools()
        await receiver.close_pools()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="unix:///run/redis-ginsite/redis-6379.sock?db=9",
                        help="the Redis server (its keys of this benchmark's prefix are emptied after)")
    parser.add_argument("--cycles", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    results: dict[str, list[float]] = {name: [] for name in VARIANTS}

    async def run() -> None:
        for _ in range(args.rounds):
            for name, layer_class in VARIANTS.items():
                results[name].append(await _cycle_cost(layer_class, args.url, args.cycles))

    asyncio.run(run())
    print(f"{args.cycles} cycles × {args.rounds} rounds (a move's fan-out: a 6 KB state to 2 user groups of one "
          f"socket each, an empty public group, the lobby; both sockets' receives), {args.url}")
    reference = statistics.median(results["site"])
    print(f"{'variant':<22}{'CPU per cycle (median)':>24}{'range':>22}{'÷ site':>9}")
    for name, costs in results.items():
        median = statistics.median(costs)
        print(f"{name:<22}{median:>21.0f} µs{min(costs):>11.0f}–{max(costs):.0f} µs{median / reference:>8.2f}×")


if __name__ == "__main__":
    main()
