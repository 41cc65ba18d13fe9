"""The table's state, written whole by every move and never looked into by a query, is PostgreSQL's ``json``
(kept as written) compressed with lz4, not ``jsonb`` with pglz (``games.models.WholeJSONField``, migration
0013): what a move writes and reads back is the same object either way, and a missing state stays SQL NULL."""

from __future__ import annotations

import pytest
from django.db import connection

from games import registry, services
from games.models import Table
from games.services._course import _TABLE_UPDATE
from tests.games.helpers import choose_action, state_of

on_postgresql = pytest.mark.skipif(connection.vendor != "postgresql", reason="json, jsonb and lz4 are PostgreSQL's")


def _playing(players) -> Table:
    table = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
    services.table_join(table_id=table.pk, user=players[1])
    return Table.objects.get(pk=table.pk)


@on_postgresql
@pytest.mark.django_db
def test_the_state_column_is_json_compressed_with_lz4_where_the_server_has_it():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT format_type(atttypid, atttypmod), attcompression FROM pg_attribute"
            " WHERE attrelid = 'games_table'::regclass AND attname = 'state'")
        kind, compression = cursor.fetchone()
        cursor.execute("SELECT current_setting('server_version_num')::int")
        version = cursor.fetchone()[0]
    assert kind == "json"
    if version >= 140000:
        assert compression == "l"  # Debian's PostgreSQL is built with lz4; a server without it keeps its default


@pytest.mark.django_db
def test_a_moves_state_reads_back_as_it_was_written_through_every_read(players):
    """The state after moves, as the move's own update writes it (``_TABLE_UPDATE``), read back by the model, by
    ``values_list`` (the frames' reads) and by the locked read of the next move: the same object each time."""
    table = _playing(players)
    for _ in range(6):
        table = Table.objects.get(pk=table.pk)
        state = state_of(table)
        action = choose_action(registry.get(table.game).engine.view(state, state.to_act))
        services.move_apply(table_id=table.pk, user=players[state.to_act], version=table.version, action=action)
    written = Table.objects.get(pk=table.pk).state
    assert isinstance(written, dict) and written
    assert Table.objects.filter(pk=table.pk).values_list("state", flat=True).get() == written
    table = Table.objects.get(pk=table.pk)
    table.state = {**written, "a-key": ["ä", 1, None, {"deep": True}]}
    assert _TABLE_UPDATE.update(table, ["state"]) == 1
    assert Table.objects.get(pk=table.pk).state == table.state
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:  # stored as written: json keeps the text, jsonb would reorder keys
            cursor.execute("SELECT state::text, pg_typeof(state)::text FROM games_table WHERE id = %s", [table.pk])
            text, kind = cursor.fetchone()
        assert kind == "json" and text.endswith('"a-key": ["\\u00e4", 1, null, {"deep": true}]}')


@pytest.mark.django_db
def test_a_table_without_a_state_stores_sql_null(players):
    table = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
    assert Table.objects.filter(pk=table.pk, state__isnull=True).exists()
    assert Table.objects.get(pk=table.pk).state is None
