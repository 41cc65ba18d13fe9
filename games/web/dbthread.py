"""Which thread the live layer's database calls run on, for the sockets and the in-process referee alike."""

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connection


def in_thread(function):
    """Run a database function off the event loop. On PostgreSQL calls run side by side in a thread pool (rows
    are locked per table, so tables do not wait on each other); SQLite has a single writer anyway, and its
    in-memory test database must stay on one thread. ``GAMES_DB_PARALLEL = False`` keeps one thread."""
    parallel = settings.GAMES_DB_PARALLEL and connection.vendor == "postgresql"
    return database_sync_to_async(function, thread_sensitive=not parallel)


def readers_apart() -> bool:
    """Whether reads may run beside the writes: on PostgreSQL, and on a SQLite file (its write-ahead log lets
    readers read while the writer writes), unless ``GAMES_DB_PARALLEL = False``. Not on an in-memory SQLite
    database (the tests'), which exists on its one connection only."""
    if not settings.GAMES_DB_PARALLEL:
        return False
    if connection.vendor == "postgresql":
        return True
    return connection.vendor == "sqlite" and not connection.is_in_memory_db()  # type: ignore[attr-defined]


def reading(function):
    """Run a function that only reads off the event loop, where it need not wait behind the writes: a socket's
    handshake on the embedded stack reads from a thread of the pool while the one database thread applies
    moves (``readers_apart``); elsewhere as ``in_thread``."""
    return database_sync_to_async(function, thread_sensitive=not readers_apart())
