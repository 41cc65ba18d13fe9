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

#: The serial tests' second queue (`make test SERIAL_WORKERS=2`: ``-n 2 --dist loadgroup``; every other serial
#: test is in the first, in the order of a run without workers). These start their own processes on files and
#: databases of their own (``make run``'s SQLite file, the load test's and the scale-out test's databases) and
#: never touch the test database the first queue's servers share, so the table ids, and with them the seeded
#: deals, of the first queue's browser tests are those of a run in one process. The two queues take about as
#: long: on PostgreSQL + Redis (2026-12-06, every test's time summed) the first took 682 s and the second 514 s
#: while the load test's embedded smoke (88 s) was the first's; both smokes are the second's now.
SERIAL_SECOND_QUEUE = (
    "tests/browser/test_tournament_evening.py", "tests/live/", "tests/scale/test_loadtest_arena_smoke.py",
    "tests/scale/test_loadtest_collector.py", "tests/scale/test_loadtest_cpu_parts.py",
    "tests/scale/test_loadtest_redis_urls.py", "tests/scale/test_loadtest_sockets.py", "tests/scale/test_scale_out.py",
    "tests/scale/test_loadtest_smoke.py",
)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks
def pytest_collection_modifyitems(config, items):
    for item in items:
        parts = item.path.parts
        if "tests" in parts and parts[parts.index("tests") + 1] in SERIAL_FOLDERS:
            item.add_marker(pytest.mark.serial)
        if item.get_closest_marker("serial") is not None:
            queue = "second" if item.nodeid.startswith(SERIAL_SECOND_QUEUE) else "first"
            item.add_marker(pytest.mark.xdist_group(f"serial-{queue}"))


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
        cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                       " WHERE datname = current_database() AND pid <> pg_backend_pid()")
