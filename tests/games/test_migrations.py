"""Stored data keeps working across the schema's changes."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrated_back_to(name: str):
    """The database migrated back to the games app's migration ``name``; the models as they were then."""
    executor = MigrationExecutor(connection)
    before = [("games", name)]
    executor.migrate(before)
    return executor.loader.project_state(before).apps


def migrated_to_the_latest() -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_stored_romme_tables_get_the_scoring_option_from_the_old_tournament_flag():
    old_apps = migrated_back_to("0002_match_ending_and_tournament_tables")
    Table = old_apps.get_model("games", "Table")
    masters = Table.objects.create(game="romme", options={"tournament": True, "rounds": 12}, seat_count=4)
    casual = Table.objects.create(game="romme", options={"tournament": False}, seat_count=4)
    gin = Table.objects.create(game="gin", options={"target": 100}, seat_count=2)

    migrated_to_the_latest()

    from games.models import Table as NewTable

    assert NewTable.objects.get(pk=masters.pk).options == {"scoring": "masters", "rounds": 12}
    assert NewTable.objects.get(pk=casual.pk).options == {"scoring": "casual"}
    assert NewTable.objects.get(pk=gin.pk).options == {"target": 100}


@pytest.mark.django_db(transaction=True)
def test_a_romme_resignation_between_rounds_is_added_to_its_rounds_stored_record_once():
    old_apps = migrated_back_to("0012_move_match_index")
    Table, Match = old_apps.get_model("games", "Table"), old_apps.get_model("games", "Match")
    Round, Move = old_apps.get_model("games", "Round"), old_apps.get_model("games", "Move")
    table = Table.objects.create(game="romme", options={"rounds": 3}, seat_count=3)
    match = Match.objects.create(table=table, game="romme")
    draw, discard = {"seat": 0, "action": "draw", "from": "stock"}, {"seat": 0, "action": "discard", "card": "KS"}
    mid = {"seat": 1, "action": "resign"}
    first = Round.objects.create(match=match, number=1, deal_hash="a" * 64, record={"dealer": 2, "moves": [draw, discard]})
    second = Round.objects.create(match=match, number=2, deal_hash="b" * 64, record={"dealer": 0, "moves": [draw, mid]})
    third = Round.objects.create(match=match, number=3, deal_hash="c" * 64)  # in play: no record yet
    logged = [(1, 0, draw), (1, 0, discard), (1, 2, {"action": "resign"}), (2, 0, draw), (2, 1, {"action": "resign"}),
              (3, 0, {"action": "resign"})]
    for seq, (number, seat, action) in enumerate(logged):
        Move.objects.create(table=table, match=match, round_number=number, seq=seq, seat=seat,
                            action={k: v for k, v in action.items() if k != "seat"}, version=seq + 1)
    gin_table = Table.objects.create(game="gin", options={}, seat_count=2)
    gin_match = Match.objects.create(table=gin_table, game="gin")
    gin_round = Round.objects.create(match=gin_match, number=1, deal_hash="d" * 64, record={"dealer": 0, "moves": []})
    Move.objects.create(table=gin_table, match=gin_match, round_number=1, seq=0, seat=0, action={"action": "resign"},
                        version=1)

    migrated_to_the_latest()

    from games.models import Round as NewRound

    # Between rounds 1 and 2: added at the end of round 1's record. In the middle of round 2: there already.
    assert NewRound.objects.get(pk=first.pk).record["moves"] == [draw, discard, {"seat": 2, "action": "resign"}]
    assert NewRound.objects.get(pk=second.pk).record["moves"] == [draw, mid]
    assert NewRound.objects.get(pk=third.pk).record is None
    assert NewRound.objects.get(pk=gin_round.pk).record["moves"] == []  # gin notes a resignation elsewhere
