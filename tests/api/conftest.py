"""What the API tests share: live-play settings (fixed deals, no computer pause), people, finished matches
played out through the services, and a client that reads JSON."""

from __future__ import annotations

import json
from contextlib import contextmanager

import pytest
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client

from games import services
from games.models import Match, Table
from tests.games.helpers import play_out


@pytest.fixture(autouse=True)
def _live_play(settings, tmp_path):
    from tests.games import helpers

    settings.GAMES_TEST_DEAL_SEED = "api-tests"
    settings.GAMES_BOT_DELAY_SECONDS = 0
    settings.GAMES_STATE_POLL_SECONDS = 0
    settings.GAMES_DB_PARALLEL = False
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.RECORDS_SIGNING_KEY = ""
    settings.RECORDS_SIGNING_KEY_FILE = str(tmp_path / "records-signing-key.dev")
    settings.API_RATE_LIMIT = 1000
    helpers._RNG.seed(11)
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _hidden_card_audit(monkeypatch):
    """Every answer of the API in these tests goes through the hidden-card audit (tests/api/audit.py),
    streamed ones line by line as they are read; ``audited`` lists the paths it saw."""
    from asgiref.sync import sync_to_async

    from api import limits
    from tests.api import audit

    answer = limits._answer
    seen: list[str] = []

    def audited(view, request, *args, **kwargs):
        response = answer(view, request, *args, **kwargs)
        where, kind = request.get_full_path(), response.get("Content-Type", "")
        seen.append(where)
        if not response.streaming:
            audit.check(response.content, kind, where)
        elif response.is_async:
            check = sync_to_async(audit.check, thread_sensitive=True)
            response.streaming_content = audit.audited_async_stream(response.streaming_content, kind, where, check)
        else:
            response.streaming_content = audit.audited_stream(response.streaming_content, kind, where)
        return response

    monkeypatch.setattr(limits, "_answer", audited)
    return seen


@pytest.fixture
def one_window(monkeypatch):
    """The limit's clock stands still, 30 s into a 60-second window: a test's requests all fall into one
    window however slowly they run (a fixed window that ended between two of them would forget the count)."""
    from types import SimpleNamespace

    from api import limits

    monkeypatch.setattr(limits, "time", SimpleNamespace(time=lambda: 1_000_050.0))


@pytest.fixture
def people(django_user_model):
    return three_people(django_user_model)


def three_people(user_model) -> list:
    """anna, ben and cleo, each with a password of their own."""
    return [user_model.objects.create_user(n, f"{n}@example.org", "pw-" + n * 2) for n in ("anna", "ben", "cleo")]


def finished_match(users, *, capture, ranked: bool = False, target: int = 50, **table_kwargs) -> Match:
    """A gin match of ``users`` played out to its end (its end announced: ratings run)."""
    table = services.table_create_seated(game="gin", users=users, preset="klassisch", options={"target": target},
                                         ranked=ranked, **table_kwargs)
    with capture(execute=True):
        table = play_out(table.pk, users)
    return Match.objects.get(pk=table.current_match_id)


@pytest.fixture
def play(django_capture_on_commit_callbacks):
    def _play(users, **kwargs) -> Match:
        return finished_match(users, capture=django_capture_on_commit_callbacks, **kwargs)
    return _play


def make_private(match: Match) -> None:
    Table.objects.filter(pk=match.table_id).update(private=True)


@contextmanager
def connection_kept():
    """What Django's test client does around a request it serves: the request_started and request_finished a
    server sends run close_old_connections, which closes a connection that is inside a transaction (the test's).
    An in-memory SQLite database ignores that close; a file one (the suite's, once tests/browser is collected)
    and PostgreSQL do not, and every later query of the test fails."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def get_json(path: str, status: int = 200, **params):
    response = Client().get(path, params)
    assert response.status_code == status, (response.status_code, response.content[:300])
    return json.loads(response.content)
