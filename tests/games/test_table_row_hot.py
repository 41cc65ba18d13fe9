"""An ordinary move rewrites its table row in place: no index of ``games_table`` names a column a move
changes, so on PostgreSQL the row's update is a HOT update (the new version on the same page, no index
entry written). The move log's row, inserted with every move, has no index it does not need.

The referee still finds every overdue table without an index of the clocks: ``tables_due`` reads the playing
tables through ``table_playing_idx`` and compares their clocks in the rows (``test_services_referee``)."""

from __future__ import annotations

import pytest
from django.db import connection

from games import registry, services
from games.models import Move, Table
from tests.games.helpers import choose_action, state_of

on_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="HOT updates, fillfactor and the statistics views are PostgreSQL's"
)

#: The columns of the table row an ordinary move writes (``tests/games/test_move_statements.py`` holds a move
#: to them), and the computer player's clock, which a computer player's every move sets.
MOVE_COLUMNS = {"version", "state", "turn_deadline", "bot_due_at", "moves_logged", "updated_at"}


def _table(players) -> Table:
    table = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
    services.table_join(table_id=table.pk, user=players[1])
    return Table.objects.get(pk=table.pk)


def _updates() -> tuple[int, int]:
    """``games_table``'s updates and HOT updates so far, this backend's pending counts included."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_force_next_flush()")  # flushed when this backend next goes idle (PG 15+)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'games_table'")
        upd, hot = cursor.fetchone()
    return upd, hot


@pytest.mark.django_db
def test_no_index_of_the_table_row_names_a_column_a_move_changes():
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, Table._meta.db_table)
    indexed = {(name, column) for name, info in constraints.items() if info["index"] or info["unique"]
               for column in info["columns"] or []}
    assert not {(name, column) for name, column in indexed if column in MOVE_COLUMNS}
    # A partial index's condition counts too: a change of its column moves the row in or out of the index.
    conditions = {name for index in Table._meta.indexes if index.condition is not None
                  for name, _value in index.condition.children}
    assert conditions == {"status"}
    assert "table_playing_idx" in constraints


@pytest.mark.django_db
def test_the_move_log_has_no_index_of_the_match_beside_its_unique_seq():
    """Every look-up of moves by match goes through ``move_unique_seq`` (match, seq); an index of ``match_id``
    alone would be one more entry written with every move."""
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, Move._meta.db_table)
    by_columns = sorted(info["columns"] for info in constraints.values() if info["index"] or info["unique"])
    assert ["match_id"] not in by_columns
    assert ["match_id", "seq"] in by_columns


@on_postgresql
@pytest.mark.django_db(transaction=True)  # each move commits, as in production: the statistics count commits
def test_an_ordinary_move_updates_the_table_row_as_a_hot_update(players):
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('server_version_num')::int")
        if cursor.fetchone()[0] < 150000:
            pytest.skip("pg_stat_force_next_flush() needs PostgreSQL 15")
    table = _table(players)
    upd_before, hot_before = _updates()
    moves = 0
    for _ in range(8):
        table = Table.objects.get(pk=table.pk)
        state = state_of(table)
        action = choose_action(registry.get(table.game).engine.view(state, state.to_act))
        services.move_apply(table_id=table.pk, user=players[state.to_act], version=table.version, action=action)
        moves += 1
        assert state_of(Table.objects.get(pk=table.pk)).to_act is not None  # the round goes on: ordinary moves
    upd_after, hot_after = _updates()
    assert upd_after - upd_before == moves
    # Each move's new version goes on the row's page, where the versions before it are pruned when the page
    # runs short of room. Pruning is opportunistic: it needs the page's cleanup lock (no other process pinning
    # the page at that moment: the background writer, autovacuum) and no snapshot older than the dead versions
    # (a second session holding a REPEATABLE READ snapshot made exactly one of the eight go to another page).
    # Either can be missing for a moment, so one version may go elsewhere: a strict "all eight" failed on a
    # clean CI machine with no snapshot left. Without the change, none of them was HOT (the turn's deadline
    # was indexed).
    assert hot_after - hot_before >= moves - 1


@on_postgresql
@pytest.mark.django_db
def test_the_row_leaves_room_for_its_next_version_and_keeps_a_big_state_out_of_line():
    """The new version of a row goes on its page only if there is room: inserts leave 40 % of a page free
    (fillfactor 60). A big match state stays out of line (TOAST, the column's default ``EXTENDED``): kept in
    the row (``STORAGE MAIN``), a state of ~17 KB made rows of ~4.6 KB, two versions of which do not fit a
    page, so no update of them was HOT (``bench.table_row``)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT attstorage FROM pg_attribute "
                       "WHERE attrelid = 'games_table'::regclass AND attname = 'state'")
        storage = cursor.fetchone()[0]
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'games_table'")
        options = cursor.fetchone()[0]
    assert storage == "x"
    assert "fillfactor=60" in options
