"""The load test's people are signed in as the site's sign-in leaves them: on the scaled stack their sessions are in
the site's session cache (Django's ``cached_db`` on Redis) as well as in the database, so a socket's handshake
finds them there, as a signed-in player's does; seeded into the database alone, every socket of a run paid a
cache miss, a database read and a cache write that no real player's socket pays (docs/scale.md)."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import SESSION_KEY

from loadtest import servers, site


@pytest.mark.django_db
def test_seeded_sessions_are_read_from_the_sites_session_cache_without_the_database(
        monkeypatch, django_assert_num_queries):
    if settings.SESSION_ENGINE != "django.contrib.sessions.backends.cached_db":
        pytest.skip("the sessions are cached on the scaled stack (REDIS_URL set, as in CI's PostgreSQL + Redis run)")
    monkeypatch.setenv("LOADTEST_SESSION_CACHE_URL", settings.CACHES[settings.SESSION_CACHE_ALIAS]["LOCATION"])
    users, sessions = site._people(["seeded-cached-a", "seeded-cached-b"])
    engine = import_module(settings.SESSION_ENGINE).SessionStore
    for name in ("seeded-cached-a", "seeded-cached-b"):
        with django_assert_num_queries(0):  # from the cache: no row read
            data = engine(session_key=sessions[name]).load()
        assert data[SESSION_KEY] == str(users[name].pk)


@pytest.mark.django_db
def test_without_a_session_cache_the_seeded_sessions_are_rows_alone(monkeypatch):
    monkeypatch.delenv("LOADTEST_SESSION_CACHE_URL", raising=False)
    cached = []
    monkeypatch.setattr("ginsite.cache.KeptClientRedisCache.set_many", lambda *args, **kwargs: cached.append(args))
    users, sessions = site._people(["seeded-rows-a"])
    from django.contrib.sessions.models import Session

    assert Session.objects.get(session_key=sessions["seeded-rows-a"]).get_decoded()[SESSION_KEY] == str(
        users["seeded-rows-a"].pk)
    assert cached == []


def test_the_scaled_stack_seeds_with_the_sites_session_cache_and_the_embedded_one_without(tmp_path: Path):
    scaled = servers.SiteStack("scaled", tmp_path)
    scaled.env["REDIS_URL"] = "redis://127.0.0.1:6379/14"
    env = scaled.seeding_env()
    assert "REDIS_URL" not in env  # the seeding's table events go nowhere
    assert env["LOADTEST_SESSION_CACHE_URL"] == "redis://127.0.0.1:6379/14"
    embedded = servers.SiteStack("embedded", tmp_path)
    assert "LOADTEST_SESSION_CACHE_URL" not in embedded.seeding_env()
