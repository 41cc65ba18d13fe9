"""The run is on the stack the environment names: CI's second run must not fall back to SQLite/in-memory."""

import os
import uuid

import pytest
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection


@pytest.mark.django_db
def test_database_vendor_follows_database_url():
    expected = "postgresql" if os.environ.get("DATABASE_URL", "").startswith(("postgres", "postgresql")) else "sqlite"
    assert connection.vendor == expected
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone()[0] == 1


def test_channel_layer_follows_redis_url():
    layer = get_channel_layer()
    backend = settings.CHANNEL_LAYERS["default"]["BACKEND"]
    if os.environ.get("REDIS_URL"):
        from channels_redis.core import RedisChannelLayer

        # channels-redis's layer (ginsite.layers subclasses it to send in fewer round trips).
        assert backend in ("channels_redis.core.RedisChannelLayer", "ginsite.layers.RedisChannelLayer")
        assert isinstance(layer, RedisChannelLayer)
        # A burst of sockets waits for one of a few connections (a blocking pool, ginsite.layers.create_pool)
        # instead of opening one each or failing past the pool's size (redis-py's default pool of 100).
        import redis.asyncio

        assert isinstance(layer.create_pool(0), redis.asyncio.BlockingConnectionPool)
        assert settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0]["timeout"] > 0
    else:
        from channels.layers import InMemoryChannelLayer

        assert isinstance(layer, InMemoryChannelLayer)


async def test_channel_layer_round_trip_through_a_group():
    layer = get_channel_layer()
    channel = await layer.new_channel()
    group = f"stack-check-{uuid.uuid4().hex}"
    await layer.group_add(group, channel)
    message = {"type": "stack.check", "token": uuid.uuid4().hex}
    await layer.group_send(group, message)
    received = await layer.receive(channel)
    await layer.group_discard(group, channel)
    assert received == message


def test_deploy_checks_pass_with_debug_off(tmp_path):
    """With DEBUG off and a real key, `check --deploy` reports nothing (secure cookies, HSTS, SSL redirect)."""
    import subprocess
    import sys

    env = {**os.environ, "DEBUG": "0", "SECRET_KEY": "x" * 60 + uuid.uuid4().hex, "ALLOWED_HOSTS": "example.org",
           "RECORDS_SIGNING_KEY": uuid.uuid4().hex + uuid.uuid4().hex}
    env.pop("GAMES_TEST_DEAL_SEED", None)
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_site_refuses_debug_off_without_secret_key():
    import subprocess
    import sys

    env = {**os.environ, "DEBUG": "0", "ALLOWED_HOSTS": "example.org"}
    env.pop("SECRET_KEY", None)
    result = subprocess.run([sys.executable, "manage.py", "check"], cwd=settings.BASE_DIR, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_site_refuses_test_deal_seed_with_debug_off():
    import subprocess
    import sys

    env = {**os.environ, "DEBUG": "0", "SECRET_KEY": "y" * 64, "ALLOWED_HOSTS": "example.org",
           "GAMES_TEST_DEAL_SEED": "42"}
    result = subprocess.run([sys.executable, "manage.py", "check"], cwd=settings.BASE_DIR, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert "GAMES_TEST_DEAL_SEED" in result.stderr
