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
