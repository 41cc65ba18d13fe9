"""The "Gewertet spielen" pool: one click to wait, close Wertungszahlen paired (the window widening with the
wait), gin tables of 2, Rommé of 4 (3 after a minute, 2 after two), one click to leave, in the database (so
any worker, and a restarted one, pairs it), and nobody seated twice however many workers pair at once."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import OperationalError, connection, connections
from django.urls import reverse
from django.utils import timezone

from games.models import Seat, Table
from games.signals import referee_tick
from ratings import pool, selectors
from ratings.models import PoolEntry, Rating
from tests.factories import many_users

pytestmark = pytest.mark.django_db


def rate(user, game, display, matches=20):
    Rating.objects.update_or_create(
        user=user, game=game,
        defaults={"mu": 25 + (display - 1500) / 60, "sigma": 2.0, "display": display, "matches": matches},
    )


def seated_tables(users):
    return {seat.table_id for seat in Seat.objects.filter(user__in=users)}


def test_two_gin_seekers_of_close_rating_get_a_ranked_table_at_once(players):
    anna, ben = players[:2]
    first = pool.pool_join(user=anna, game="gin")
    assert first.table is None and selectors.pool_waiting_count(game="gin") == 1
    second = pool.pool_join(user=ben, game="gin")
    assert second.table is not None
    table = Table.objects.get(pk=second.table_id)
    assert table.ranked and table.status == Table.Status.PLAYING and table.game == "gin"
    assert {s.user_id for s in table.seats.all()} == {anna.pk, ben.pk}
    assert PoolEntry.objects.get(user=anna).table_id == table.pk
    assert selectors.pool_waiting_count(game="gin") == 0


def test_far_apart_ratings_wait_until_the_window_has_widened(players):
    anna, ben = players[:2]
    rate(anna, "gin", 1500)
    rate(ben, "gin", 1900)
    start = timezone.now()
    pool.pool_join(user=anna, game="gin", now=start)
    pool.pool_join(user=ben, game="gin", now=start)
    assert pool.pool_pair(game="gin", now=start + timedelta(seconds=30)) == []  # ±250 after 30 s
    assert pool.window(waited_seconds=60) >= 400
    tables = pool.pool_pair(game="gin", now=start + timedelta(seconds=60))
    assert len(tables) == 1 and seated_tables([anna, ben]) == {tables[0].pk}


def test_the_closest_seekers_are_paired_together(db):
    users = many_users(4, "s")
    for user, display in zip(users, (1500, 1800, 1520, 1790), strict=True):
        rate(user, "gin", display)
    start = timezone.now()
    for user in users:
        PoolEntry.objects.create(user=user, game="gin", display=selectors.rating_of(user=user, game="gin").display,
                                 joined_at=start)
    tables = pool.pool_pair(game="gin", now=start + timedelta(seconds=1))
    assert len(tables) == 2
    pairs = sorted(sorted(s.user_id for s in t.seats.all()) for t in tables)
    assert pairs == sorted([sorted([users[0].pk, users[2].pk]), sorted([users[1].pk, users[3].pk])])


def test_romme_tables_of_four_then_three_after_a_minute_then_two_after_two(db):
    users = many_users(9, "s")
    start = timezone.now()
    for user in users[:4]:
        pool.pool_join(user=user, game="romme", now=start)
    (four,) = Table.objects.filter(game="romme")
    assert four.seat_count == 4 and four.ranked

    for user in users[4:7]:
        pool.pool_join(user=user, game="romme", now=start)
    assert pool.pool_pair(game="romme", now=start + timedelta(seconds=59)) == []
    (three,) = pool.pool_pair(game="romme", now=start + timedelta(seconds=60))
    assert three.seat_count == 3

    for user in users[7:9]:
        pool.pool_join(user=user, game="romme", now=start)
    assert pool.pool_pair(game="romme", now=start + timedelta(seconds=119)) == []
    (two,) = pool.pool_pair(game="romme", now=start + timedelta(seconds=120))
    assert two.seat_count == 2
    assert {s.user_id for s in two.seats.all()} == {users[7].pk, users[8].pk}


def test_leaving_is_one_click_and_the_pool_forgets_you(client, players):
    client.force_login(players[0])
    response = client.post(reverse("pool:join", args=["gin"]))
    assert response.status_code == 302 and PoolEntry.objects.filter(user=players[0], table=None).exists()
    status = client.get(reverse("pool:status")).json()
    assert status["state"] == "waiting" and status["game"] == "gin"
    panel = client.get(reverse("pool:panel")).content.decode()
    assert 'id="ranked-leave"' in panel and "Du wartest auf Gegner für Gin Rommé" in panel
    assert client.post(reverse("pool:leave")).status_code == 302
    assert not PoolEntry.objects.exists()
    assert client.get(reverse("pool:status")).json()["state"] == "idle"


def test_the_waiting_player_is_led_to_the_table(client, players):
    client.force_login(players[0])
    client.post(reverse("pool:join", args=["gin"]))
    other = client.__class__()
    other.force_login(players[1])
    response = other.post(reverse("pool:join", args=["gin"]))
    table = PoolEntry.objects.get(user=players[1]).table
    assert response.status_code == 302 and response["Location"] == reverse("games:table", args=[table.pk])
    status = client.get(reverse("pool:status")).json()
    assert status["state"] == "ready" and status["table_url"] == reverse("games:table", args=[table.pk])
    assert "Dein Tisch ist bereit" in client.get(reverse("pool:panel")).content.decode()


def test_the_lobby_offers_ranked_play_per_game(client, players):
    client.force_login(players[0])
    page = client.get(reverse("games:lobby")).content.decode()
    assert 'id="ranked-gin"' in page and 'id="ranked-romme"' in page
    assert reverse("pool:panel") in page


def test_the_pool_survives_a_restart_and_the_referee_pairs_it(players):
    start = timezone.now() - timedelta(seconds=5)
    for user in players[:2]:  # written by an earlier process; nobody paired them
        PoolEntry.objects.create(user=user, game="gin", display=1500, joined_at=start)
    referee_tick.send_robust(sender=None)
    assert len(seated_tables(players[:2])) == 1
    assert PoolEntry.objects.filter(table__isnull=False).count() == 2


def test_a_player_in_a_ranked_match_cannot_join_again(players):
    pool.pool_join(user=players[0], game="gin")
    pool.pool_join(user=players[1], game="gin")
    with pytest.raises(pool.game_services.ServiceError) as refused:
        pool.pool_join(user=players[0], game="romme")
    assert refused.value.code == "already_seated"


def test_joining_the_other_game_moves_you(players):
    pool.pool_join(user=players[0], game="gin")
    pool.pool_join(user=players[0], game="romme")
    assert list(PoolEntry.objects.values_list("game", flat=True)) == ["romme"]


def test_the_seats_of_ranked_tables_show_their_wertungszahl(client, players):
    rate(players[0], "gin", 1562, matches=12)
    pool.pool_join(user=players[0], game="gin")
    pool.pool_join(user=players[1], game="gin")
    table = PoolEntry.objects.get(user=players[0]).table
    seats = {s.user_id: s.index for s in table.seats.all()}
    data = client.get(reverse("pool:seat_ratings")).json()["tables"][str(table.pk)]
    assert data[str(seats[players[0].pk])] == {"display": 1562, "provisional": False}
    assert data[str(seats[players[1].pk])] == {"display": 1500, "provisional": True}


# --- two workers ----------------------------------------------------------------------------------------


def assert_nobody_seated_twice(users):
    seats = list(Seat.objects.filter(user__in=users).values_list("user_id", flat=True))
    assert len(seats) == len(set(seats))
    entries = dict(PoolEntry.objects.filter(user__in=users).values_list("user_id", "table_id"))
    for seat in Seat.objects.filter(user__in=users):
        assert entries[seat.user_id] == seat.table_id


def test_a_worker_with_a_stale_view_of_the_pool_seats_nobody_twice(db):
    """The race as one thread can play it: worker B read the waiting entries before worker A seated them."""
    users = many_users(6, "s")
    start = timezone.now()
    for user in users:
        PoolEntry.objects.create(user=user, game="gin", display=1500, joined_at=start)
    stale = list(PoolEntry.objects.select_related("user").order_by("joined_at", "pk"))
    stale_groups = pool.groups_form(game="gin", entries=stale, now=start)
    assert len(pool.pool_pair(game="gin", now=start)) == 3  # worker A
    for group in stale_groups:  # worker B, from what it read before
        assert pool._seat_group(game="gin", group=group, now=start) is None
    assert Table.objects.count() == 3
    assert_nobody_seated_twice(users)


def run_at_once(*calls):
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(index, call):
        barrier.wait()
        try:
            results[index] = call()
        except Exception as error:  # noqa: BLE001 - the test inspects it
            results[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def _refused_by_sqlite(error) -> bool:
    # The test database on SQLite is shared in memory between threads: a second writer is refused at once
    # ("table is locked") instead of waiting as on a file; that worker simply pairs nothing this pass.
    return connection.vendor == "sqlite" and isinstance(error, OperationalError) and "locked" in str(error)


@pytest.mark.django_db(transaction=True)
def test_two_workers_pairing_many_seekers_at_once_seat_nobody_twice(db):
    users = many_users(40, "s")
    start = timezone.now() - timedelta(seconds=200)
    for index, user in enumerate(users):
        game = "gin" if index % 2 else "romme"
        PoolEntry.objects.create(user=user, game=game, display=1400 + index * 5, joined_at=start)
    results = run_at_once(*[lambda: pool.pool_pair_all()] * 2)
    results += run_at_once(*[lambda: pool.pool_pair_all()] * 2)  # whatever was skipped while locked
    errors = [r for r in results if isinstance(r, Exception)]
    assert all(_refused_by_sqlite(error) for error in errors), errors
    results = [r for r in results if not isinstance(r, Exception)]
    if PoolEntry.objects.filter(table__isnull=True).exists():  # SQLite refused both of a round: once more
        results.append(pool.pool_pair_all())
    assert_nobody_seated_twice(users)
    assert PoolEntry.objects.filter(table__isnull=True).count() == 0
    assert sum(len(r) for r in results) == Table.objects.count()
