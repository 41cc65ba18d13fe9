"""Stored data keeps working across the schema's changes."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor


@pytest.mark.django_db(transaction=True)
def test_stored_romme_tables_get_the_scoring_option_from_the_old_tournament_flag():
    executor = MigrationExecutor(connection)
    before = [("games", "0002_match_ending_and_tournament_tables")]
    executor.migrate(before)
    old_apps = executor.loader.project_state(before).apps
    Table = old_apps.get_model("games", "Table")
    masters = Table.objects.create(game="romme", options={"tournament": True, "rounds": 12}, seat_count=4)
    casual = Table.objects.create(game="romme", options={"tournament": False}, seat_count=4)
    gin = Table.objects.create(game="gin", options={"target": 100}, seat_count=2)

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    from games.models import Table as NewTable

    assert NewTable.objects.get(pk=masters.pk).options == {"scoring": "masters", "rounds": 12}
    assert NewTable.objects.get(pk=casual.pk).options == {"scoring": "casual"}
    assert NewTable.objects.get(pk=gin.pk).options == {"target": 100}
