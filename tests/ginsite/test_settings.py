"""The settings read from the environment: every documented way to name a database gives the same
guarantees, and the production settings pass Django's deployment checks."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PRINT_DATABASE = (
    "import json, django; django.setup(); from django.conf import settings; "
    "d = settings.DATABASES['default']; print(json.dumps({'ENGINE': d['ENGINE'], 'NAME': str(d['NAME']), "
    "'OPTIONS': d.get('OPTIONS', {})}))"
)


def settings_in_subprocess(**env: str) -> dict:
    """``settings.DATABASES['default']`` as a fresh process sees it with ``env`` (and no other database)."""
    environment = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SQLITE_PATH")}
    environment.update(DJANGO_SETTINGS_MODULE="ginsite.settings", **env)
    done = subprocess.run([sys.executable, "-c", PRINT_DATABASE], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_sqlite_named_by_url_gets_immediate_transactions_and_the_timeout(tmp_path):
    database = settings_in_subprocess(DATABASE_URL=f"sqlite:///{tmp_path}/site.sqlite3")
    assert database["ENGINE"] == "django.db.backends.sqlite3"
    assert database["NAME"] == f"{tmp_path}/site.sqlite3"
    assert database["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert database["OPTIONS"]["timeout"] == 20


def test_both_ways_of_naming_sqlite_give_the_same_options(tmp_path):
    by_url = settings_in_subprocess(DATABASE_URL=f"sqlite:///{tmp_path}/a.sqlite3")
    by_path = settings_in_subprocess(SQLITE_PATH=f"{tmp_path}/a.sqlite3")
    default = settings_in_subprocess()
    assert by_url == by_path
    assert by_url["OPTIONS"] == default["OPTIONS"] == {
        "transaction_mode": "IMMEDIATE", "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }


def test_postgresql_named_by_url_gets_no_sqlite_options():
    database = settings_in_subprocess(DATABASE_URL="postgres://u:p@127.0.0.1:5432/x")
    assert database["ENGINE"] == "ginsite.postgresql"  # Django's, its health check once a second
    assert "transaction_mode" not in database["OPTIONS"] and "timeout" not in database["OPTIONS"]


def test_sqlite_by_url_lets_a_second_writer_wait_instead_of_failing(tmp_path):
    # What the options are for: the referee and daphne write to one file. A writer holding the lock for a
    # moment must make the other wait (IMMEDIATE + timeout), not fail with "database is locked".
    script = """
import threading, time, django
django.setup()
from django.db import connection, connections, transaction
with connection.cursor() as c:
    c.execute("CREATE TABLE IF NOT EXISTS t (n integer)")
held = threading.Event()
def holder():
    with transaction.atomic(using="default"):
        with connections["default"].cursor() as c:
            c.execute("INSERT INTO t VALUES (1)")
        held.set()
        time.sleep(1.0)
    connections["default"].close()
thread = threading.Thread(target=holder)
thread.start()
held.wait()
with transaction.atomic():
    with connection.cursor() as c:
        c.execute("SELECT count(*) FROM t")
        before = c.fetchone()[0]
        c.execute("INSERT INTO t VALUES (2)")
thread.join()
print("OK", before)
"""
    environment = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SQLITE_PATH")}
    environment.update(DJANGO_SETTINGS_MODULE="ginsite.settings", DATABASE_URL=f"sqlite:///{tmp_path}/w.sqlite3")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=environment, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    # IMMEDIATE: the second transaction waited for the first to commit, so it saw its row.
    assert done.stdout.strip().endswith("OK 1")


@pytest.mark.slow
def test_check_deploy_passes_with_the_production_settings(tmp_path):
    environment = {k: v for k, v in os.environ.items() if k not in ("GAMES_TEST_DEAL_SEED",)}
    environment.update(
        DJANGO_SETTINGS_MODULE="ginsite.settings", DEBUG="0", ALLOWED_HOSTS="rommé.example",
        SECRET_KEY="deploy-check-" + "k3JfP0bX9yQw2m1r0LkzA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUv",
        RECORDS_SIGNING_KEY=secrets.token_hex(32),  # required with DEBUG off (games.E001)
    )
    done = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"], cwd=ROOT,
                          env=environment, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
