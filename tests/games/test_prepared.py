"""A move's reads compiled once (games.reads.prepared): the same rows, objects and errors as the queryset."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.transaction import TransactionManagementError

from games import services
from games.models import Seat, Table
from games.reads.prepared import Prepared
from games.services import _common


@pytest.fixture
def table(players) -> Table:
    made = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
    services.table_join(table_id=made.pk, user=players[1])
    return Table.objects.get(pk=made.pk)


def _fields(obj) -> dict:
    return {name: value for name, value in obj.__dict__.items() if not name.startswith("_")}


@pytest.mark.django_db(transaction=True)
def test_the_locked_read_gives_what_the_queryset_gives(table):
    with transaction.atomic():
        prepared = _common.locked_table(table.pk)
        plain = (Table.objects.select_for_update(of=("self",))
                 .select_related("current_match", "current_round", "last_round")
                 .defer(*_common._ROUND_COLUMNS_UNREAD).get(pk=table.pk))
    assert _fields(prepared) == _fields(plain)
    assert isinstance(prepared.state, dict) and prepared.state == plain.state  # the JSON column decoded
    assert prepared.current_match == plain.current_match and prepared.current_round == plain.current_round
    assert _fields(prepared.current_match) == _fields(plain.current_match)
    assert _fields(prepared.current_round) == _fields(plain.current_round)
    # The rounds' records stay deferred, as the queryset's .defer() leaves them.
    assert prepared.current_round.get_deferred_fields() == plain.current_round.get_deferred_fields() != set()


@pytest.mark.django_db(transaction=True)
def test_the_seats_come_in_order_with_their_users(table, players):
    seats = _common.seats_of(table)
    assert [seat.index for seat in seats] == [0, 1]
    assert [seat.user.username for seat in seats] == [players[0].username, players[1].username]
    assert all(seat.table is table for seat in seats)
    assert [_fields(s) for s in seats] == [_fields(s) for s in Seat.objects.filter(table=table).order_by("index")]


@pytest.mark.django_db(transaction=True)
def test_each_call_reads_its_own_table(players):
    tables = [services.table_create(user=players[0], game="gin", preset="klassisch", options={}) for _ in range(3)]
    with transaction.atomic():
        assert [_common.locked_table(t.pk).pk for t in reversed(tables)] == [t.pk for t in reversed(tables)]
    with pytest.raises(services.ServiceError) as missing, transaction.atomic():
        _common.locked_table(max(t.pk for t in tables) + 1000)
    assert missing.value.code == "no_table"


@pytest.mark.django_db(transaction=True)
def test_a_locking_read_outside_a_transaction_is_refused_on_every_database(table):
    with pytest.raises(TransactionManagementError):
        _common.locked_table(table.pk)


def test_every_marker_must_be_among_the_parameters():
    unused = Prepared(lambda pk, other: Table.objects.filter(pk=pk), -5, -6)
    with pytest.raises(AssertionError):
        unused._compile("default")


@pytest.mark.django_db(transaction=True)
def test_a_prepared_insert_writes_the_row_create_would(table):
    from games.models import Move
    from games.services._writes import PreparedInsert

    match = table.current_match
    action = {"action": "draw", "from": "stock", "note": "ä ♥"}
    made = Move(table=table, match=match, round_number=1, seq=900, seat=1, action=action, by=Move.By.PLAYER, version=77)
    PreparedInsert(Move).insert(made)
    created = Move.objects.create(table=table, match=match, round_number=1, seq=901, seat=1, action=action,
                                  by=Move.By.PLAYER, version=77)
    first, second = Move.objects.filter(match=match, seq__in=(900, 901)).order_by("seq")
    assert made.created_at is not None  # auto_now_add, as save() sets it
    assert first.action == second.action == action and first.by == second.by and first.version == second.version == 77
    assert first.table_id == second.table_id == table.pk and first.seat == second.seat == 1
    assert abs((second.created_at - first.created_at).total_seconds()) < 5 and created.pk != first.pk
    with pytest.raises(IntegrityError), transaction.atomic():  # the unique (match, seq) refuses a move logged twice
        PreparedInsert(Move).insert(Move(table=table, match=match, round_number=1, seq=900, seat=1,
                                         action=action, by=Move.By.PLAYER, version=78))


@pytest.mark.django_db(transaction=True)
def test_the_locked_row_and_its_seats_come_together_as_each_read_alone(table):
    """``locked_table_and_seats``: on PostgreSQL one round trip (pipeline mode), elsewhere two reads; either
    way the very rows ``locked_table`` and ``seats_of`` give, and an unknown table refused as they refuse it."""
    with transaction.atomic():
        locked, seats = _common.locked_table_and_seats(table.pk)
        alone = _common.seats_of(locked)
        assert locked.pk == table.pk and locked.version == table.version
        assert locked.current_match_id == table.current_match_id and locked.state == table.state
        assert [(s.pk, s.index, s.user_id, s.user.username) for s in seats] == [
            (s.pk, s.index, s.user_id, s.user.username) for s in alone]
        assert all(seat.table is locked for seat in seats)
    with pytest.raises(services.ServiceError) as missing, transaction.atomic():
        _common.locked_table_and_seats(table.pk + 1000)
    assert missing.value.code == "no_table"


@pytest.mark.skipif(connection.vendor != "postgresql" or settings.DATABASE_POOL_MODE != "session",
                    reason="prepared statements: PostgreSQL, where a connection keeps its server connection")
@pytest.mark.django_db(transaction=True)
def test_a_moves_statements_are_planned_once_per_connection(table, players):
    """Where the connection keeps its server connection (``DATABASE_POOL_MODE=session``, the default and the
    tests'), the statements of a move and of a handshake batch are prepared the second time the connection runs
    them: PostgreSQL plans them once per connection, not on every move. Django's own queries are not."""
    from games.web import handshakes
    from tests.games.helpers import one_move

    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")
    connection.connection._prepared.clear()  # psycopg's own record of what it prepared, as a new connection's
    for _ in range(3):
        one_move(table.pk, players)
    for _ in range(2):
        handshakes._open_batch([handshakes._Request({"user": players[0]}, table.pk, "", None)])
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE NOT from_sql")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any('FROM "games_table"' in sql and "FOR UPDATE" in sql for sql in prepared), prepared  # the locked read
    assert any('FROM "games_seat"' in sql for sql in prepared)  # its seats
    assert any(sql.startswith("WITH logged AS (INSERT") for sql in prepared)  # the log row and the table row
    assert any('FROM "games_chatmessage"' in sql for sql in prepared)  # a handshake batch's read of the chat
    assert not any('"games_table"."id" = ' in sql and "FOR UPDATE" not in sql and "ANY" not in sql
                   for sql in prepared)  # Table.objects.get above: Django's, bound on the client
