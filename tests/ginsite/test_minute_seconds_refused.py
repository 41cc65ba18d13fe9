"""Issue 25: ``TOURNAMENTS_MINUTE_SECONDS`` (the tournaments' test clock) is refused by a production site
(DEBUG off), whatever its value, and a minute that is not a positive number of seconds is refused always."""

from __future__ import annotations

import os
import subprocess
import sys

from django.conf import settings


def _check_with(env_changes: dict) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SECRET_KEY": "y" * 64, "ALLOWED_HOSTS": "example.org", **env_changes}
    env.pop("GAMES_TEST_DEAL_SEED", None)
    return subprocess.run([sys.executable, "manage.py", "check"], cwd=settings.BASE_DIR, env=env,
                          capture_output=True, text=True, timeout=120)


def test_site_refuses_tournaments_minute_seconds_with_debug_off():
    for value in ("5", "-3"):
        result = _check_with({"DEBUG": "0", "TOURNAMENTS_MINUTE_SECONDS": value})
        assert result.returncode != 0, value
        assert "TOURNAMENTS_MINUTE_SECONDS is a test-only setting" in result.stderr


def test_site_refuses_a_minute_that_is_not_positive_even_with_debug_on():
    for value in ("-3", "0", "nan", "soon"):
        result = _check_with({"DEBUG": "1", "TOURNAMENTS_MINUTE_SECONDS": value})
        assert result.returncode != 0, value
        assert "TOURNAMENTS_MINUTE_SECONDS must be" in result.stderr, value
    assert _check_with({"DEBUG": "1", "TOURNAMENTS_MINUTE_SECONDS": "0.5"}).returncode == 0
