"""ginsite.postgresql: a persistent connection is health-checked at most once a second, not before every
socket's database call (each of which Django counts as a request)."""

from __future__ import annotations

import pytest
from django.db import close_old_connections, connection

from ginsite.postgresql import base

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's backend (CI's second run)")


def calls(monkeypatch) -> list[int]:
    checks: list[int] = []
    real = base.DatabaseWrapper.is_usable

    def counted(self):
        checks.append(1)
        return real(self)

    monkeypatch.setattr(base.DatabaseWrapper, "is_usable", counted)
    return checks


def one_request() -> None:
    close_old_connections()  # what channels' database_sync_to_async does around every call
    with connection.cursor() as cursor:
        cursor.execute("SELECT 2")


@pytest.mark.django_db(transaction=True)
def test_calls_within_a_second_of_a_check_are_not_checked_again(monkeypatch, settings):
    assert connection.settings_dict["CONN_HEALTH_CHECKS"]
    checks = calls(monkeypatch)
    clock = [1000.0]
    monkeypatch.setattr(base.time, "monotonic", lambda: clock[0])
    one_request()
    connection._checked_at = clock[0] - 5  # the last check long ago
    one_request()
    assert len(checks) == 1  # checked: the last check was more than a second ago
    for _ in range(20):
        clock[0] += 0.04
        one_request()
    assert len(checks) == 1  # 0.8 s of calls: none checked again
    clock[0] += 0.5
    one_request()
    assert len(checks) == 2  # past the second: checked again


@pytest.mark.django_db(transaction=True)
def test_a_connection_that_failed_its_check_is_replaced(monkeypatch):
    one_request()
    old = connection.connection
    connection._checked_at = float("-inf")
    monkeypatch.setattr(base.DatabaseWrapper, "is_usable", lambda self: False)
    one_request()
    assert connection.connection is not old  # closed and connected anew
