"""Deleting an account leaves the live tables cleanly: open seats are given up, running matches resigned."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import registry, services
from games.models import Match, Move, Seat, Table
from tests.games.helpers import choose_action, state_of

pytestmark = pytest.mark.django_db


def delete_account(user, password: str | None = None):
    """Delete ``user``'s account through the real deletion page, as the player would."""
    client = Client()
    client.force_login(user)
    password = password or "pw-" + user.username * 2
    response = client.post(reverse("accounts:delete"), {"password": password, "confirm": "on"}, follow=True)
    user.refresh_from_db()
    return response


def assert_deleted(response, user) -> None:
    assert "Dein Konto wurde gelöscht." in response.content.decode()
    assert not user.is_active and user.username == f"geloescht_{user.pk}"


def gin_table(first, second) -> Table:
    table = services.table_create(user=first, game="gin", preset="klassisch", options={})
    services.table_join(table_id=table.pk, user=second)
    return Table.objects.get(pk=table.pk)


def play_moves(table: Table, users: list, count: int) -> Table:
    """A few moves of the people at the table, so the match is well under way."""
    for _ in range(count):
        seat = state_of(table).to_act
        view = registry.get(table.game).engine.view(state_of(table), seat)
        services.move_apply(table_id=table.pk, user=users[seat], version=table.version, action=choose_action(view))
        table = Table.objects.get(pk=table.pk)
    return table


def referee_plays_out(table_id: int) -> Table:
    """Only computer players are left: the referee plays on, its clock running ahead past every pause."""
    moment = timezone.now()
    for _ in range(3000):
        table = Table.objects.get(pk=table_id)
        if table.status != Table.Status.PLAYING:
            return table
        moment += timedelta(seconds=services.ROUND_BREAK_SECONDS + 1)
        assert services.referee_pass(now=moment) >= 1
    raise AssertionError("the table did not finish")


def test_deleting_an_account_gives_up_the_seat_at_an_open_table(players):
    anna, ben = players[:2]
    shared = services.table_create(user=ben, game="romme", preset="standard", options={"seats": 3})
    services.table_join(table_id=shared.pk, user=anna)
    alone = services.table_create(user=anna, game="gin", preset="klassisch", options={})
    version = Table.objects.get(pk=shared.pk).version

    response = delete_account(anna)

    assert_deleted(response, anna)
    shared = Table.objects.get(pk=shared.pk)
    assert shared.status == Table.Status.OPEN and shared.version == version + 1
    assert list(shared.seats.values_list("user_id", flat=True)) == [ben.pk, None, None]
    # Nobody is left at the table she opened alone: it is called off, not left open for a ghost.
    assert Table.objects.get(pk=alone.pk).status == Table.Status.ABORTED
    assert not Seat.objects.filter(user=anna).exists()


def test_deleting_an_account_mid_match_resigns_and_the_gin_opponent_wins(players):
    anna, ben = players[:2]
    table = play_moves(gin_table(anna, ben), [anna, ben], 4)
    match = table.current_match
    anna_seat = table.seats.get(user=anna).index

    response = delete_account(anna)

    assert_deleted(response, anna)
    table = Table.objects.get(pk=table.pk)
    match.refresh_from_db()
    assert table.status == Table.Status.FINISHED and table.turn_deadline is None
    assert match.status == Match.Status.FINISHED and match.finished_at is not None
    assert match.winner == ben and match.winner_seat == 1 - anna_seat and match.left_seats == [anna_seat]
    assert match.result["places"][1 - anna_seat] == 1
    resign = Move.objects.filter(match=match).order_by("-seq").first()
    assert (resign.seat, resign.action, resign.by) == (anna_seat, {"action": "resign"}, Move.By.RESIGN)
    # The match is over for ben too: nothing to wait for, and no rematch with a deleted player.
    with pytest.raises(services.ServiceError) as refused:
        services.match_rematch(table_id=table.pk, user=ben)
    assert refused.value.code == "seat_left"


def test_deleting_an_account_leaves_a_romme_list_to_the_computer_players(players):
    anna = players[0]
    table = services.table_create(user=anna, game="romme", preset="standard", options={"seats": 3, "rounds": 2},
                                  bots="simple")
    table = Table.objects.get(pk=table.pk)
    match = table.current_match

    response = delete_account(anna)

    assert_deleted(response, anna)
    table = Table.objects.get(pk=table.pk)
    assert table.seats.get(index=0).left
    assert Move.objects.filter(match=match, seat=0, by=Move.By.RESIGN).count() == 1
    # The others play on without her: her turns are the server's, nobody waits on a turn timer.
    assert table.status == Table.Status.PLAYING and state_of(table).to_act != 0
    assert table.turn_deadline is None and table.bot_due_at is not None
    finished = referee_plays_out(table.pk)
    match.refresh_from_db()
    assert finished.status == Table.Status.FINISHED and match.status == Match.Status.FINISHED
    assert match.left_seats == [0] and match.result["left"] == [True, False, False]
    assert match.result["places"][0] == 3 and match.winner_seat != 0


def test_every_table_is_left_in_one_deletion(players):
    anna, ben, cleo, dora = players
    gin = play_moves(gin_table(anna, ben), [anna, ben], 2)
    romme = services.table_create(user=cleo, game="romme", preset="standard", options={"seats": 3})
    services.table_join(table_id=romme.pk, user=anna)
    over = gin_table(anna, dora)
    services.match_resign(table_id=over.pk, user=dora)  # a match already over: anna still holds her seat

    assert_deleted(delete_account(anna), anna)

    assert Table.objects.get(pk=gin.pk).current_match.winner == ben
    assert not Seat.objects.filter(table=romme, user=anna).exists()
    assert not Seat.objects.filter(table=over, user=anna).exists()
    assert Table.objects.get(pk=over.pk).status == Table.Status.FINISHED


def test_a_table_that_fails_stops_neither_the_others_nor_the_deletion(players, monkeypatch):
    anna, ben, cleo = players[:3]
    broken = gin_table(anna, ben)
    fine = gin_table(anna, cleo)
    real_resign = services.match_resign

    def resign_then_fail(*, table_id, user):
        real_resign(table_id=table_id, user=user)
        if table_id == broken.pk:
            raise RuntimeError("the database went away half-way")

    monkeypatch.setattr(services, "match_resign", resign_then_fail)

    assert_deleted(delete_account(anna), anna)

    # The failed table is exactly as it was (its half-done resignation was undone), the other one is left.
    broken_after = Table.objects.get(pk=broken.pk)
    assert broken_after.status == Table.Status.PLAYING and broken_after.version == broken.version
    assert not Move.objects.filter(table=broken).exists()
    assert Table.objects.get(pk=fine.pk).current_match.winner == cleo


def test_a_refused_deletion_leaves_every_seat_as_it_was(players):
    anna, ben = players[:2]
    table = gin_table(anna, ben)

    response = delete_account(anna, password="falsch")

    assert "Das Passwort ist nicht richtig." in response.content.decode()
    assert anna.is_active
    after = Table.objects.get(pk=table.pk)
    assert after.status == Table.Status.PLAYING and after.version == table.version
    assert not after.seats.get(user=anna).left


def test_a_table_that_started_since_the_seats_were_read_is_resigned_instead(players):
    # The seats are read without a lock; a table read as open may be playing by the time it is left.
    from games.delivery.receivers import _leave

    anna, ben = players[:2]
    table = gin_table(anna, ben)

    _leave(table_id=table.pk, user=anna, playing=False)

    assert Table.objects.get(pk=table.pk).current_match.winner == ben
