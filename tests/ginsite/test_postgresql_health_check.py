"""ginsite.postgresql: a persistent connection is health-checked at most once a second, not before every
socket's database call (each of which Django counts as a request)."""

from __future__ import annotations

import contextlib

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


@contextlib.contextmanager
def _a_seats_column_retyped_by_another_process():
    """As a deploy's migration run by another process: a column the seats' reads return changes its type (and
    back afterwards)."""
    import psycopg

    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as other:
        other.execute("ALTER TABLE games_seat ALTER COLUMN consecutive_timeouts TYPE integer")
    try:
        yield
    finally:
        with psycopg.connect(**params, autocommit=True) as other:
            other.execute("ALTER TABLE games_seat ALTER COLUMN consecutive_timeouts TYPE smallint")


@pytest.mark.django_db(transaction=True)
def test_a_prepared_statement_made_stale_by_another_process_fails_once_then_is_prepared_anew(players):
    """A move's locked read is prepared on this connection; another process (a deploy's migration) changes the
    type of a column it returns. PostgreSQL then refuses the prepared statement ("cached plan must not change
    result type"): the move after it fails, its transaction's ROLLBACK makes psycopg forget the connection's
    prepared statements, and the next move is prepared anew and plays."""
    from django.conf import settings

    from games import services
    from tests.games.helpers import one_move

    if settings.DATABASE_POOL_MODE != "session":
        pytest.skip("nothing is prepared behind transaction pooling")
    table = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
    services.table_join(table_id=table.pk, user=players[1])

    def move() -> None:
        one_move(table.pk, players)

    for _ in range(3):
        one_request()
        move()
    with _a_seats_column_retyped_by_another_process():
        one_request()
        with pytest.raises(Exception, match="cached plan must not change result type"):
            move()
        one_request()
        move()  # prepared anew
        one_request()
        move()


@pytest.mark.django_db(transaction=True)
def test_a_stale_prepared_read_outside_a_transaction_fails_once_then_is_prepared_anew(players):
    """The same for a read outside a transaction (a handshake batch's), after which no ROLLBACK comes (at a
    ROLLBACK psycopg forgets its prepared statements by itself): without the backend's ``DEALLOCATE ALL`` the
    stale statement failed on every call after the migration (checked)."""
    from django.conf import settings

    from games import services
    from games.models import Seat
    from games.reads.prepared import MARK, Prepared

    if settings.DATABASE_POOL_MODE != "session":
        pytest.skip("nothing is prepared behind transaction pooling")
    seats = Prepared(lambda table_id: Seat.objects.filter(table_id=table_id), MARK)
    table = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
    for _ in range(3):
        one_request()
        assert len(seats.fetch(table.pk)) == 2
    with _a_seats_column_retyped_by_another_process():
        one_request()
        with pytest.raises(Exception, match="cached plan must not change result type"):
            seats.fetch(table.pk)
        for _ in range(2):
            one_request()
            assert len(seats.fetch(table.pk)) == 2
