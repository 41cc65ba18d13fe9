"""Requests made in one turn of an event loop, sent together.

A burst of sockets (a tournament's start: 500 per daphne) each asked Redis for something in its handshake, one
round trip each, through a pool of a few connections: hundreds of round trips in a row, each answer a turn of
a busy loop of its own. :class:`Together` collects the requests made in one turn of the loop and hands them,
in the loop's next turn, to one coroutine that sends them all (``ginsite.layers.RedisChannelLayer.regroup``:
a pipeline per shard; ``ginsite.cache.KeptRedisCacheClient.get_together``: one ``MGET``); each request waits
for its own answer.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")

#: What a ``Together`` is given: every request of one turn of the loop, each with the future its caller awaits.
Requests = list[tuple[T, asyncio.Future]]


class Together(Generic[T]):
    """``await together.ask(request)``: the request goes to ``send`` with every other request asked for in the
    same turn of the running loop; ``send`` resolves (or fails) each request's future. A future cancelled
    meanwhile (its caller's task was) is left as it is; whatever ``send`` left unresolved when it returns or
    raises is failed with its error (or a RuntimeError), so no caller waits for ever."""

    def __init__(self, send: Callable[[Requests[T]], Awaitable[None]]):
        self._send = send
        #: Per event loop: the requests of this turn of the loop (an asyncio object belongs to one loop).
        self._pending: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Requests[T]] = (
            weakref.WeakKeyDictionary())
        #: The sends under way: the loop keeps only a weak reference to a task (asyncio's documentation asks
        #: whoever starts one to keep it until it is done).
        self._running: set[asyncio.Task] = set()

    @property
    def sending(self) -> int:
        """How many sends are under way (each one turn's requests)."""
        return len(self._running)

    async def ask(self, request: T) -> Any:
        loop = asyncio.get_running_loop()
        pending = self._pending.get(loop)
        if pending is None:
            # The task's first step runs in the loop's next turn: whatever this turn asks for goes with it.
            pending = self._pending[loop] = []
            task = loop.create_task(self._run(loop))
            self._running.add(task)
            task.add_done_callback(self._running.discard)
        future = loop.create_future()
        pending.append((request, future))
        return await future

    async def _run(self, loop: asyncio.AbstractEventLoop) -> None:
        requests = self._pending.pop(loop, [])
        error: BaseException | None = None
        try:
            await self._send(requests)
        except Exception as failed:  # noqa: BLE001 - every request of the turn hears of it
            error = failed
        for _, future in requests:
            if not future.done():
                future.set_exception(error if error is not None else RuntimeError("no answer was sent"))
