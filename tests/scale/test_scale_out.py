"""The scale-out, for real: ``deploy/run_scaled.py`` (what ``make run-scaled`` runs) starts nginx in front of
two daphne processes and a referee, on PostgreSQL and Redis with production settings. Two signed-in people sit
at a gin table with their sockets on *different* daphne processes, a spectator comes through nginx; every
move made through one process reaches the sockets held by the other and by nginx's pick. A computer player's
moves (played by the referee process) reach a person's socket too, nginx serves the static files, and the
whole site stops cleanly.

The distributed parts are the ones ``make run-scaled`` uses: the site's processes reach PostgreSQL through
PgBouncer (session pooling; its admin console shows their connections and transactions on the test's
database) and the channel layer is sharded over two Redis servers (both hold the test's group keys while the
sockets are open, and the move crosses between processes all the same).

Needs nginx, PostgreSQL, PgBouncer and two Redis servers on 127.0.0.1 (``bash deploy/services.sh``); skipped
with the reason when one
is missing, failed instead when ``REQUIRE_SCALE=1`` (CI's PostgreSQL + Redis run). It runs where ``REDIS_URL``
is set (CI's PostgreSQL + Redis run) or with ``SCALE_TEST=1``. Its database and Redis keys are its own.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "deploy"))
import run_scaled  # noqa: E402

pytestmark = pytest.mark.slow

PG_URL = os.environ.get("DATABASE_URL", "").startswith("postgres") and os.environ["DATABASE_URL"] or \
    run_scaled.DEFAULT_DATABASE_URL
REDIS_URL = os.environ.get("REDIS_URL") or run_scaled.DEFAULT_REDIS_URL
TIME_LIMIT = 120  # seconds the site runs at most (it stops by itself)


def _skip_or_fail(reason: str):
    if os.environ.get("REQUIRE_SCALE") == "1":
        pytest.fail(f"REQUIRE_SCALE=1 but {reason}")
    pytest.skip(reason)


def _free_base_port() -> int:
    for _ in range(50):
        base = 20000 + secrets.randbelow(20000)
        if all(run_scaled._port_free("127.0.0.1", base + i) for i in range(3)):
            return base
    raise RuntimeError("no three free ports in a row")


def _server_base(url: str) -> str:
    return url.rsplit("/", 1)[0]


@pytest.fixture
def scaled_site(tmp_path):
    if not (os.environ.get("REDIS_URL") or os.environ.get("SCALE_TEST") == "1"):
        pytest.skip("the scale-out test runs with Redis (REDIS_URL set, as in CI's PostgreSQL + Redis run) "
                    "or SCALE_TEST=1")
    admin = _server_base(PG_URL).replace("postgres://", "postgresql://", 1) + "/postgres"
    # The server (the test makes its own database), PgBouncer and both Redis servers.
    missing = run_scaled.missing_services(admin, REDIS_URL, pgbouncer=run_scaled.DEFAULT_PGBOUNCER,
                                          channel_redis=run_scaled.channel_urls(REDIS_URL))
    if missing:
        _skip_or_fail(missing)
    import psycopg

    name = f"ginsite_scale_{secrets.token_hex(4)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    port = _free_base_port()
    # nginx's workers run as an unprivileged user: the static files must be where it may read them (pytest's
    # own folders are private).
    static_root = Path(tempfile.mkdtemp(prefix="ginsite-scale-static-"))
    static_root.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GAMES_", "DJANGO_"))}
    env.update({
        "DATABASE_URL": f"{_server_base(PG_URL)}/{name}",
        "REDIS_URL": REDIS_URL,
        "REDIS_PREFIX": f"scale{secrets.token_hex(4)}",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "GAMES_BOT_DELAY_SECONDS": "0.2",
        "STATIC_ROOT": str(static_root),
        "PYTHONUNBUFFERED": "1",
    })
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "deploy" / "run_scaled.py"), "--daphnes", "2", "--referees", "1",
         "--port", str(port), "--seconds", str(TIME_LIMIT), "--run-dir", str(tmp_path / "run")],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    info = None
    output: list[str] = []
    deadline = time.monotonic() + 90
    try:
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            output.append(line)
            if line.startswith("SCALED "):
                info = json.loads(line[len("SCALED "):])
                break
        assert info is not None, "run_scaled did not come up:\n" + "".join(output)
        info["env"] = env
        info["database"] = name
        info["process"] = process
        info["tmp"] = tmp_path
        yield info
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        shutil.rmtree(static_root, ignore_errors=True)


def _django(env: dict, code: str) -> dict:
    done = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT,
                          env={**env, "DEBUG": "0", "SECURE_SSL_REDIRECT": "0"},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("OUT "))
    return json.loads(line[4:])


BOT_TABLE = """
import json
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from games import services
user = get_user_model().objects.create_user("scale_bot_host", "h@load.invalid", None)
session = SessionStore()
session[SESSION_KEY] = str(user.pk)
session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
session[HASH_SESSION_KEY] = user.get_session_auth_hash()
session.create()
table = services.table_create(user=user, game="gin", preset="klassisch", options={"turn_seconds": 600}, bots="simple")
print("OUT " + json.dumps({"id": table.pk, "session": session.session_key}))
"""


async def _socket(port: int, table_id: int, session: str | None):
    from websockets.asyncio.client import connect

    headers = {"Cookie": f"sessionid={session}"} if session else {}
    ws = await connect(f"ws://127.0.0.1:{port}/ws/table/{table_id}/", origin=f"http://127.0.0.1:{port}",
                       additional_headers=headers, open_timeout=10, ping_interval=None)
    return ws


async def _until(ws, predicate, timeout: float = 15.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        assert remaining > 0, "no such frame in time"
        frame = json.loads(await asyncio.wait_for(ws.recv(), remaining))
        if frame.get("type") == "state" and predicate(frame):
            return frame


def _pgbouncer(command: str) -> list[dict]:
    """A SHOW command on PgBouncer's admin console (the `ginsite` role is one of its stats_users)."""
    host, port = run_scaled.DEFAULT_PGBOUNCER.split(":")
    user = PG_URL.split("//", 1)[1].split(":", 1)[0]
    password = PG_URL.split("//", 1)[1].split("@", 1)[0].split(":", 1)[1]
    done = subprocess.run(["psql", "-h", host, "-p", port, "-U", user, "-d", "pgbouncer", "--csv", "-c", command],
                          env={**os.environ, "PGPASSWORD": password}, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return list(csv.DictReader(io.StringIO(done.stdout)))


def _keys(url: str, prefix: str) -> list[str]:
    import redis

    client = redis.Redis.from_url(url)
    try:
        return [key.decode() for key in client.scan_iter(match=f"{prefix}*", count=1000)]
    finally:
        client.close()


def test_a_move_made_on_one_daphne_reaches_sockets_on_the_other_and_through_nginx(scaled_site):
    env = scaled_site["env"]
    shards = scaled_site["channel_redis"]
    assert scaled_site["pgbouncer"] == run_scaled.DEFAULT_PGBOUNCER and len(shards) == 2
    assert len({url.rsplit("/", 1)[0] for url in shards}) == 2, "two Redis servers, not two databases of one"
    daphne_a, daphne_b = scaled_site["daphne_ports"]
    nginx_port = int(scaled_site["url"].rsplit(":", 1)[1])
    seed_file = scaled_site["tmp"] / "seed.json"
    done = subprocess.run([sys.executable, "-m", "loadtest.site", "seed", "1", "scale", str(seed_file)], cwd=ROOT,
                          env={**env, "DEBUG": "0", "SECURE_SSL_REDIRECT": "0"}, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    table = json.loads(seed_file.read_text())["tables"][0]
    bot_table = _django(env, BOT_TABLE)

    async def play():
        anna = await _socket(daphne_a, table["id"], table["sessions"][0])
        ben = await _socket(daphne_b, table["id"], table["sessions"][1])
        watcher = await _socket(nginx_port, table["id"], None)
        states = [await _until(ws, lambda f: True) for ws in (anna, ben, watcher)]
        assert [s["table"]["you"] for s in states] == [0, 1, None]
        # The layer is sharded: with the sockets open, each Redis server holds some of this site's groups
        # (channels-redis hashes a group's name to its server; a table's "all" and "public" groups land on
        # different ones of two, and the watcher keeps the public group).
        on_shard = [_keys(url, env["REDIS_PREFIX"]) for url in shards]
        assert all(any(":group:" in key for key in keys) for keys in on_shard), on_shard
        sockets = {0: anna, 1: ben}
        crossed = set()
        for _ in range(8):  # moves through both processes, each seen by the other process and by nginx's pick
            to_act = states[0]["view"]["to_act"]
            if to_act is None:
                break
            version = states[to_act]["version"]
            action = states[to_act]["view"]["legal_actions"][0]
            await sockets[to_act].send(json.dumps({"type": "move", "version": version, "action": action}))
            states = [await _until(ws, lambda f, v=version: f["version"] > v) for ws in (anna, ben, watcher)]
            assert [s["version"] for s in states] == [version + 1] * 3
            crossed.add(to_act)
        assert crossed == {0, 1}, "moves were made through both daphne processes"
        # A computer player's move, played by the referee process, reaches a person's socket through nginx.
        host = await _socket(nginx_port, bot_table["id"], bot_table["session"])
        first = await _until(host, lambda f: True)
        if first["view"]["to_act"] == 0:
            await host.send(json.dumps({"type": "move", "version": first["version"],
                                        "action": first["view"]["legal_actions"][0]}))
        by_bot = await _until(host, lambda f: any(m.get("seat") == 1 for m in f["view"]["history"]), timeout=20)
        assert by_bot["table"]["you"] == 0
        for ws in (anna, ben, watcher, host):
            await ws.close()

    asyncio.run(asyncio.wait_for(play(), 90))

    # The site's database connections went through PgBouncer: its clients on the test's database are the
    # serving processes, and the moves were transactions it pooled.
    clients = [row for row in _pgbouncer("SHOW CLIENTS") if row["database"] == scaled_site["database"]]
    assert len(clients) >= 2, clients  # two daphne processes and a referee, one or more connections each
    stats = {row["database"]: row for row in _pgbouncer("SHOW STATS")}
    assert int(stats[scaled_site["database"]]["total_xact_count"]) >= 8, stats.get(scaled_site["database"])

    # Static files come from nginx, not from daphne.
    with urllib.request.urlopen(f"{scaled_site['url']}/static/site/site.css", timeout=10) as response:
        assert response.status == 200 and response.headers["Server"] == "nginx"
    run_dir = Path(scaled_site["run_dir"])
    assert all("/static/site/site.css" not in (run_dir / f"daphne{i}.log").read_text() for i in (1, 2))

    # It stops cleanly: every process ends and no port stays open.
    process = scaled_site["process"]
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=40) == 0
    for port in (nginx_port, daphne_a, daphne_b):
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", port)) != 0
