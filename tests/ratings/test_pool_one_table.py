"""One live table at a time (ratings.md): a person holds at most one live seat at a ranked or tournament
table. Joining the pool is refused, with the reason, while they hold one or are entered in a tournament that
is running or starts within 15 minutes; every other door to a ranked seat (a table opened or joined by hand,
a rematch) refuses a second one; a tournament that seats a waiting person takes them out of the pool; and
however many tabs and pool workers race, a person is seated once or waits, never both."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import OperationalError, connection, connections
from django.urls import reverse
from django.utils import timezone, translation

from games import services
from games.models import Seat, Table
from games.services import ServiceError
from ratings import pool
from ratings.models import PoolEntry
from tests.games.helpers import play_out
from tournaments import services as tournament_services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def live_seats(user) -> list[int]:
    return list(
        Seat.objects.filter(user=user, left=False, table__ranked=True,
                            table__status__in=[Table.Status.OPEN, Table.Status.PLAYING])
        .values_list("table_id", flat=True)
    )


def waiting(user) -> bool:
    return PoolEntry.objects.filter(user=user, table__isnull=True).exists()


def tournament(staff, entrants, *, starts_in: timedelta, start: bool = False) -> Tournament:
    t = tournament_services.tournament_create(
        by=staff, name="Gin am Abend", game="gin", format="swiss", options={"target": 0},
        settings={"check_in_minutes": 0, "break_minutes": 0}, starts_at=timezone.now() + starts_in,
    )
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    for user in entrants:
        tournament_services.tournament_register(tournament_id=t.pk, user=user)
    if start:
        tournament_services.tournament_start(tournament_id=t.pk, by=staff)
    return Tournament.objects.get(pk=t.pk)


# --- joining the pool -----------------------------------------------------------------------------------


def test_a_player_at_a_live_ranked_table_of_the_other_game_cannot_join(players):
    anna, ben = players[:2]
    table = services.table_create_seated(game="romme", users=[anna, ben], ranked=True)
    with pytest.raises(ServiceError) as refused, translation.override("de"):
        pool.pool_join(user=anna, game="gin")
    assert refused.value.code == "already_seated" and f"Tisch {table.pk}" in refused.value.message
    assert not PoolEntry.objects.filter(user=anna).exists()


def test_a_player_at_an_open_ranked_table_cannot_join(players):
    table = services.table_create(user=players[0], game="gin", ranked=True)
    with pytest.raises(ServiceError) as refused, translation.override("de"):
        pool.pool_join(user=players[0], game="gin")
    assert refused.value.code == "already_seated" and "offenen gewerteten Tisch" in refused.value.message
    services.table_leave(table_id=table.pk, user=players[0])
    assert pool.pool_join(user=players[0], game="gin").table_id is None  # up from it, they may wait


def test_a_player_at_a_tournament_table_cannot_join(players):
    services.table_create_seated(game="gin", users=players[:2], ranked=True, tournament=True)
    with pytest.raises(ServiceError) as refused:
        pool.pool_join(user=players[0], game="romme")
    assert refused.value.code == "already_seated"


def test_a_player_who_resigned_a_ranked_match_may_join_while_the_others_play_on(players):
    table = services.table_create_seated(game="romme", users=players[:3], ranked=True)
    services.match_resign(table_id=table.pk, user=players[0])
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING
    assert pool.pool_join(user=players[0], game="gin").table_id is None


def test_an_entrant_of_a_running_tournament_cannot_join(staff, players):
    t = tournament(staff, players[:2], starts_in=timedelta(hours=2), start=True)
    for table_id in Seat.objects.filter(user=players[0]).values_list("table_id", flat=True):
        play_out(table_id, players[:2])  # between stages: no table, still entered
    assert Tournament.objects.get(pk=t.pk).status == Tournament.Status.RUNNING
    assert not live_seats(players[0])
    with pytest.raises(ServiceError) as refused, translation.override("de"):
        pool.pool_join(user=players[0], game="gin")
    assert refused.value.code == "in_tournament" and "Gin am Abend" in refused.value.message


def test_an_entrant_cannot_join_within_fifteen_minutes_of_the_start(staff, players):
    tournament(staff, players[:2], starts_in=timedelta(minutes=14))
    with pytest.raises(ServiceError) as refused, translation.override("de"):
        pool.pool_join(user=players[0], game="gin")
    assert refused.value.code == "in_tournament" and "beginnt um" in refused.value.message
    assert not PoolEntry.objects.filter(user=players[0]).exists()
    assert pool.pool_join(user=players[2], game="gin").table_id is None  # who is not entered may


def test_an_entrant_may_join_sixteen_minutes_before_the_start(staff, players):
    tournament(staff, players[:2], starts_in=timedelta(minutes=16))
    assert pool.pool_join(user=players[0], game="gin").table_id is None


def test_the_pool_does_not_pair_a_waiter_whose_tournament_is_now_fifteen_minutes_away(staff, players):
    start = timezone.now()
    for user in players[:2]:
        PoolEntry.objects.create(user=user, game="gin", display=1500, joined_at=start)
    tournament(staff, players[:1], starts_in=timedelta(minutes=10))
    assert pool.pool_pair(game="gin") == []
    assert not PoolEntry.objects.filter(user=players[0]).exists() and waiting(players[1])


def test_a_waiter_whom_a_tournament_seats_leaves_the_pool(staff, players):
    anna, ben, cleo = players[:3]
    t = tournament(staff, [anna, ben], starts_in=timedelta(hours=2))
    pool.pool_join(user=anna, game="romme")
    pool.pool_join(user=cleo, game="romme")  # two of a Rommé pool wait for more at first
    assert waiting(anna) and waiting(cleo)
    tournament_services.tournament_start(tournament_id=t.pk, by=staff)
    assert not waiting(anna) and waiting(cleo)
    assert len(live_seats(anna)) == 1


def test_the_pool_does_not_pair_a_waiter_seated_at_a_tournament_table_meanwhile(players):
    start = timezone.now()
    for user in players[:3]:
        PoolEntry.objects.create(user=user, game="gin", display=1500, joined_at=start)
    services.table_create_seated(game="gin", users=[players[0], players[3]], ranked=True, tournament=True)
    tables = pool.pool_pair(game="gin", now=start + timedelta(seconds=1))
    assert tables == [] and not PoolEntry.objects.filter(user=players[0]).exists()
    assert len(live_seats(players[0])) == 1 and waiting(players[1]) and waiting(players[2])


def test_a_second_tab_joining_the_same_pool_keeps_the_wait(players):
    first = pool.pool_join(user=players[0], game="gin", now=timezone.now() - timedelta(seconds=90))
    again = pool.pool_join(user=players[0], game="gin")
    assert again.pk == first.pk and again.joined_at == first.joined_at
    assert PoolEntry.objects.filter(user=players[0]).count() == 1


def test_the_lobby_says_why_a_join_would_be_refused(client, staff, players):
    tournament(staff, players[:2], starts_in=timedelta(minutes=5))
    client.force_login(players[0])
    panel = client.get(reverse("pool:panel")).content.decode()
    assert 'id="ranked-blocked"' in panel and 'data-reason="in_tournament"' in panel
    assert "Gin am Abend" in panel and 'id="ranked-gin"' not in panel
    assert client.get(reverse("pool:status")).json()["blocked"]["code"] == "in_tournament"


def test_the_lobby_says_it_in_english_too(client, players):
    services.table_create_seated(game="gin", users=players[:2], ranked=True)
    players[0].profile.language = "en"
    players[0].profile.save()
    client.force_login(players[0])
    panel = client.get(reverse("pool:panel")).content.decode()
    assert "You are playing a ranked match right now" in panel


# --- the other doors to a ranked seat ---------------------------------------------------------------------


def test_joining_a_second_ranked_table_by_hand_is_refused(players):
    anna, ben, cleo = players[:3]
    services.table_create_seated(game="gin", users=[anna, ben], ranked=True)
    other = services.table_create(user=cleo, game="romme", ranked=True)
    with pytest.raises(ServiceError) as refused:
        services.table_join(table_id=other.pk, user=anna)
    assert refused.value.code == "not_allowed"
    assert not Seat.objects.filter(table=other, user=anna).exists()
    casual = services.table_create(user=cleo, game="gin")
    services.table_join(table_id=casual.pk, user=anna)  # casual play is not limited


def test_opening_a_second_ranked_table_by_hand_is_refused(players):
    services.table_create(user=players[0], game="gin", ranked=True)
    with pytest.raises(ServiceError) as refused:
        services.table_create(user=players[0], game="romme", ranked=True)
    assert refused.value.code == "not_allowed"
    assert Table.objects.filter(created_by=players[0]).count() == 1


def test_a_ranked_rematch_is_refused_while_someone_plays_another_ranked_table(players):
    anna, ben, cleo = players[:3]
    table = services.table_create_seated(game="gin", users=[anna, ben], ranked=True, options={"target": 0})
    play_out(table.pk, [anna, ben])
    services.match_rematch(table_id=table.pk, user=anna)
    services.table_create_seated(game="gin", users=[ben, cleo], ranked=True)
    with pytest.raises(ServiceError) as refused, translation.override("de"):
        services.match_rematch(table_id=table.pk, user=ben)
    assert refused.value.code == "not_allowed" and "gewertete Partie" in refused.value.message
    assert Table.objects.get(pk=table.pk).status == Table.Status.FINISHED
    assert len(live_seats(ben)) == 1


# --- racing tabs and workers ------------------------------------------------------------------------------


def run_at_once(calls, *, stagger: float = 0.0):
    """Run ``calls`` in threads released together, the n-th ``n * stagger`` seconds after the first (tabs
    clicked a moment apart: a later one arrives while an earlier one is still being paired)."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait()
            time.sleep(index * stagger)
            results[index] = call()
        except Exception as error:  # noqa: BLE001 - the test inspects it
            results[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


def expected_refusal(error) -> bool:
    if isinstance(error, ServiceError):  # a later tab finds the table an earlier one got
        return error.code == "already_seated"
    # The test database on SQLite is shared in memory between threads: a second writer is refused at once
    # ("table is locked") instead of waiting; that tab's join (or that pass) simply did not happen.
    return connection.vendor == "sqlite" and isinstance(error, OperationalError) and "locked" in str(error)


@pytest.mark.django_db(transaction=True)
def test_many_tabs_of_one_person_and_two_pool_workers_seat_them_once_or_keep_them_waiting(django_user_model):
    anna = django_user_model.objects.create_user("anna", "anna@example.org", "pw")
    others = [django_user_model.objects.create_user(f"o{i}", f"o{i}@example.org", "pw") for i in range(3)]
    for attempt in range(12):
        start = timezone.now() - timedelta(seconds=1)
        for other in others:  # three opponents wait: enough for anna to be seated twice if she could be
            PoolEntry.objects.create(user=other, game="gin", display=1500, joined_at=start)
        tabs = [lambda: pool.pool_join(user=anna, game="gin")] * 6
        workers = [pool.pool_pair_all] * 2
        # All at once, then a few milliseconds apart: both are races real tabs run.
        results = run_at_once([*tabs, *workers], stagger=0.004 * (attempt % 4))
        seats = live_seats(anna)
        assert len(seats) <= 1, f"attempt {attempt}: anna sits at {seats}"
        assert not (seats and waiting(anna)), f"attempt {attempt}: anna is seated at {seats} and still waiting"
        assert len(seats) == 1 or waiting(anna) or all(isinstance(r, Exception) for r in results[:6])
        if seats:
            assert PoolEntry.objects.get(user=anna).table_id == seats[0]  # her "table ready" notice
        errors = [r for r in results if isinstance(r, Exception)]
        assert all(expected_refusal(error) for error in errors), errors  # nobody got a server error
        # The next attempt starts from an empty pool: every table over, every entry gone.
        Table.objects.filter(status__in=[Table.Status.OPEN, Table.Status.PLAYING]).update(status=Table.Status.ABORTED)
        PoolEntry.objects.all().delete()
