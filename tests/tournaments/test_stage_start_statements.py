"""What a stage start costs the database: a gin Swiss of 20 players (10 tables) and one of 80 (40 tables)
start with the same statements, counted with ``CaptureQueriesContext`` (a count, not a timing: a regression
fails on any machine). Before the bulk seating each table cost ~15 statements of its own. Run with ``-s`` to
see them."""

from __future__ import annotations

from collections import Counter

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Match, Round, Seat, Table
from tournaments import selectors as tournament_selectors
from tournaments import services as tournament_services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT")


def _registered(staff, django_user_model, players: int, prefix: str) -> Tournament:
    users = django_user_model.objects.bulk_create(
        [django_user_model(username=f"{prefix}{i:03d}", email=f"{prefix}{i:03d}@example.org") for i in range(players)]
    )
    t = tournament_services.tournament_create(by=staff, name=f"Schweizer {prefix}", game="gin", format="swiss",
                                              settings={"check_in_minutes": 0, "min_players": 2})
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    for user in users:
        tournament_services.tournament_register(tournament_id=t.pk, user=user)
    return t


def _kinds(captured) -> Counter:
    """(verb, table) of each data statement: what the count is made of."""
    kinds: Counter = Counter()
    for query in captured:
        sql = query["sql"]
        if sql.upper().startswith(_CONTROL):
            continue
        verb = sql.split(None, 1)[0].upper()
        if verb == "SELECT":
            target = sql.split(" FROM ", 1)[1].split()[0] if " FROM " in sql else "-"
        elif verb == "INSERT":
            target = sql.split()[2]
        else:
            target = sql.split()[1] if verb == "UPDATE" else sql.split()[2]
        kinds[(verb, target.strip('"'))] += 1
    return kinds


def test_a_stage_of_40_tables_starts_with_the_statements_of_a_stage_of_10(staff, django_user_model):
    counts = {}
    for players, prefix in ((20, "a"), (80, "b")):
        t = _registered(staff, django_user_model, players, prefix)
        with CaptureQueriesContext(connection) as captured:
            tournament_services.tournament_start(tournament_id=t.pk, by=staff)
        counts[players] = _kinds(captured)
        rows = tournament_selectors.tournament_tables(tournament_id=t.pk)
        tables = [row["table"] for row in rows]
        assert len(tables) == players // 2 and None not in tables
        assert Table.objects.filter(pk__in=tables, status=Table.Status.PLAYING, tournament=True).count() == players // 2
        assert Seat.objects.filter(table_id__in=tables).count() == players
        assert Match.objects.filter(table_id__in=tables).count() == Round.objects.filter(
            match__table_id__in=tables).count() == players // 2
    print("\n".join(f"{verb} {table}: {counts[20][verb, table]} / {counts[80][verb, table]}"
                    for verb, table in sorted(counts[80])))
    assert counts[20] == counts[80]
    # The tables, their seats, matches, players and first rounds: one INSERT each, whatever the stage's size.
    for table in ("games_table", "games_seat", "games_match", "games_round"):
        assert counts[80]["INSERT", table] == 1, table
    assert sum(counts[80].values()) < 60
