"""Meld previews (a meld builder's question "what do these cards make?", Rommé's) answered in a worker
**process** of their own, started at the first preview: off the event loop, off the database thread the
moves use, and off the serving process's GIL. In a thread of daphne's own process a flood of previews held
the GIL against the event loop (Python hands it over every 5 ms): a seated player's ping went from 0.2 ms
to 5 ms under ten flooding sockets (tests/games/test_live_meld_flood.py). One process, so previews queue
behind each other (the socket bounds the wait); a worker that died is replaced at the next preview. The
worker runs the game's preview alone (its entry's ``meld_preview``: a function of the engine, standard library
only, so the worker imports no Django)."""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from games import registry
from games.reads import selectors

_pool: ProcessPoolExecutor | None = None


def _worker() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        # spawn, not fork: the serving process has threads (the database's, the layer's) a fork would copy.
        _pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    return _pool


async def meld_preview(*, game: str, cards: list[str]) -> dict:
    """``selectors.meld_preview(game=game, cards=cards)``, its search in the worker process."""
    global _pool
    answer = registry.get(game).meld_preview_unsearched(cards)
    if answer is not None:
        return answer
    preview = selectors.meld_previewer(game)
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(_worker(), preview, cards)
    except BrokenProcessPool:
        _pool = None
        return await loop.run_in_executor(_worker(), preview, cards)
