"""What a frame's trip through the Redis channel layer costs the serving process and Redis (issue 24), CPU only.

One process plays two daphne processes' parts on one event loop: layer A fans a ~6 KB state frame out to a group
of two sockets of layer B (the look-up and the delivery), B receives both, then A sends one socket a small
message and B receives it: the Redis work of a move's frames, in the order a move makes it. Each cycle runs in
every configuration in the same run, interleaved (``--rounds``), on the same Redis server:

- the layer: channels-redis's own ``RedisChannelLayer`` (what the load test's bare stack runs) or the site's
  ``ginsite.layers.RedisChannelLayer`` (scripts by SHA, commands written without a Task each, the fan-out in
  two round trips, the receive's batch script);
- redis-py's reply parser: its pure-Python one or hiredis (when installed: ``requirements.txt`` pins it);
- the transport: loopback TCP or the server's Unix socket (``deploy/services.sh`` gives each Redis one; skipped
  when the socket does not answer).

It prints, per configuration, the median over the rounds of the client's CPU per cycle (``time.process_time``)
and Redis's (``INFO cpu``, the server's whole CPU: run it on an otherwise idle Redis), and each one's ratio to
channels-redis with the Python parser over TCP.

    .venv/bin/python -m bench.redis_layer [--tcp redis://127.0.0.1:6379] [--unix /run/redis-ginsite/redis-6379.sock]
                                          [--db 9] [--cycles 1000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")

import django  # noqa: E402

django.setup()

import redis.asyncio  # noqa: E402
import redis.utils  # noqa: E402
from channels_redis.core import RedisChannelLayer as StockLayer  # noqa: E402
from redis._parsers import _AsyncHiredisParser, _AsyncRESP2Parser  # noqa: E402

from ginsite.layers import RedisChannelLayer as SiteLayer  # noqa: E402

FRAME = {"type": "table.frame", "audience": "user", "text": "x" * 6000, "version": 1, "seated": (1, 2)}


def _answers(path: str) -> bool:
    if not path or not os.path.exists(path):
        return False
    with socket.socket(socket.AF_UNIX) as probe:
        probe.settimeout(1)
        return probe.connect_ex(path) == 0


async def _redis_cpu(url: str) -> float:
    client = redis.asyncio.Redis.from_url(url)
    try:
        info = await client.info("cpu")
    finally:
        await client.aclose()
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


async def _cycle_cost(layer_class, url: str, parser, cycles: int) -> tuple[float, float]:
    host = {"address": url, "max_connections": 1000, "parser_class": parser}
    config = {"hosts": [host], "prefix": "bench-redis-layer", "capacity": 1500, "expiry": 30}
    sender, receiver = layer_class(**config), layer_class(**config)
    sockets = [await receiver.new_channel() for _ in range(2)]
    for channel in sockets:
        await sender.group_add("table-1", channel)
    fan_out = (getattr(sender, "group_send_many", None)
               or (lambda messages: asyncio.gather(*(sender.group_send(g, m) for g, m in messages))))

    async def cycle() -> None:
        await fan_out([("table-1", FRAME)])
        await asyncio.gather(*(receiver.receive(channel) for channel in sockets))
        await sender.send(sockets[0], {"type": "table.presence", "n": 1})
        await receiver.receive(sockets[0])

    try:
        for _ in range(max(20, cycles // 10)):  # connections made, scripts cached
            await cycle()
        redis_before, started = await _redis_cpu(url), time.process_time()
        for _ in range(cycles):
            await cycle()
        client = time.process_time() - started
        server = await _redis_cpu(url) - redis_before
    finally:
        await sender.flush()
        await receiver.flush()
    return 1e6 * client / cycles, 1e6 * server / cycles


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tcp", default="redis://127.0.0.1:6379", help="the Redis server over TCP")
    parser.add_argument("--unix", default="/run/redis-ginsite/redis-6379.sock",
                        help="the same server's Unix socket ('' : TCP only)")
    parser.add_argument("--db", type=int, default=9, help="the Redis database the cycles use (emptied after)")
    parser.add_argument("--cycles", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    transports = {"tcp": f"{args.tcp.rstrip('/')}/{args.db}"}
    if _answers(args.unix):
        transports["unix"] = f"unix://{args.unix}?db={args.db}"
    parsers = {"python": _AsyncRESP2Parser}
    if redis.utils.HIREDIS_AVAILABLE:
        parsers["hiredis"] = _AsyncHiredisParser
    layers = {"channels-redis": StockLayer, "site": SiteLayer}
    configs = [(layer, parse, transport) for layer in layers for parse in parsers for transport in transports]
    results: dict[tuple, list[tuple[float, float]]] = {config: [] for config in configs}

    async def run() -> None:
        for _ in range(args.rounds):
            for layer, parse, transport in configs:
                results[(layer, parse, transport)].append(
                    await _cycle_cost(layers[layer], transports[transport], parsers[parse], args.cycles))

    asyncio.run(run())
    print(f"{args.cycles} cycles × {args.rounds} rounds (a 6 KB frame fanned out to 2 sockets and received, a "
          f"small send and its receive); {'Unix socket ' + args.unix if 'unix' in transports else 'no Unix socket'}; "
          f"hiredis {'installed' if 'hiredis' in parsers else 'not installed'}")
    reference = configs[0]
    ref_client = statistics.median(c for c, _ in results[reference])
    ref_server = statistics.median(s for _, s in results[reference])
    print(f"{'layer':<16}{'parser':<9}{'transport':<11}{'client CPU/cycle':>18}{'ratio':>8}{'Redis CPU/cycle':>18}{'ratio':>8}")
    for config in configs:
        client = statistics.median(c for c, _ in results[config])
        server = statistics.median(s for _, s in results[config])
        print(f"{config[0]:<16}{config[1]:<9}{config[2]:<11}{client:>15.0f} µs{client / ref_client:>7.2f}×"
              f"{server:>15.0f} µs{server / ref_server:>7.2f}×")


if __name__ == "__main__":
    main()
