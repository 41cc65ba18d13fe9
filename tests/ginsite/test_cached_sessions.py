"""Sessions read without a database trip where the stack allows (issue 24): with ``REDIS_URL`` the session
engine is Django's ``cached_db``, so a table socket's handshake finds the session in Redis; without Redis
(the embedded default) sessions stay in the database, as before.

Counted in a fresh process of the site (the engine is chosen at start): every statement any thread runs on
the database that names ``django_session``, across real handshakes through ``ginsite.asgi.application``.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = os.environ.get("REDIS_URL", "")

HANDSHAKES = """
import asyncio, json
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends import db
from django.db.backends.signals import connection_created
from django.utils.module_loading import import_string
from games import services

session_sql = []

def count(execute, sql, params, many, context):
    if "django_session" in sql:
        session_sql.append(sql)
    return execute(sql, params, many, context)

def wrap(sender, connection, **kwargs):
    connection.execute_wrappers.append(count)

connection_created.connect(wrap)

def signed_in(user, store_class):
    session = store_class()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key

host = get_user_model().objects.create_user("sitzung_host", "h@example.invalid", None)
table = services.table_create(user=host, game="gin", preset="klassisch", options={"turn_seconds": 600}, bots="simple")
site_session = signed_in(host, import_string(settings.SESSION_ENGINE + ".SessionStore"))  # as a sign-in writes it
seeded_session = signed_in(host, db.SessionStore)  # written straight to the database (a script, a seed)

from ginsite.asgi import application

async def handshake(session_key):
    communicator = WebsocketCommunicator(application, f"/ws/table/{table.pk}/", headers=[
        (b"origin", b"http://testserver"), (b"cookie", f"sessionid={session_key}".encode())])
    connected, _ = await communicator.connect(timeout=20)
    assert connected
    frame = json.loads(await communicator.receive_from(timeout=20))
    await communicator.disconnect()
    return frame["table"]["you"]

def reads(session_key):
    before = len(session_sql)
    you = asyncio.run(handshake(session_key))
    assert you == 0, you  # signed in: the host's seat
    return sum("SELECT" in sql.upper() for sql in session_sql[before:])

out = {"engine": settings.SESSION_ENGINE,
       "site": [reads(site_session), reads(site_session)],
       "seeded": [reads(seeded_session), reads(seeded_session)]}
print("OUT " + json.dumps(out))
"""


def _run(tmp_path, **env: str) -> dict:
    database = f"sqlite:///{tmp_path}/site.sqlite3"
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("DATABASE_URL", "SQLITE_PATH", "REDIS_URL", "DATABASE_REPLICA_URL")
                   and not k.startswith(("GAMES_", "DJANGO_"))}
    environment.update(DJANGO_SETTINGS_MODULE="ginsite.settings", DEBUG="1", DATABASE_URL=database,
                       GAMES_REFEREE_IN_PROCESS="0", **env)
    for command in (["migrate", "--noinput", "-v", "0"], ["createcachetable"]):
        done = subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=environment,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    done = subprocess.run([sys.executable, "-c", "import django; django.setup()\n" + HANDSHAKES], cwd=ROOT,
                          env=environment, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("OUT "))
    return json.loads(line[4:])


@pytest.mark.skipif(not REDIS_URL, reason="needs Redis (REDIS_URL), as the scaled stack has it")
def test_with_redis_a_handshake_reads_the_session_without_a_database_trip(tmp_path):
    out = _run(tmp_path, REDIS_URL=REDIS_URL, REDIS_PREFIX=f"sess{secrets.token_hex(4)}")
    assert out["engine"] == "django.contrib.sessions.backends.cached_db"
    # Written by the site: in the cache from the start, no read of the table at all.
    assert out["site"] == [0, 0]
    # Written straight to the database: read there once, then from the cache.
    assert out["seeded"] == [1, 0]


def test_without_redis_sessions_stay_in_the_database(tmp_path):
    out = _run(tmp_path)
    assert out["engine"] == "django.contrib.sessions.backends.db"
    assert out["site"] == [1, 1] and out["seeded"] == [1, 1]
