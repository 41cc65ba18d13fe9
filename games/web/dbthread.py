"""Which thread the live layer's database calls run on, for the sockets and the in-process referee alike, and
the closing of those threads' connections when the tests' database goes or the server stops."""

import threading
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import suppress

from asgiref.sync import SyncToAsync
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connection, connections

#: How long closing a pool's connections waits for the calls in flight (``DatabaseThreads.close``).
CLOSE_WAIT_SECONDS = 10.0


class DatabaseThreads:
    """A pool of threads that call the database, each keeping its connection open between calls (the settings'
    ``CONN_MAX_AGE``), which it closes on ``close``: Django's connections belong to the thread that opened
    them, so no other thread can close them, and a connection left to the process's end keeps PostgreSQL from
    dropping the tests' database ("being accessed by other users")."""

    def __init__(self, prefix: str, workers: int | None) -> None:
        self.prefix = prefix
        self.workers = workers  # None: as many as the event loop's own pool would have (min(32, CPUs + 4))
        self._pool: ThreadPoolExecutor | None = None
        self._threads: set[threading.Thread] = set()
        self._lock = threading.Lock()

    def _started(self) -> None:
        with self._lock:
            self._threads.add(threading.current_thread())

    def pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix=self.prefix,
                                                initializer=self._started)
            return self._pool

    def close(self) -> int:
        """Each thread closes its own connections and the pool stops; the next call starts a new one. One task
        per thread, held at a barrier until every thread has one, so that no thread takes two. Returns the
        threads whose connections were closed."""
        with self._lock:
            pool, self._pool = self._pool, None
            threads = len(self._threads)
            self._threads.clear()
        if pool is None:
            return 0
        closed: set[threading.Thread] = set()
        if threads:
            barrier = threading.Barrier(threads)

            def close_own() -> threading.Thread:
                # A call in flight may hold a thread past the wait: the others close theirs all the same.
                with suppress(threading.BrokenBarrierError):
                    barrier.wait(CLOSE_WAIT_SECONDS)
                connections.close_all()
                return threading.current_thread()

            tasks = [pool.submit(close_own) for _ in range(threads)]
            done, _ = wait(tasks, timeout=CLOSE_WAIT_SECONDS * 2)
            closed = {task.result() for task in done if task.exception() is None}
        pool.shutdown(wait=True)
        return len(closed)


#: The threads the moves' database calls run on side by side (``in_thread`` on PostgreSQL): the size of the
#: event loop's own pool, which they ran on before, but one whose connections can be closed.
_calls = DatabaseThreads("database-calls", None)


def in_thread(function):
    """Run a database function off the event loop. On PostgreSQL calls run side by side in a thread pool (rows
    are locked per table, so tables do not wait on each other); SQLite has a single writer anyway, and its
    in-memory test database must stay on one thread. ``GAMES_DB_PARALLEL = False`` keeps one thread."""
    parallel = settings.GAMES_DB_PARALLEL and connection.vendor == "postgresql"
    if not parallel:
        return database_sync_to_async(function, thread_sensitive=True)
    return database_sync_to_async(function, thread_sensitive=False, executor=_calls.pool())


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

_readers = DatabaseThreads("handshake-reads", READERS)


def readers() -> ThreadPoolExecutor:
    """The readers' own threads, apart from the pool the moves' database calls share (``in_thread``)."""
    return _readers.pool()


def reading(function):
    """Run a function that only reads off the event loop, where it need not wait behind the writes: a socket's
    handshake reads on threads of its own (``readers``) while the moves' database calls go to the pool
    ``in_thread`` uses (PostgreSQL) or to the one database thread (a SQLite file), so a burst of handshakes
    never queues behind the moves in flight, nor the moves behind it (``readers_apart``); elsewhere as
    ``in_thread``."""
    if not readers_apart():
        return database_sync_to_async(function, thread_sensitive=True)
    return database_sync_to_async(function, thread_sensitive=False, executor=readers())


def close_database_threads() -> int:
    """Close the connections of the threads the live layer's database calls run on, apart from the caller's:
    the moves' pool and the readers' (``DatabaseThreads.close``), and asgiref's one thread for the
    thread-sensitive calls made outside any sync thread (``in_thread`` on SQLite or with ``GAMES_DB_PARALLEL =
    False``, channels' session and user reads). Called when the tests' database goes (tests/conftest.py) and
    when the server's interpreter stops. Returns the threads whose connections were closed."""
    closed = _calls.close() + _readers.close()
    try:
        SyncToAsync.single_thread_executor.submit(connections.close_all).result(CLOSE_WAIT_SECONDS)
    except RuntimeError:
        return closed  # the interpreter is past joining the executors' threads: nothing runs there any more
    return closed + 1


# At the server's exit: before the interpreter's own join of the executors' threads (which then takes no
# more tasks), so that each thread closes its connection instead of dropping it with the process. The hook
# is the one concurrent.futures registers that join with; its callbacks run last registered first.
_register_atexit = getattr(threading, "_register_atexit", None)
if _register_atexit is not None:
    _register_atexit(close_database_threads)
