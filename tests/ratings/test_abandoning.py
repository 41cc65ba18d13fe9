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
from tests.ratings.support import four_players, live_play_settings

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _settings(settings):
    live_play_settings(settings)


@pytest.fixture
def players(django_user_model):
    return four_players(django_user_model)


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
    until = timezone.localtime(now + timedelta(minutes=10)).strftime("%H:%M")
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
