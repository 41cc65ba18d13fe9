"""The table row's state is compressed with lz4 on PostgreSQL (migration ``0013_table_state_lz4``): every move
writes it anew, and lz4 costs the database a fraction of pglz's CPU. Its storage stays ``EXTENDED`` (a state
too large even compressed goes out of line), and the migration goes back to the server's default."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from games import registry, services
from games.models import Table
from tests.games.helpers import choose_action, state_of

on_postgresql = pytest.mark.skipif(connection.vendor != "postgresql", reason="column compression is PostgreSQL's")


def _column() -> tuple[str, str]:
    """``games_table.state``'s storage and compression as the catalog has them (``x`` extended, ``l`` lz4,
    ``''`` the server's default)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT attstorage, attcompression FROM pg_attribute "
                       "WHERE attrelid = 'games_table'::regclass AND attname = 'state'")
        return cursor.fetchone()


@on_postgresql
@pytest.mark.django_db
def test_the_state_column_is_lz4_and_extended():
    assert _column() == ("x", "l")


@on_postgresql
@pytest.mark.django_db
def test_a_moves_state_is_written_lz4_compressed(players):
    """Once the state is large enough for PostgreSQL to compress it (a row past ~2 KB), the move writes it
    with lz4."""
    table = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
    services.table_join(table_id=table.pk, user=players[1])
    for _ in range(3000):
        table = Table.objects.get(pk=table.pk)
        if len(json.dumps(table.state)) > 6000 or table.status != Table.Status.PLAYING:
            break
        state = state_of(table)
        if state.to_act is None:
            for user in players[:2]:
                services.round_ready(table_id=table.pk, user=user)
            continue
        action = choose_action(registry.get("gin").engine.view(state, state.to_act))
        services.move_apply(table_id=table.pk, user=players[state.to_act], version=table.version, action=action)
    assert len(json.dumps(table.state)) > 6000, "the match grew a state worth compressing"
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_column_compression(state) FROM games_table WHERE id = %s", [table.pk])
        assert cursor.fetchone()[0] == "lz4"


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_the_migration_goes_back_to_the_default_and_forward_again():
    executor = MigrationExecutor(connection)
    executor.migrate([("games", "0012_move_match_index")])
    assert _column() == ("x", "")
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert _column() == ("x", "l")
