"""What a serving process readies before its first socket needs it.

After a start (a deployment, a restart after a crash) the first sockets come in a burst, and without this
the first handshake batch of each process paid for everything that is made on first use: the reader thread's
database connection (through PgBouncer, its authentication), every prepared read's SQL (``games.reads.prepared``),
the session cache's connection, the channel layer's connections to each Redis server. Measured on the scaled
evening (`python -m loadtest --profile evening --stack scaled --stages`): the first handshakes of a process
took 115-130 ms in their batch's read against a p50 of ~20 ms, and were half of the ten slowest of 1,000
(docs/scale.md, "The first handshakes of a process").

``warm()`` runs once per daphne process when its event loop starts (``ginsite.asgi``): on the handshake
readers' threads (``dbthread.reading``) the batch's statements for no table, on the moves' thread
(``dbthread.in_thread``) its connection and every prepared read compiled, on the loop a few connections
to each of the channel layer's Redis servers. A failure is logged and changes nothing else: the process
serves as it would have without it."""

from __future__ import annotations

import asyncio
import logging
import time

from channels.layers import get_channel_layer

from games.reads import prepared
from games.web import handshake_process, handshakes
from games.web.dbthread import in_thread, reader_threads, reading

logger = logging.getLogger(__name__)

#: Connections opened to each of the channel layer's Redis servers: a burst of handshakes joins groups
#: side by side, each join on a connection of its own.
LAYER_CONNECTIONS = 4


def _moves_thread() -> int:
    """On the moves' database thread: its connection and every prepared read compiled."""
    from django.db import connection

    connection.ensure_connection()
    return prepared.compile_all()


async def _layer(layer) -> int:
    """Open ``LAYER_CONNECTIONS`` connections to each Redis server of a channels-redis layer, on this loop
    (its pools are per event loop); returns how many servers. Other layers have nothing to open."""
    size = getattr(layer, "ring_size", 0)
    if not size or not hasattr(layer, "connection"):
        return 0
    for index in range(size):
        client = layer.connection(index)
        await asyncio.gather(*(client.ping() for _ in range(LAYER_CONNECTIONS)))
    return size


async def warm(layer=None) -> dict:
    """Ready this process's database threads and channel layer (see the module); returns what was done."""
    started = time.perf_counter()
    done: dict = {}
    helper = None
    try:
        # The handshakes' helper process, where there is one, starts first: it takes a second or two.
        helper = handshake_process.start(handshakes.warm_helper)
        done["compiled"] = await in_thread(_moves_thread)()
        # One call per reader thread: submitted together, each lands on a thread of its own.
        readers = reader_threads()
        await asyncio.gather(*(reading(handshakes.warm_reads)() for _ in range(readers)))
        done["readers"] = readers
        done["redis"] = await _layer(layer if layer is not None else get_channel_layer())
        if helper is not None:
            await asyncio.wrap_future(helper)
            done["helper"] = True
    except Exception:  # noqa: BLE001 - a process that could not warm up serves as it would have without it
        logger.exception("warming up failed; the first sockets will pay for what is made on first use")
        done["failed"] = True
    done["seconds"] = time.perf_counter() - started
    logger.info("warmed up in %.0f ms: %s prepared reads, %s reader threads, %s Redis servers, handshake helper "
                "process %s", done["seconds"] * 1000, done.get("compiled"), done.get("readers"), done.get("redis"),
                "ready" if done.get("helper") else "none")
    return done


def start() -> asyncio.Task:
    """Start ``warm()`` on the running event loop (daphne's, once it runs)."""
    return asyncio.get_event_loop().create_task(warm())
