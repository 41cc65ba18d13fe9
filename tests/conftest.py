"""Settings shared by the whole suite."""

import os

import pytest
from django.test.utils import override_settings
from hypothesis import HealthCheck, settings

from tests.factories import PLAYERS, UserFactory, users
from tests.play import bots_without_slips

# Property tests: enough examples to find rule bugs, bounded so `make test` stays quick on 2 cores.
settings.register_profile(
    "default",
    max_examples=int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("default")


@pytest.fixture(scope="session", autouse=True)
def _fast_password_hashing():
    """The real hasher costs about half a second per hash on these machines; its strength is not under test.
    For the whole run (a test's ``settings`` may still change it); yields the real hashers, for the tests
    whose server is another process with the real settings (tests/browser)."""
    from django.conf import settings as django_settings

    real = list(django_settings.PASSWORD_HASHERS)
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield real


@pytest.fixture(autouse=True)
def _site_language():
    """Each test starts in the site's language (German): a request in English leaves English active on the
    thread (Django's LocaleMiddleware never deactivates), and a later test that renders without a request
    would then speak English or German depending on which tests its worker ran before."""
    from django.utils import translation

    translation.deactivate()
    yield


@pytest.fixture(autouse=True)
def _no_analysis_on_the_clock(settings):
    """The referee's clock hands finished matches to the analysis's worker process: not in tests that merely
    tick the clock (a test of the analysis turns it on)."""
    settings.GAMES_ANALYSIS_SECONDS = 0


@pytest.fixture(autouse=True)
def _no_handshake_helper(settings):
    """A serving process's warm-up spawns the handshakes' helper process where the site is one process on a
    database file (games.web.handshake_process): not in tests that merely warm up (the test database may be a
    file, and a helper would not see a test's rows that are not committed). Tests of the helper set it up
    themselves; whatever one left is stopped."""
    from games.web import handshake_process

    settings.GAMES_HANDSHAKE_PROCESS = "0"
    yield
    handshake_process.stop()


@pytest.fixture(autouse=True)
def _bots_without_slips(request, monkeypatch):
    """Below the expert the bots slip by design (a random loose card instead of their heuristic's discard,
    each game's ``bots.SLIPS``), drawing from the caller's generator. The site's tests play their people and
    bots by the heuristics alone, so that a test's course never depends on what its worker ran before; the
    engine's tests (tests/engine) keep the slips, where they are measured and tested."""
    if "engine" not in request.node.path.relative_to(request.config.rootpath).parts[:2]:
        bots_without_slips(monkeypatch)
    yield


@pytest.fixture
def players(db):
    """Four signed-up players: anna, ben, cleo, dora."""
    return users(*PLAYERS)


@pytest.fixture
def staff(db):
    """The tournament staff: leitung."""
    return UserFactory(username="leitung", is_staff=True)


@pytest.fixture(autouse=True)
def _no_current_thread_executor_left():
    """A test must not leave asgiref's CurrentThreadExecutor of this thread in its context: every later
    thread-sensitive ``sync_to_async`` on a loop of this thread would fail with "You cannot submit onto
    CurrentThreadExecutor from its own thread" (CI, 2026-12-06: 110 tests of one worker). One way in: a
    coroutine stranded in ``sync_to_async`` when an ``async_to_sync`` loop closed, collected later on this thread
    (tests/ginsite/test_asgiref_context.py). The test during which it appeared fails here, naming it, and the
    executor is dropped so the tests after it show their own results."""
    yield
    from asgiref.sync import AsyncToSync

    left = getattr(AsyncToSync.executors, "current", None)
    if left is not None:
        AsyncToSync.executors.current = None
        pytest.fail(f"this thread's context holds a CurrentThreadExecutor (its thread: {left._work_thread.name}, "
                    f"broken: {left._broken}) after the test")


@pytest.fixture(autouse=True)
def _close_worker_thread_connections():
    """The sockets' database calls run on asgiref's worker thread, which keeps its connection open between
    calls (persistent connections, CONN_MAX_AGE). Close it after each test, so that a test starts with a
    fresh one and PostgreSQL can drop the test database at the end."""
    yield
    from asgiref.sync import SyncToAsync
    from django.db import connections

    SyncToAsync.single_thread_executor.submit(connections.close_all).result(timeout=30)


#: Folders whose tests start servers or a browser and compare times within one run: they run on their own,
#: after the rest (`make test` runs the rest on two workers, then these one at a time).
SERIAL_FOLDERS = ("browser", "live", "scale", "faults")

#: How the serial tests are shared between ``make test SERIAL_WORKERS=2``'s workers (``-n 2 --dist loadgroup
#: --no-loadscope-reorder``): a module at a time (its module-scoped servers set up once), the load test's
#: modules as one (they share its databases), each worker taking the next when it is nearly done, so neither
#: waits for the other at the end. The longest go first (``SERIAL_LONGEST_FIRST``, summed test times on SQLite,
#: 2026-12-07: 213 s, 121 s, 112 s, 106 s, 50 s, 48 s); the rest in the order of the files. Each worker has its
#: own test database, live server, browser and Redis database (``ginsite.settings.redis_url_of_worker``), and
#: the seeded deals do not depend on table ids (``games.services._common.table_rng``), so a browser test deals
#: the same cards on either worker, after any other module.
SERIAL_TOGETHER = ("tests/scale/",)
SERIAL_LONGEST_FIRST = (
    "tests/browser/test_tournament_evening.py", "tests/scale/", "tests/browser/test_games.py",
    "tests/browser/test_table_layout.py", "tests/live/test_clocks_make_run.py", "tests/browser/test_ranked.py",
)

#: The fixtures through which a test reaches the run's database or its sessions and cache (pytest-django's).
STACK_FIXTURES = frozenset({
    "db", "transactional_db", "live_server", "django_db_reset_sequences", "django_db_serialized_rollback",
    "client", "async_client", "admin_client", "admin_user", "django_user_model",
})


def _uses_the_stack(item) -> bool:
    return item.get_closest_marker("django_db") is not None or bool(
        STACK_FIXTURES.intersection(getattr(item, "fixturenames", ())))


def _stackless_engine_test(item) -> bool:
    """A test of the rules engines (``games.engine``: the standard library only) that asks for neither the run's
    database nor its sessions: it runs the same on SQLite and on PostgreSQL + Redis."""
    return item.nodeid.startswith("tests/engine/") and not _uses_the_stack(item)


def _serial_group(nodeid: str) -> str:
    module = nodeid.split("::", 1)[0]
    return next((prefix for prefix in SERIAL_TOGETHER if module.startswith(prefix)), module)


def _serial_rank(item) -> int:
    return next((rank for rank, prefix in enumerate(SERIAL_LONGEST_FIRST) if item.nodeid.startswith(prefix)),
                len(SERIAL_LONGEST_FIRST))


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks
def pytest_collection_modifyitems(config, items):
    for item in items:
        parts = item.path.parts
        if "tests" in parts and parts[parts.index("tests") + 1] in SERIAL_FOLDERS:
            item.add_marker(pytest.mark.serial)
        if _stackless_engine_test(item):
            item.add_marker(pytest.mark.stackless)
        elif item.get_closest_marker("stackless") is not None and _uses_the_stack(item):
            raise pytest.UsageError(f"{item.nodeid} is marked stackless but uses the run's database")
        if item.get_closest_marker("serial") is not None:
            item.add_marker(pytest.mark.xdist_group(_serial_group(item.nodeid)))


class _SerialLongestFirst:
    """The serial tests' longest modules first (``SERIAL_LONGEST_FIRST``), after those that use the database inside
    a transaction, which pytest-django runs before any that empties it (as Django orders them). Its hook runs
    after pytest-django's order; a stable sort, so everything else keeps that order, the other tests theirs."""

    @staticmethod
    def _key(item) -> tuple[int, int, int]:
        if item.get_closest_marker("serial") is None:
            return (0, 0, 0)
        # pytest-django's own reading of the mark and the fixtures (its order is a function inside its hook).
        marker = item.get_closest_marker("django_db")
        fixtures = set(getattr(item, "fixturenames", ()))
        emptied = bool(fixtures & {"transactional_db", "live_server"}) or (
            marker is not None and bool(marker.kwargs.get("transaction") or marker.kwargs.get("reset_sequences")))
        in_transaction = (marker is not None or "db" in fixtures) and not emptied
        return (1, 0 if in_transaction else 1, _serial_rank(item))

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items):
        items.sort(key=self._key)


def pytest_configure(config):
    config.pluginmanager.register(_SerialLongestFirst(), "ginsite-serial-longest-first")


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database; at its end, on PostgreSQL, the other sessions on it are ended first. The live
    layer's database threads (``games.web.dbthread``: the loop's pool, the handshake readers) keep their
    connections open between calls, as a server's do, and PostgreSQL refuses to drop a database in use ("being
    accessed by other users"). A connection belongs to the thread that opened it, so the test process cannot
    close them; the server ends them instead."""
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        # The role's own sessions only: an autovacuum worker on the database is a superuser's, which this role
        # may not end (CI failed on one once), and DROP DATABASE ends autovacuum workers itself.
        cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                       " WHERE datname = current_database() AND pid <> pg_backend_pid() AND usename = current_user")
