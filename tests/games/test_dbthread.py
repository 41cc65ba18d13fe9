"""Which thread a live database call runs on (``games.web.dbthread``): a handshake's reads do not wait behind
the moves where the database lets readers read beside the writer."""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace

import pytest

from games.web import dbthread


def _connection(vendor: str, in_memory: bool = False):
    return SimpleNamespace(vendor=vendor, is_in_memory_db=lambda: in_memory)


@pytest.mark.parametrize(("vendor", "in_memory", "readers", "apart"), [
    ("postgresql", False, 1, True),
    ("sqlite", False, 1, True),    # a SQLite file in WAL mode (make run)
    ("sqlite", True, 1, False),    # the tests' in-memory database lives on one connection
    ("sqlite", False, 0, False),   # GAMES_DB_READERS = 0: the reads share the moves' thread
    ("postgresql", False, 0, False),
])
def test_reads_run_beside_the_writes_only_where_the_database_allows(settings, monkeypatch, vendor, in_memory,
                                                                     readers, apart):
    settings.GAMES_DB_READERS = readers
    monkeypatch.setattr(dbthread, "connection", _connection(vendor, in_memory))
    assert dbthread.readers_apart() is apart


@pytest.mark.parametrize(("vendor", "parallel", "pool"), [
    ("postgresql", False, False),  # the default: the moves on one thread, as the bare stack's
    ("postgresql", True, True),
    ("sqlite", True, False),       # SQLite has one writer whatever GAMES_DB_PARALLEL says
])
def test_the_moves_share_one_database_thread_unless_a_pool_is_asked_for_on_postgresql(settings, monkeypatch, vendor,
                                                                                      parallel, pool):
    settings.GAMES_DB_PARALLEL = parallel
    monkeypatch.setattr(dbthread, "connection", _connection(vendor))
    assert dbthread.parallel() is pool
    assert dbthread.in_thread(lambda: None)._thread_sensitive is not pool


@pytest.mark.django_db  # the readers' own threads keep what a test before opened there: it may be checked
def test_a_read_is_answered_while_the_database_thread_is_busy_with_a_write(settings, monkeypatch):
    settings.GAMES_DB_READERS = 1
    monkeypatch.setattr(dbthread, "connection", _connection("sqlite"))
    release = threading.Event()

    def long_write():
        release.wait(10)
        return "written"

    def read():
        return "read"

    async def run():
        write = asyncio.ensure_future(dbthread.in_thread(long_write)())
        await asyncio.sleep(0.05)  # the one database thread (SQLite's writer) is now taken
        try:
            # Would wait for the write (10 s) if it were queued behind it on the same thread.
            answer = await asyncio.wait_for(dbthread.reading(read)(), timeout=5)
            still_writing = not write.done()
        finally:
            release.set()
        return answer, still_writing, await write

    assert asyncio.run(run()) == ("read", True, "written")
