"""Which thread the live layer's database calls run on, for the sockets and the in-process referee alike.

Two lanes per process: the moves' (and every other write's) database calls on one thread, as the bare stack
has them (``in_thread``), and the handshakes' reads on a thread of their own beside it (``reading``), where the
database lets readers read while the writer writes. On PostgreSQL the moves may instead share a pool of threads
(``GAMES_DB_PARALLEL``); measured on two cores, that pool made every thread of the process, the event loop's
included, wait for the interpreter's lock behind the others: the scaled evening's connect p50 and p99 were
about twice the two lanes' (docs/scale.md, "Two lanes")."""

import threading
from concurrent.futures import ThreadPoolExecutor

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connection


def parallel() -> bool:
    """Whether ``in_thread``'s calls run side by side in a thread pool (PostgreSQL with ``GAMES_DB_PARALLEL``:
    rows are locked per table, so tables do not wait on each other), not all on the one database thread (the
    default; SQLite has a single writer anyway, and its in-memory test database must stay on one thread)."""
    return bool(settings.GAMES_DB_PARALLEL) and connection.vendor == "postgresql"


def in_thread(function):
    """Run a database function off the event loop, on the pool or the one thread ``parallel`` says."""
    return database_sync_to_async(function, thread_sensitive=not parallel())


def readers_apart() -> bool:
    """Whether reads may run beside the writes, on threads of their own (``GAMES_DB_READERS`` of them, not 0):
    on PostgreSQL, and on a SQLite file (its write-ahead log lets readers read while the writer writes). Not on
    an in-memory SQLite database (the tests'), which exists on its one connection only."""
    if readers_count() < 1:
        return False
    if connection.vendor == "postgresql":
        return True
    return connection.vendor == "sqlite" and not connection.is_in_memory_db()  # type: ignore[attr-defined]


def readers_count() -> int:
    """``GAMES_DB_READERS``: the readers' threads, and so how many handshake batches may be in the database at
    once (games.web.handshakes)."""
    return max(0, int(settings.GAMES_DB_READERS))


def reader_threads() -> int:
    """How many threads the handshakes' reads run on: ``readers_count`` where they are apart, else the one
    database thread they share with the moves."""
    return readers_count() if readers_apart() else 1


_readers: ThreadPoolExecutor | None = None
_readers_lock = threading.Lock()


def readers() -> ThreadPoolExecutor:
    """The readers' own threads, apart from the thread (or pool) the moves' database calls use (``in_thread``)."""
    global _readers
    with _readers_lock:
        if _readers is None:
            _readers = ThreadPoolExecutor(max_workers=max(1, readers_count()), thread_name_prefix="handshake-reads")
        return _readers


def reading(function):
    """Run a function that only reads off the event loop, where it need not wait behind the writes: a socket's
    handshake reads on threads of their own (``readers``) while the moves' database calls go to the one
    database thread (or ``in_thread``'s pool), so a burst of handshakes never queues behind the moves in
    flight, nor the moves behind it (``readers_apart``); elsewhere as ``in_thread``."""
    if not readers_apart():
        return database_sync_to_async(function, thread_sensitive=True)
    return database_sync_to_async(function, thread_sensitive=False, executor=readers())
