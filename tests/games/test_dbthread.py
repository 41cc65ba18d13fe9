"""Which thread a live database call runs on (``games.web.dbthread``): a handshake's reads do not wait behind
the moves where the database lets readers read beside the writer."""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace

import pytest
from django.db import connections

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


def _own_connection():
    """The calling thread's connection to the database, opened (Django keeps one per thread)."""
    wrapper = connections["default"]
    wrapper.ensure_connection()
    return wrapper


@pytest.fixture
def closes(monkeypatch):
    """Every close of a connection: (the connection, the thread that closed it). The tests' in-memory SQLite
    database ignores a close (it would be gone); on PostgreSQL the connection is then closed indeed."""
    seen = []
    wrapper_class = type(connections["default"])
    close = wrapper_class.close

    def recorded(self):
        seen.append((self, threading.current_thread()))
        close(self)

    monkeypatch.setattr(wrapper_class, "close", recorded)
    return seen


def assert_closed_on_its_thread(wrapper, thread, closes):
    assert (wrapper, thread) in closes
    if wrapper.vendor == "postgresql":
        assert wrapper.connection is None


@pytest.mark.django_db(transaction=True)
def test_closing_a_pool_closes_each_of_its_threads_own_connection(closes):
    threads = dbthread.DatabaseThreads("test-database-calls", 3)
    pool = threads.pool()
    barrier = threading.Barrier(3)

    def opened():
        barrier.wait(5)  # three calls at once: one on each thread
        return _own_connection(), threading.current_thread()

    opened_by = [task.result(10) for task in [pool.submit(opened) for _ in range(3)]]
    assert len({thread for _, thread in opened_by}) == 3
    assert all(wrapper.connection is not None for wrapper, _ in opened_by)
    assert threads.close() == 3
    for wrapper, thread in opened_by:
        assert_closed_on_its_thread(wrapper, thread, closes)
    assert threads.close() == 0  # nothing left; a new call starts a new pool
    assert threads.pool() is not pool
    threads.close()


@pytest.mark.django_db(transaction=True)
def test_the_live_layers_database_threads_close_their_connections_when_the_tests_or_the_server_stop(
        settings, monkeypatch, closes):
    """The moves' pool and the readers' threads keep their connections between calls (PostgreSQL would not drop
    the tests' database while they are open): ``close_database_threads`` closes each on its own thread."""
    settings.GAMES_DB_PARALLEL = True
    monkeypatch.setattr(dbthread, "connection", _connection("postgresql"))

    def opened():
        return _own_connection(), threading.current_thread()

    async def run():
        return await dbthread.in_thread(opened)(), await dbthread.reading(opened)()

    move, read = asyncio.run(run())
    assert move[1].name.startswith("database-calls") and read[1].name.startswith("handshake-reads")
    assert move[0].connection is not None and read[0].connection is not None
    assert dbthread.close_database_threads() >= 2
    assert_closed_on_its_thread(*move, closes)
    assert_closed_on_its_thread(*read, closes)
