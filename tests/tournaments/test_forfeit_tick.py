"""The gin forfeit rule on the referee's tick (tournaments.md): who never moved themselves ``forfeit_minutes``
after the start, while the server already moved for them, loses; the database picks those tables, so a tick
before anyone is due reads no table's state (it runs every second beside the moves)."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import registry
from games import services as games_services
from games.models import Table
from tests.games.helpers import choose_action, state_of
from tests.tournaments.helpers import started, users_of
from tournaments import selectors as tournament_selectors
from tournaments import services as tournament_services
from tournaments.models import AuditEntry

pytestmark = pytest.mark.django_db(transaction=True)


def _own_move(table_id, users):
    table = Table.objects.get(pk=table_id)
    state = state_of(table)
    seat = state.to_act
    view = registry.get(table.game).engine.view(state, seat)
    games_services.move_apply(table_id=table_id, user=users[seat], version=table.version, action=choose_action(view))
    return seat


def _time_out(table_id):
    table = Table.objects.get(pk=table_id)
    seat = state_of(table).to_act
    assert games_services.turn_timeout(table_id=table_id, now=table.turn_deadline + timedelta(seconds=1))
    return seat


@pytest.fixture
def two_tables(staff, make_players):
    t = started(staff, make_players(4), name="Forfeit-Uhr", game="gin", format="swiss",
                settings={"rounds": 1, "forfeit_minutes": 5, "check_in_minutes": 0, "break_minutes": 0},
                options={"target": 0})
    rows = [r for r in tournament_selectors.tournament_tables(tournament_id=t.pk) if r["table"] is not None]
    assert len(rows) == 2
    return t, rows


def test_forfeit_only_the_seat_that_never_moved_itself_while_the_server_moved_for_it(two_tables):
    t, (gone, back) = two_tables
    absent = _time_out(gone["table"])
    # At the other table the seat the server moved for comes back and moves itself before the minutes are up.
    late = _time_out(back["table"])
    users = users_of(back["users"])
    for _ in range(20):
        if _own_move(back["table"], users) == late:
            break
    else:
        raise AssertionError("the late seat never got its turn back")
    started_at = max(Table.objects.get(pk=r["table"]).current_match.started_at for r in (gone, back))

    tournament_services.tournaments_tick(now=started_at + timedelta(minutes=4))
    assert Table.objects.get(pk=gone["table"]).status == Table.Status.PLAYING  # not yet: 5 minutes

    tournament_services.tournaments_tick(now=started_at + timedelta(minutes=5, seconds=1))
    assert Table.objects.get(pk=gone["table"]).status != Table.Status.PLAYING
    assert Table.objects.get(pk=back["table"]).status == Table.Status.PLAYING
    forfeits = AuditEntry.objects.filter(tournament=t, action="forfeit")
    assert [e.details["user_id"] for e in forfeits] == [gone["users"][absent]]


def test_a_tick_before_anyone_is_due_reads_no_table_state(two_tables):
    _t, (gone, _back) = two_tables
    _time_out(gone["table"])  # a no-show, but the minutes are not up
    started_at = Table.objects.get(pk=gone["table"]).current_match.started_at
    with CaptureQueriesContext(connection) as queries:
        tournament_services.tournaments_tick(now=started_at + timedelta(minutes=1))
    state_column = f'{connection.ops.quote_name("games_table")}.{connection.ops.quote_name("state")}'
    read = [q["sql"] for q in queries.captured_queries if state_column in q["sql"]]
    assert read == []
    assert Table.objects.get(pk=gone["table"]).status == Table.Status.PLAYING
