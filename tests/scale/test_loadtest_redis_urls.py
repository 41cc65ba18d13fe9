"""How the load test (and ``make run-scaled``) reach Redis: over the Unix socket ``deploy/services.sh`` gives a
server when one answers there, else over TCP; the same URL for both stacks, with the database number
(and the bare stack's socket timeout) where each kind of URL takes it."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from loadtest import servers

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deploy"))
import run_scaled  # noqa: E402


def test_a_database_goes_in_the_path_of_a_tcp_url_and_in_the_query_of_a_unix_socket_url():
    assert servers.redis_url("redis://127.0.0.1:6379", 14) == "redis://127.0.0.1:6379/14"
    assert servers.redis_url("redis://127.0.0.1:6379", 15, socket_timeout=10) == (
        "redis://127.0.0.1:6379/15?socket_timeout=10")
    assert servers.redis_url("unix:///run/redis-ginsite/redis-6379.sock", 15, socket_timeout=10) == (
        "unix:///run/redis-ginsite/redis-6379.sock?db=15&socket_timeout=10")


def test_the_unix_socket_is_taken_only_when_a_server_answers_on_it(tmp_path, monkeypatch):
    monkeypatch.setattr(servers, "REDIS_SOCKET_DIR", str(tmp_path))
    assert servers.local_redis(6379) == "redis://127.0.0.1:6379"  # no socket
    path = tmp_path / "redis-6379.sock"
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(path))
    listening.listen(1)
    try:
        assert servers.local_redis(6379) == f"unix://{path}"
    finally:
        listening.close()
    assert path.exists()
    assert servers.local_redis(6379) == "redis://127.0.0.1:6379"  # a file left behind, nobody listening


def test_run_scaled_shards_over_the_second_servers_socket_when_the_first_url_is_a_socket(tmp_path, monkeypatch):
    first, second = tmp_path / "redis-6379.sock", tmp_path / "redis-6380.sock"
    monkeypatch.setattr(run_scaled, "REDIS_SOCKETS", (str(first), str(second)))
    monkeypatch.delenv("REDIS_CHANNEL_URLS", raising=False)
    assert run_scaled.default_redis_url() == run_scaled.DEFAULT_REDIS_URL
    assert run_scaled.channel_urls("redis://127.0.0.1:6379/3") == ["redis://127.0.0.1:6379/3", "redis://127.0.0.1:6380/3"]
    sockets = []
    for path in (first, second):
        listening = socket.socket(socket.AF_UNIX)
        listening.bind(str(path))
        listening.listen(1)
        sockets.append(listening)
    try:
        url = run_scaled.default_redis_url()
        assert url == f"unix://{first}?db=0"
        assert run_scaled.channel_urls(url) == [url, f"unix://{second}?db=0"]
        sockets.pop().close()  # the second server without its socket: TCP, the same database
        assert run_scaled.channel_urls(f"unix://{first}?db=4") == [f"unix://{first}?db=4", "redis://127.0.0.1:6380/4"]
    finally:
        for listening in sockets:
            listening.close()


def test_the_site_servers_keep_the_load_tests_redis_database_when_started_from_a_test_worker(tmp_path, monkeypatch):
    """Run from pytest-xdist's worker ``gw1`` (``make test SERIAL_WORKERS=2``), a daphne that inherited
    ``PYTEST_XDIST_WORKER`` moved its cache and sessions to the worker's Redis database (14 + 1 + 1 = 16, which
    Redis has not) and the arena's staff start answered HTTP 500. The servers read the database it set."""
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    site = servers.SiteStack("scaled", tmp_path)
    site.env["DATABASE_URL"] = "postgres://ginsite:ginsite@127.0.0.1:5432/ginsite_loadtest"
    site.env["REDIS_URL"] = servers.redis_url("redis://127.0.0.1:6379", servers.SITE_REDIS_DB)
    env = site.serving_env()
    assert not [name for name in env if name.startswith("PYTEST_")]
    read = subprocess.run(
        [sys.executable, "-c", "from django.conf import settings; print(settings.REDIS_URL)"],
        env={**env, "DATABASE_URL": "sqlite:///:memory:"}, cwd=servers.ROOT, capture_output=True, text=True,
        check=True, timeout=60,
    )
    assert read.stdout.strip() == f"redis://127.0.0.1:6379/{servers.SITE_REDIS_DB}"
    bare = servers.BareStack("scaled", tmp_path)
    assert not [name for name in bare.env if name.startswith("PYTEST_")]
