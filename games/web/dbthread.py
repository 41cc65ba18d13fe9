"""Which thread the live layer's database calls run on, for the sockets and the in-process referee alike."""

import threading
from concurrent.futures import ThreadPoolExecutor

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connection


def parallel() -> bool:
    """Whether ``in_thread``'s calls run side by side in a thread pool (PostgreSQL: rows are locked per table,
    so tables do not wait on each other), not all on one database thread (SQLite has a single writer anyway,
    and its in-memory test database must stay on one thread; ``GAMES_DB_PARALLEL = False`` keeps one too)."""
    return bool(settings.GAMES_DB_PARALLEL) and connection.vendor == "postgresql"


def in_thread(function):
    """Run a database function off the event loop, on the pool or the one thread ``parallel`` says."""
    return database_sync_to_async(function, thread_sensitive=not parallel())


def readers_apart() -> bool:
    """Whether reads may run beside the writes: on PostgreSQL, and on a SQLite file (its write-ahead log lets
    readers read while the writer writes), unless ``GAMES_DB_PARALLEL = False``. Not on an in-memory SQLite
    database (the tests'), which exists on its one connection only."""
    if not settings.GAMES_DB_PARALLEL:
        return False
    if connection.vendor == "postgresql":
        return True
    return connection.vendor == "sqlite" and not connection.is_in_memory_db()  # type: ignore[attr-defined]


#: Threads of the readers' own pool (``reading``): as many as handshake batches may be in the database at once
#: (games.web.handshakes._parallel).
READERS = 4

_readers: ThreadPoolExecutor | None = None
_readers_lock = threading.Lock()


def readers() -> ThreadPoolExecutor:
    """The readers' own threads, apart from the pool the moves' database calls share (``in_thread``)."""
    global _readers
    with _readers_lock:
        if _readers is None:
            _readers = ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="handshake-reads")
        return _readers


def reading(function):
    """Run a function that only reads off the event loop, where it need not wait behind the writes: a socket's
    handshake reads on threads of its own (``readers``) while the moves' database calls go to the pool
    ``in_thread`` uses (PostgreSQL) or to the one database thread (a SQLite file), so a burst of handshakes
    never queues behind the moves in flight, nor the moves behind it (``readers_apart``); elsewhere as
    ``in_thread``."""
    if not readers_apart():
        return database_sync_to_async(function, thread_sensitive=True)
    return database_sync_to_async(function, thread_sensitive=False, executor=readers())
