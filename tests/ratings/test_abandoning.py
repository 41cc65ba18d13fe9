"""Abandoning (ratings.md): leaving a rated match is a loss; whoever left 3 of their last 10 rated matches
waits 10 minutes before the next rated one, each further abandon within 24 hours doubling it (24 hours at
most). The ranked seat, the pool and the lobby all say why and until when."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from games import services
from games.models import Match, Table
from games.services import ServiceError
from ratings import pool, selectors
from ratings.models import RatingChange

pytestmark = pytest.mark.django_db


def history(user, opponent, pattern: str, *, last: timezone.datetime, step=timedelta(minutes=5)):
    """Rated matches of ``user`` ending ``step`` apart, the last at ``last``: "L" left, "." played out."""
    when = last - step * (len(pattern) - 1)
    for mark in pattern:
        table = Table.objects.create(game="gin", seat_count=2, ranked=True, status=Table.Status.FINISHED)
        match = Match.objects.create(table=table, game="gin", ranked=True, status=Match.Status.FINISHED,
                                     finished_at=when, ending="resigned" if mark == "L" else "finished")
        for who, left in ((user, mark == "L"), (opponent, False)):
            RatingChange.objects.create(
                match=match, user=who, game="gin", place=2 if left else 1, left=left, mu_before=25, sigma_before=8,
                display_before=1500, mu_after=25, sigma_after=8, display_after=1500, created_at=when,
            )
        when += step


def until_text(moment) -> str:
    """How the German page writes the end of a wait: the time alone when it ends today, else date and time."""
    local = timezone.localtime(moment)
    return local.strftime("%H:%M") if local.date() == timezone.localdate() else local.strftime("%d.%m.%Y %H:%M")


def test_a_wait_ending_after_midnight_is_written_with_its_date():
    tomorrow = timezone.localtime() + timedelta(days=1)
    wait = selectors.AbandonWait(until=tomorrow, left=3, wait=timedelta(minutes=10))
    with translation.override("de"):
        message = pool.abandon_message(wait=wait)
    assert message.startswith(f"Bis {tomorrow.strftime('%d.%m.%Y %H:%M')} kannst du nicht gewertet spielen")


def test_two_of_ten_left_is_no_wait(players):
    now = timezone.now()
    history(players[0], players[1], "L....L", last=now)
    assert selectors.abandon_wait(user=players[0], now=now) is None


def test_the_third_of_ten_left_means_ten_minutes(players):
    now = timezone.now()
    history(players[0], players[1], "L...L.L", last=now - timedelta(minutes=1))
    wait = selectors.abandon_wait(user=players[0], now=now)
    assert wait.left == 3 and wait.wait == timedelta(minutes=10)
    assert wait.until == now - timedelta(minutes=1) + timedelta(minutes=10)
    assert selectors.abandon_wait(user=players[0], now=wait.until) is None
    assert selectors.abandon_wait(user=players[1], now=now) is None


def test_three_abandons_spread_over_more_than_ten_matches_are_no_wait(players):
    now = timezone.now()
    history(players[0], players[1], "L.....L....L", last=now)  # the last ten hold two
    assert selectors.abandon_wait(user=players[0], now=now) is None


def test_each_further_abandon_within_a_day_doubles_the_wait(players):
    now = timezone.now()
    history(players[0], players[1], "LLL", last=now - timedelta(hours=2), step=timedelta(minutes=30))
    history(players[0], players[1], "L", last=now - timedelta(minutes=1))
    # Abandons 3 and 4 counted (1 and 2 had fewer than three in their last ten): 20 minutes.
    assert selectors.abandon_wait(user=players[0], now=now).wait == timedelta(minutes=20)
    history(players[0], players[1], "L", last=now)
    assert selectors.abandon_wait(user=players[0], now=now).wait == timedelta(minutes=40)


def test_the_wait_is_at_most_a_day(players):
    now = timezone.now()
    history(players[0], players[1], "L" * 20, last=now, step=timedelta(minutes=1))
    wait = selectors.abandon_wait(user=players[0], now=now)
    assert wait.wait == timedelta(hours=24) and wait.until == now + timedelta(hours=24)


def test_an_abandon_more_than_a_day_after_the_last_starts_again_at_ten_minutes(players):
    now = timezone.now()
    history(players[0], players[1], "LLLL", last=now - timedelta(hours=30), step=timedelta(minutes=30))
    history(players[0], players[1], "L", last=now)
    assert selectors.abandon_wait(user=players[0], now=now).wait == timedelta(minutes=10)


def test_three_resignations_through_the_services_refuse_the_next_ranked_seat(players,
                                                                            django_capture_on_commit_callbacks):
    anna, ben, cleo = players[:3]
    for _ in range(3):
        with django_capture_on_commit_callbacks(execute=True):
            table = services.table_create_seated(game="gin", users=[anna, ben], ranked=True)
            services.match_resign(table_id=table.pk, user=anna)
    assert [c.left for c in selectors.rating_history(user=anna, game="gin")] == [True] * 3
    until = timezone.localtime(selectors.abandon_wait(user=anna).until)
    with pytest.raises(ServiceError) as refused, translation.override("de"):
        services.table_create_seated(game="gin", users=[anna, ben], ranked=True)
    assert refused.value.code == "not_allowed"
    assert "3 deiner letzten 10" in refused.value.message and until.strftime("%H:%M") in refused.value.message
    open_table = services.table_create(user=cleo, game="gin", ranked=True)
    with pytest.raises(ServiceError):
        services.table_join(table_id=open_table.pk, user=anna)
    with pytest.raises(ServiceError):
        pool.pool_join(user=anna, game="romme")
    services.table_create_seated(game="gin", users=[anna, ben], ranked=False)  # casual play goes on
    services.table_create_seated(game="gin", users=[ben, players[3]], ranked=True)  # and ben is not touched


def test_the_lobby_says_why_and_until_when(client, players):
    now = timezone.now()
    history(players[0], players[1], "LLL", last=now)
    client.force_login(players[0])
    panel = client.get(reverse("pool:panel")).content.decode()
    until = until_text(now + timedelta(minutes=10))  # (after 23:50 the wait ends tomorrow: with its date)
    assert 'id="ranked-abandon"' in panel and f"Bis {until} kannst du nicht gewertet spielen" in panel
    assert 'id="ranked-gin"' not in panel
    status = client.get(reverse("pool:status")).json()
    assert status["abandon"]["left"] == 3
    response = client.post(reverse("pool:join", args=["gin"]), follow=True)
    assert f"Bis {until} kannst du nicht gewertet spielen" in response.content.decode()


def test_the_lobby_says_it_in_english_too(client, players):
    now = timezone.now()
    history(players[0], players[1], "LLL", last=now)
    players[0].profile.language = "en"
    players[0].profile.save()
    client.force_login(players[0])
    panel = client.get(reverse("pool:panel")).content.decode()
    assert "you left or aborted 3 of your last 10 ranked matches" in panel


# --- aborts (calling a ranked match off before its first move) ----------------------------------------


def abort_pairing(anna, opponent, *, by=None):
    """The pool pairs ``anna`` with ``opponent``; ``by`` (anna unless given) calls the match off at once."""
    pool.pool_join(user=anna, game="gin")
    entry = pool.pool_join(user=opponent, game="gin")
    assert entry.table_id is not None
    services.match_abort(table_id=entry.table_id, user=by or anna)
    return entry.table_id


def test_an_aborted_ranked_match_is_not_rated_but_names_who_called_it_off(players,
                                                                         django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        table_id = abort_pairing(players[0], players[1])
    match = Match.objects.get(table_id=table_id)
    assert match.status == Match.Status.ABORTED and not RatingChange.objects.filter(match=match).exists()
    seat = next(p["seat"] for p in match.players if p["user_id"] == players[0].pk)
    assert match.left_seats == [seat]
    assert selectors.ranked_aborts(user=players[0]) == [match.finished_at]
    assert selectors.ranked_aborts(user=players[1]) == []


def test_three_aborted_pairings_in_a_row_refuse_the_fourth_join(players):
    anna, ben = players[:2]
    for _ in range(3):
        abort_pairing(anna, ben)
    wait = selectors.abandon_wait(user=anna)
    assert wait is not None and wait.left == 3 and wait.wait == timedelta(minutes=10)
    with pytest.raises(ServiceError) as refused, translation.override("de"):
        pool.pool_join(user=anna, game="gin")
    assert refused.value.code == "not_allowed" and "verlassen oder abgebrochen" in refused.value.message
    assert selectors.abandon_wait(user=ben) is None  # whose match was called off abandoned nothing
    assert pool.pool_join(user=ben, game="gin").table_id is None


def test_aborts_and_resignations_count_together(players):
    now = timezone.now()
    history(players[0], players[1], "L.L", last=now - timedelta(minutes=2))
    assert selectors.abandon_wait(user=players[0]) is None
    abort_pairing(players[0], players[1])
    wait = selectors.abandon_wait(user=players[0])
    assert wait is not None and wait.left == 3


def test_a_further_abort_within_a_day_doubles_the_wait(players):
    anna, ben = players[:2]
    history(anna, ben, "LLL", last=timezone.now() - timedelta(minutes=30), step=timedelta(minutes=1))
    assert selectors.abandon_wait(user=anna) is None  # its ten minutes are over
    # Anna's wait is over; she aborts the next pairing: the fourth abandon within a day waits 20 minutes.
    abort_pairing(anna, ben)
    assert selectors.abandon_wait(user=anna).wait == timedelta(minutes=20)


def test_an_abort_of_a_casual_match_is_no_abandon(players):
    anna, ben = players[:2]
    for _ in range(3):
        table = services.table_create_seated(game="gin", users=[anna, ben], ranked=False)
        services.match_abort(table_id=table.pk, user=anna)
    assert selectors.abandon_wait(user=anna) is None


def test_a_table_staff_ended_is_nobodys_abandon(players, admin_user):
    anna, ben = players[:2]
    for _ in range(3):
        table = services.table_create_seated(game="gin", users=[anna, ben], ranked=True)
        services.table_close(table_id=table.pk, by=admin_user)
    assert Match.objects.filter(status=Match.Status.ABORTED, left_seats=[]).count() == 3
    assert selectors.abandon_wait(user=anna) is None and selectors.abandon_wait(user=ben) is None


def test_the_lobby_says_why_and_until_when_after_aborts(client, players):
    for _ in range(3):
        abort_pairing(players[0], players[1])
    until = until_text(selectors.abandon_wait(user=players[0]).until)
    client.force_login(players[0])
    panel = client.get(reverse("pool:panel")).content.decode()
    assert 'id="ranked-abandon"' in panel
    assert f"Bis {until} kannst du nicht gewertet spielen" in panel and "verlassen oder abgebrochen" in panel
    players[0].profile.language = "en"
    players[0].profile.save()
    panel = client.get(reverse("pool:panel")).content.decode()
    assert "You cannot play rated until " in panel and ": you left or aborted 3 of your last 10 ranked matches" in panel
