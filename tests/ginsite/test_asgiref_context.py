"""How a thread's asgiref state can be left broken for every test after one: the mechanism behind the CI's
"You cannot submit onto CurrentThreadExecutor from its own thread" (2026-12-06, with the Redis layer's levers
since reverted; which test stranded the coroutine there was not found). Guarded by tests/conftest.py's
``_no_current_thread_executor_left``."""

from __future__ import annotations

import asyncio
import gc
import time

import pytest
from asgiref.sync import AsyncToSync, async_to_sync, sync_to_async


def test_a_sync_call_stranded_when_async_to_syncs_loop_closes_leaves_its_executor_in_this_thread():
    async def stranded() -> None:
        await sync_to_async(time.sleep)(0.1)  # thread-sensitive: on this (the calling) thread's executor

    async def spawner() -> None:
        try:
            await asyncio.sleep(10)
        finally:  # runs while asyncio.run cancels the loop's tasks: a task made now is never cancelled
            asyncio.get_running_loop().create_task(stranded())

    async def outer() -> None:
        asyncio.get_running_loop().create_task(spawner())
        await asyncio.sleep(0.01)

    async def later() -> None:
        await sync_to_async(lambda: None)()

    assert getattr(AsyncToSync.executors, "current", None) is None
    async_to_sync(outer)()
    try:
        # The loop closed with the task waiting for its call's answer; collected here, its sync_to_async's
        # ``finally`` restores the context it was called in (this thread's executor) into this thread's context.
        gc.collect()
        left = getattr(AsyncToSync.executors, "current", None)
        assert left is not None and left._broken
        with pytest.raises(RuntimeError, match="cannot submit onto CurrentThreadExecutor from its own thread"):
            asyncio.run(later())
    finally:
        AsyncToSync.executors.current = None
    asyncio.run(later())
