"""Computer players that search think in a worker **process**, off the event loop and off the referee's pass.

A referee pass that finds a searching bot to move starts its search here (:meth:`Thinker.start`) and goes on
with the other tables; a later pass, once the answer is in (:meth:`Thinker.answer`), applies it through the
same service, if the table is still at the version the search saw. So a table of bots that think never holds
up another table's move, a timeout, or a socket. Like the meld previews (``games.reads.previews``) the
worker is spawned, not forked (the serving process has threads), and a worker that died is replaced.

This module imports nothing of Django and nothing of the site but the engine: the spawned worker imports it
to run :func:`think`.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import multiprocessing
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from concurrent.futures.process import BrokenProcessPool
from typing import Any

logger = logging.getLogger(__name__)

#: Searches kept at most, answered or not, before the answered ones nobody collected are dropped.
MAX_JOBS = 1000
#: What :meth:`Thinker.answer` returns for a search that failed: the referee plays the timeout move instead.
FAILED = {"failed": True}
#: The wall-clock budget of a hint (the ``Tipp`` button: the expert's search for the player's own seat).
HINT_SECONDS = 0.3
#: The level whose search answers a hint.
HINT_LEVEL = "expert"


def think(bots: str, view: dict[str, Any], level: str, seed: int, seconds: float) -> dict[str, Any]:
    """In the worker: the bot's action (module ``bots``, ``choose_action``), its search ended at ``seconds``
    of wall-clock time at the latest."""
    deadline = time.monotonic() + seconds
    module = importlib.import_module(bots)
    return module.choose_action(view, level, random.Random(seed), stop=lambda: time.monotonic() >= deadline)


#: Searches a worker process makes before a fresh one takes over. The meld solver memoises every hand it
#: meets (up to 2,000,000, games.engine.gin.melds); gin's expert adds about 850 a decision, 0.2 MB (measured:
#: 1,385 decisions, 269 MB), so a worker that lived on would hold some 400 MB; 200 searches keep it near 80 MB,
#: at the cost of one spawn (a few tenths of a second) every 200 decisions.
TASKS_PER_WORKER = 200


def _process_pool() -> Executor:
    # spawn, not fork: the serving process has threads (the database's, the layer's) a fork would copy.
    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                               max_tasks_per_child=TASKS_PER_WORKER)


class Thinker:
    """The searches of one referee: at most one per table, keyed by the table's version it was started at.

    ``seconds``: each search's wall-clock budget. ``executor``: how to make the pool (default: one spawned
    worker process; a test may pass a thread pool)."""

    def __init__(self, seconds: float, executor: Callable[[], Executor] = _process_pool) -> None:
        self.seconds = seconds
        self._make = executor
        self._pool: Executor | None = None
        self._jobs: dict[int, tuple[int, Future]] = {}
        self._lock = threading.Lock()

    def thinking(self, table_id: int) -> bool:
        """Whether a search for this table is still running (the pass skips the table meanwhile)."""
        with self._lock:
            job = self._jobs.get(table_id)
        return job is not None and not job[1].done()

    def answer(self, table_id: int, version: int) -> dict[str, Any] | None:
        """The finished search's action for the table at ``version`` (taken out: each answer is used once),
        :data:`FAILED` if the search raised, or None: no answer (none started, still running, or started at
        another version, which is dropped)."""
        with self._lock:
            job = self._jobs.get(table_id)
            if job is None or not job[1].done():
                return None
            del self._jobs[table_id]
        started, future = job
        if started != version:
            return None
        try:
            return future.result()
        except BrokenProcessPool:
            logger.error("the bots' worker process died; a new one takes the next search")
            with self._lock:
                self._pool = None
            return None
        except Exception:
            logger.exception("a bot's search at table %s failed", table_id)
            return FAILED

    def start(self, table_id: int, version: int, *, bots: str, view: dict[str, Any], level: str, seed: int) -> None:
        """Start the search of the bot to act at the table (at ``version``) in the worker."""
        with self._lock:
            if self._pool is None:
                self._pool = self._make()
            if len(self._jobs) >= MAX_JOBS:
                # Answers nobody came back for (the table's match ended meanwhile): let them go.
                self._jobs = {key: job for key, job in self._jobs.items() if not job[1].done()}
            self._jobs[table_id] = (version, self._pool.submit(think, bots, view, level, seed, self.seconds))

    def hint(self, *, bots: str, view: dict[str, Any], seed: int) -> Future:
        """Start a hint for the seat whose view this is: the ``HINT_LEVEL`` bot's action, its search bounded by
        ``HINT_SECONDS``, in the same worker as the bots' searches (never on the caller's thread). Not kept
        per table: the caller awaits the future (``asyncio.wrap_future``) and drops it when it gives up."""
        with self._lock:
            if self._pool is None:
                self._pool = self._make()
            return self._pool.submit(think, bots, view, HINT_LEVEL, seed, HINT_SECONDS)

    def _pending(self) -> list[Future]:
        with self._lock:
            return [future for _, future in self._jobs.values() if not future.done()]

    def wait(self, timeout: float) -> None:
        """Block until a search finishes, or ``timeout`` seconds (a referee loop's sleep between passes)."""
        pending = self._pending()
        if pending:
            wait_futures(pending, timeout=timeout, return_when=FIRST_COMPLETED)
        else:
            time.sleep(timeout)

    async def wait_async(self, timeout: float) -> None:
        """:meth:`wait` for an event loop: sleeps without blocking it."""
        pending = [asyncio.wrap_future(future) for future in self._pending()]
        if pending:
            await asyncio.wait(pending, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        else:
            await asyncio.sleep(timeout)

    def shutdown(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
            self._jobs.clear()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
