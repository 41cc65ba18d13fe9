"""Fault tests (``make faults``): real daphne and referee processes on a PostgreSQL cluster and a Redis server
of their own, killed and restarted under running matches. They take minutes, so ``make test`` leaves them
out; ``make faults`` (and CI) runs them with ``GINSITE_FAULTS=1``. Without PostgreSQL's or Redis's programs
on the machine they are skipped with the reason."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.faults import harness

if os.environ.get("GINSITE_FAULTS") != "1":
    collect_ignore_glob = ["test_*.py"]


def pytest_configure(config):
    config.addinivalue_line("markers", "faults: kills and restarts servers under running matches (make faults)")


@pytest.fixture(scope="session")
def postgres():
    bindir = harness.postgres_bin()
    if bindir is None:
        pytest.skip("PostgreSQL's programs (/usr/lib/postgresql/*/bin) are not installed: apt-get install postgresql")
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        pytest.skip("running as root needs runuser to start PostgreSQL as the postgres user")
    cluster = harness.Postgres(bindir)
    try:
        # One migrated database as the template; each test gets a copy (CREATE DATABASE ... TEMPLATE).
        url = cluster.create_database("faults_template")
        template = harness.Site(cluster.folder, url)
        template.manage("migrate", "--noinput", "-v", "0")
        yield cluster
    finally:
        cluster.close()


@pytest.fixture
def redis():
    executable = shutil.which("redis-server")
    if executable is None:
        pytest.skip("redis-server is not installed: apt-get install redis-server")
    server = harness.Redis(executable)
    yield server
    server.close()


@pytest.fixture
def site(postgres, redis, tmp_path, request):
    """The site on a fresh copy of the migrated database and the test's own Redis."""
    name = "faults_" + "".join(ch for ch in request.node.name.lower() if ch.isalnum())[:40]
    postgres._run([str(postgres.bindir / "createdb"), "-h", "127.0.0.1", "-p", str(postgres.port), "-U", "postgres",
                   "-T", "faults_template", name])
    site = harness.Site(tmp_path, postgres.url(name), redis.url)
    yield site
    site.close()
    if request.node.rep_call.failed if hasattr(request.node, "rep_call") else False:
        for process in site.processes:
            print(f"--- {process.name} log (last lines) ---\n{process.log_text()[-4000:]}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.rep_call = report


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory):
    """A migrated SQLite file, copied for each test that runs on the embedded stack."""
    folder = tmp_path_factory.mktemp("faults-sqlite")
    path = folder / "template.sqlite3"
    harness.Site(folder, f"sqlite:///{path}").manage("migrate", "--noinput", "-v", "0")
    return path


@pytest.fixture(params=["postgres", "sqlite"])
def referee_site(request, tmp_path):
    """The referee's fault tests run on both stacks: PostgreSQL + Redis, and SQLite named by DATABASE_URL with
    the in-memory channel layer (sockets then poll), where the referee and daphne write to one file."""
    if request.param == "postgres":
        yield request.getfixturevalue("site")
        return
    path = tmp_path / "site.sqlite3"
    shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
    site = harness.Site(tmp_path, f"sqlite:///{path}")
    yield site
    site.close()
