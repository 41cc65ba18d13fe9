"""Issue 25: someone who sat down at another person's open casual table could seat computer players there
(which starts the match) and call it off at once, so the table was gone from the lobby. Now only the
table's creator seats computer players and starts; calling the match off before its first move needs the
creator or everyone seated (anyone else's call is a proposal the table sees); a joiner who leaves before the
start just leaves (the table stays open); the creator leaving closes it."""

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


def test_a_joiners_call_to_abort_is_a_proposal_the_creator_accepts(players):
    anna, ben = players[:2]
    table = romme_table(anna, ben, seats=2)
    assert table.status == Table.Status.PLAYING
    version = table.version
    assert services.match_abort(table_id=table.pk, user=ben) is False
    table = Table.objects.get(pk=table.pk)
    assert table.status == Table.Status.PLAYING and table.current_match.status == Match.Status.PLAYING
    assert table.current_match.abort_votes == [1] and table.version == version + 1
    # Asking again changes nothing and says who decides.
    error = refused(services.match_abort, table_id=table.pk, user=ben)
    assert error.code == "abort_asked"
    assert "anna hat den Tisch eröffnet und muss zustimmen" in error.message
    assert Table.objects.get(pk=table.pk).version == version + 1
    assert services.match_abort(table_id=table.pk, user=anna) is True
    assert Table.objects.get(pk=table.pk).status == Table.Status.ABORTED
    assert Match.objects.get(table=table).left_seats == [0]


def test_the_proposal_is_in_every_seats_frame(players):
    from django.contrib.auth.models import AnonymousUser

    from games.reads import selectors

    anna, ben, cleo = players[:3]
    table = romme_table(anna, ben, cleo, seats=3)
    services.match_abort(table_id=table.pk, user=cleo)
    for viewer in (anna, ben, cleo, AnonymousUser()):
        assert selectors.table_state_for(table_id=table.pk, user=viewer)["table"]["match"]["abort_votes"] == [2]


def test_without_its_creator_at_the_table_calling_off_needs_everyone_seated(players):
    anna, ben, cleo, dora = players[:4]
    table = romme_table(anna, ben, cleo, seats=3)
    Table.objects.filter(pk=table.pk).update(created_by=dora)  # opened by someone who is not playing
    assert services.match_abort(table_id=table.pk, user=ben) is False
    assert services.match_abort(table_id=table.pk, user=anna) is False
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING
    assert services.match_abort(table_id=table.pk, user=cleo) is True
    assert Table.objects.get(pk=table.pk).status == Table.Status.ABORTED


def test_computer_players_agree_to_call_off(players):
    anna, ben, dora = players[:3]
    table = romme_table(anna, ben, seats=3)
    services.table_fill_with_bots(table_id=table.pk, user=anna, level="simple")
    Table.objects.filter(pk=table.pk).update(created_by=dora)
    assert services.match_abort(table_id=table.pk, user=ben) is False
    assert services.match_abort(table_id=table.pk, user=anna) is True


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
