"""One cache for the whole site (ginsite/settings.py ``CACHES``): Redis with ``REDIS_URL``, else a table in the
site's database. Whatever counts in it (allauth's sign-in limits) counts for every process of the site, not
for each one: shown with separate processes on one database, as several daphnes behind a proxy would be."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: What a fresh process of the site here does not inherit: the Redis URL it is given is the one it uses (a test
#: worker's own Redis database, ginsite.settings.redis_url_of_worker, is not this process's business).
CLEARED = ("DATABASE_URL", "SQLITE_PATH", "REDIS_URL", "PYTEST_XDIST_WORKER")


def run_python(code: str, **env: str) -> str:
    """Run ``code`` in a fresh process of the site with ``env`` (and no database or Redis but those in it)."""
    environment = {k: v for k, v in os.environ.items() if k not in CLEARED}
    environment.update(DJANGO_SETTINGS_MODULE="ginsite.settings", **env)
    done = subprocess.run([sys.executable, "-c", "import django; django.setup()\n" + code], cwd=ROOT,
                          env=environment, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""


def manage(*args: str, **env: str) -> None:
    environment = {k: v for k, v in os.environ.items() if k not in CLEARED}
    environment.update(DJANGO_SETTINGS_MODULE="ginsite.settings", **env)
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr


PRINT_CACHE = "from django.conf import settings; import json; print(json.dumps(settings.CACHES['default']))"

COUNT = (
    "from django.core.cache import cache\n"
    "cache.add('signin-count', 0, 300)\n"
    "print(cache.incr('signin-count', {n}))\n"
)


def test_without_redis_the_cache_is_a_table_in_the_sites_database(tmp_path):
    cache = json.loads(run_python(PRINT_CACHE, SQLITE_PATH=str(tmp_path / "site.sqlite3")))
    assert cache["BACKEND"] == "django.core.cache.backends.db.DatabaseCache"
    assert cache["LOCATION"] == "ginsite_cache"


def test_with_redis_the_cache_is_redis_under_the_sites_prefix():
    cache = json.loads(run_python(PRINT_CACHE, REDIS_URL="redis://127.0.0.1:6379/4", REDIS_PREFIX="site-a"))
    assert cache["BACKEND"] == "ginsite.cache.KeptClientRedisCache"
    assert cache["LOCATION"] == "redis://127.0.0.1:6379/4"
    assert cache["KEY_PREFIX"] == "site-a"


def test_two_processes_on_one_database_count_in_one_cache(tmp_path):
    env = {"SQLITE_PATH": str(tmp_path / "site.sqlite3")}
    manage("createcachetable", **env)
    assert run_python(COUNT.format(n=3), **env) == "3"
    assert run_python(COUNT.format(n=2), **env) == "5"  # another process: it sees the first one's count


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs a Redis server (REDIS_URL), as CI's second run has")
def test_two_processes_on_one_redis_count_in_one_cache():
    env = {"REDIS_URL": os.environ["REDIS_URL"], "REDIS_PREFIX": f"cache-test-{uuid.uuid4().hex}",
           "DATABASE_URL": os.environ.get("DATABASE_URL", "")}
    assert run_python(COUNT.format(n=3), **env) == "3"
    assert run_python(COUNT.format(n=2), **env) == "5"


SIGN_IN = (
    "from django.test import Client\n"
    "from django.urls import reverse\n"
    "from django.contrib.auth import get_user_model\n"
    "from allauth.account.models import EmailAddress\n"
    "user, made = get_user_model().objects.get_or_create(username='anna', email='anna@example.com')\n"
    "if made:\n"
    "    user.set_password('Herz-Dame-42!'); user.save()\n"
    "    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)\n"
    "client = Client()\n"
    "for password in {passwords!r}:\n"
    "    response = client.post(reverse('account_login'), {{'login': 'anna', 'password': password}})\n"
    "print('signed in' if '_auth_user_id' in client.session else 'refused')\n"
)


def test_failed_sign_ins_in_one_process_refuse_the_account_in_another(tmp_path):
    # allauth refuses an account after 5 failed sign-ins in 5 minutes, even with the right password. Each
    # process here is a daphne of its own: with a cache per process the sixth try would go through.
    env = {"SQLITE_PATH": str(tmp_path / "site.sqlite3"), "DEBUG": "1"}
    manage("migrate", "--noinput", "-v", "0", **env)
    manage("createcachetable", **env)
    assert run_python(SIGN_IN.format(passwords=["Herz-Dame-42!"]), **env) == "signed in"  # the account works
    assert run_python(SIGN_IN.format(passwords=["falsch-falsch"] * 5), **env) == "refused"
    assert run_python(SIGN_IN.format(passwords=["Herz-Dame-42!"]), **env) == "refused"
