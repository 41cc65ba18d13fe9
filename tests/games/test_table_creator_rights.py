"""Issue 25: someone who sat down at another person's open casual table could seat computer players there
(which starts the match) and call it off at once, so the table was gone from the lobby. Now only the
table's creator seats computer players, starts and calls the match off before its first move; a joiner
who leaves before the start just leaves (the table stays open); the creator leaving closes it."""

from __future__ import annotations

import pytest

from games import services
from games.models import Match, Seat, Table
from games.services import ServiceError

pytestmark = pytest.mark.django_db


def refused(call, **kwargs) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        call(**kwargs)
    return caught.value


def romme_table(creator, *joiners, seats=3) -> Table:
    table = services.table_create(user=creator, game="romme", preset="standard", options={"seats": seats})
    for joiner in joiners:
        services.table_join(table_id=table.pk, user=joiner)
    return Table.objects.get(pk=table.pk)


def test_a_joiner_cannot_seat_computer_players_or_start(players):
    anna, ben, cleo = players[:3]
    table = romme_table(anna, ben)
    error = refused(services.table_fill_with_bots, table_id=table.pk, user=ben, level="simple")
    assert error.code == "not_creator"
    assert error.message == "Nur wer den Tisch eröffnet hat (anna), kann hier Computergegner setzen."
    table = Table.objects.get(pk=table.pk)
    assert table.status == Table.Status.OPEN and not Seat.objects.filter(table=table).exclude(bot_level="").exists()
    services.table_join(table_id=table.pk, user=cleo)  # full: starts by itself, as before
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING
    # The creator seats computer players as before.
    own = romme_table(anna, ben)
    services.table_fill_with_bots(table_id=own.pk, user=anna, level="simple")
    assert Table.objects.get(pk=own.pk).status == Table.Status.PLAYING


def test_a_joiner_cannot_call_off_the_creators_match(players):
    anna, ben = players[:2]
    table = romme_table(anna, ben, seats=2)
    assert table.status == Table.Status.PLAYING
    error = refused(services.match_abort, table_id=table.pk, user=ben)
    assert error.code == "not_creator"
    assert "Vor dem ersten Zug abbrechen kann nur, wer den Tisch eröffnet hat (anna)." in error.message
    table = Table.objects.get(pk=table.pk)
    assert table.status == Table.Status.PLAYING and table.current_match.status == Match.Status.PLAYING
    services.match_abort(table_id=table.pk, user=anna)
    assert Table.objects.get(pk=table.pk).status == Table.Status.ABORTED


def test_at_a_ranked_table_each_player_may_call_off_and_it_is_their_abandon(players):
    anna, ben = players[:2]
    table = services.table_create(user=anna, game="gin", preset="klassisch", ranked=True)
    services.table_join(table_id=table.pk, user=ben)
    services.match_abort(table_id=table.pk, user=ben)
    match = Match.objects.get(table=table)
    assert match.status == Match.Status.ABORTED and match.left_seats == [1]


def test_a_joiner_who_leaves_just_leaves_and_the_creator_leaving_closes_the_table(players):
    anna, ben, cleo = players[:3]
    table = romme_table(anna, ben, cleo, seats=4)
    services.table_leave(table_id=table.pk, user=ben)
    table = Table.objects.get(pk=table.pk)
    assert table.status == Table.Status.OPEN
    assert list(Seat.objects.filter(table=table).order_by("index").values_list("user_id", flat=True)) == [
        anna.pk, None, cleo.pk, None]
    services.table_leave(table_id=table.pk, user=anna)
    assert Table.objects.get(pk=table.pk).status == Table.Status.ABORTED
