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


@pytest.mark.parametrize(("vendor", "in_memory", "parallel", "apart"), [
    ("postgresql", False, True, True),
    ("sqlite", False, True, True),    # a SQLite file in WAL mode (make run)
    ("sqlite", True, True, False),    # the tests' in-memory database lives on one connection
    ("sqlite", False, False, False),  # GAMES_DB_PARALLEL = False: one thread for everything
    ("postgresql", False, False, False),
])
def test_reads_run_beside_the_writes_only_where_the_database_allows(settings, monkeypatch, vendor, in_memory,
                                                                     parallel, apart):
    settings.GAMES_DB_PARALLEL = parallel
    monkeypatch.setattr(dbthread, "connection", _connection(vendor, in_memory))
    assert dbthread.readers_apart() is apart


@pytest.mark.django_db  # the readers' own threads keep what a test before opened there: it may be checked
def test_a_read_is_answered_while_the_database_thread_is_busy_with_a_write(settings, monkeypatch):
    settings.GAMES_DB_PARALLEL = True
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
