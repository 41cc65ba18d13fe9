"""Meld previews (the Rommé meld builder's question "what do these cards make?") answered in a worker
**process** of their own, started at the first preview: off the event loop, off the database thread the
moves use, and off the serving process's GIL. In a thread of daphne's own process a flood of previews held
the GIL against the event loop (Python hands it over every 5 ms): a seated player's ping went from 0.2 ms
to 5 ms under ten flooding sockets (tests/games/test_live_meld_flood.py). One process, so previews queue
behind each other (the socket bounds the wait); a worker that died is replaced at the next preview. The
worker runs the engine's solver alone (standard library only: it imports no Django)."""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from games.engine.romme import hints as romme_hints
from games.reads import selectors

_pool: ProcessPoolExecutor | None = None


def _worker() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        # spawn, not fork: the serving process has threads (the database's, the layer's) a fork would copy.
        _pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    return _pool


async def meld_preview(cards: list[str]) -> dict:
    """``selectors.meld_preview(cards=cards)``, its search in the worker process."""
    global _pool
    answer = selectors.meld_preview_unsearched(cards=cards)
    if answer is not None:
        return answer
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(_worker(), romme_hints.meld_preview, cards)
    except BrokenProcessPool:
        _pool = None
        return await loop.run_in_executor(_worker(), romme_hints.meld_preview, cards)
