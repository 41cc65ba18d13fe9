"""The leaderboards (ratings.md): not provisional and a rated match in the last 30 days; Wertungszahl, then
more rated matches, then who reached it earlier; the top 100 and one's own place; a fixed number of
queries whatever the size."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Match
from ratings import selectors
from ratings.models import Rating, RatingChange
from tests.factories import many_users


def session_reads() -> int:
    """Queries a signed-in request spends on its session: none where sessions come from the cache (cached_db,
    with Redis: CI's PostgreSQL + Redis run), one from the database (the embedded default)."""
    return 0 if settings.SESSION_ENGINE == "django.contrib.sessions.backends.cached_db" else 1

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _resigning_is_no_abandoning_here(monkeypatch):
    # These tests play quick matches by resigning; the abandoning wait has its own tests.
    monkeypatch.setattr(selectors, "abandon_wait", lambda **kwargs: None)
    # ... and the same two people play them again and again; the farming cap has its own tests (test_farming).
    monkeypatch.setattr(selectors, "FARMING_CAP", 10**6)


def resign_match(winner, loser, django_capture_on_commit_callbacks):
    """One rated gin match, announced: ``loser`` resigns at once."""
    with django_capture_on_commit_callbacks(execute=True):
        table = services.table_create_seated(game="gin", users=[winner, loser], ranked=True)
        services.match_resign(table_id=table.pk, user=loser)
    return Match.objects.get(table=table)


def listed(game="gin", **kwargs):
    return [row["user_id"] for row in selectors.leaderboard(game=game, **kwargs)["rows"]]


def test_nine_rated_matches_are_provisional_the_tenth_lists_the_player(players, django_capture_on_commit_callbacks):
    anna, ben = players[:2]
    for _ in range(9):
        resign_match(anna, ben, django_capture_on_commit_callbacks)
    assert selectors.rating_of(user=anna, game="gin").provisional
    assert listed() == []
    resign_match(ben, anna, django_capture_on_commit_callbacks)
    rating = selectors.rating_of(user=anna, game="gin")
    assert rating.matches == 10 and not rating.provisional
    assert listed() == [anna.pk, ben.pk]  # anna won 9 of 10
    row = selectors.leaderboard(game="gin")["rows"][0]
    assert row["place"] == 1 and row["matches"] == 10 and row["win_share"] == pytest.approx(0.9)
    assert row["display"] == rating.display
    assert listed(game="romme") == []


def make_rating(user, *, game="gin", display=1600, matches=10, wins=5, last=None, reached=None):
    now = timezone.now()
    return Rating.objects.create(
        user=user, game=game, mu=25 + (display - 1500) / 60, sigma=3.0, display=display, matches=matches,
        wins=wins, last_rated_at=last or now, reached_at=reached or now, established=matches >= 10,
    )


def test_thirty_days_without_a_rated_match_drops_a_player(players):
    last = timezone.now() - timedelta(days=10)
    make_rating(players[0], last=last)
    assert listed(now=last + timedelta(days=30) - timedelta(seconds=1)) == [players[0].pk]
    assert listed(now=last + timedelta(days=30)) == [players[0].pk]
    assert listed(now=last + timedelta(days=30, seconds=1)) == []


def test_order_is_wertungszahl_then_more_matches_then_who_reached_it_earlier(players):
    now = timezone.now()
    anna, ben, cleo, dora = players
    make_rating(anna, display=1600, matches=12, reached=now - timedelta(hours=1))
    make_rating(ben, display=1600, matches=12, reached=now - timedelta(hours=2))
    make_rating(cleo, display=1600, matches=30, reached=now)
    make_rating(dora, display=1700, matches=10)
    assert listed() == [dora.pk, cleo.pk, ben.pk, anna.pk]
    rows = selectors.leaderboard(game="gin")["rows"]
    assert [row["place"] for row in rows] == [1, 2, 3, 4]


def test_own_place_outside_the_top_shown_and_counted(players):
    for index, user in enumerate(many_users(6, "p")):
        make_rating(user, display=1800 - index)
    me = players[0]
    make_rating(me, display=1700)
    board = selectors.leaderboard(game="gin", user=me, limit=3)
    assert len(board["rows"]) == 3 and me.pk not in [row["user_id"] for row in board["rows"]]
    assert board["own"]["place"] == 7 and board["own"]["user_id"] == me.pk
    assert selectors.leaderboard(game="gin", user=players[1])["own"] is None  # never rated: not listed


def test_a_later_page_starts_at_its_offset_and_counts_places_from_there(players):
    people = many_users(25, "p")
    for index, user in enumerate(people):
        make_rating(user, display=1800 - index)
    me = people[23]
    board = selectors.leaderboard(game="gin", user=me, limit=2, offset=21)
    assert [(row["place"], row["user_id"]) for row in board["rows"]] == [(22, people[21].pk), (23, people[22].pk)]
    assert board["own"]["place"] == 24  # below this page: counted as on the first
    assert selectors.leaderboard(game="gin", offset=25)["rows"] == []


def test_change_over_seven_days_is_from_the_first_change_in_the_week(players, django_capture_on_commit_callbacks):
    anna, ben = players[:2]
    for _ in range(10):
        resign_match(anna, ben, django_capture_on_commit_callbacks)
    changes = list(RatingChange.objects.filter(user=anna).order_by("created_at", "pk"))
    # The first four were eight days ago: the week's change starts with the fifth.
    RatingChange.objects.filter(pk__in=[c.pk for c in changes[:4]]).update(
        created_at=timezone.now() - timedelta(days=8)
    )
    row = selectors.leaderboard(game="gin")["rows"][0]
    assert row["user_id"] == anna.pk
    assert row["change_7d"] == changes[-1].display_after - changes[4].display_before > 0


def test_the_page_has_a_tab_per_game_and_the_own_place(client, players):
    make_rating(players[0], display=1650, matches=12, wins=9)
    make_rating(players[1], display=1540, matches=10, wins=4)
    client.force_login(players[1])
    page = client.get(reverse("leaderboard")).content.decode()
    assert 'id="tab-gin"' in page and 'id="tab-romme"' in page
    assert f'data-user="{players[0].pk}"' in page  # rows are found by user id (the browser test does)
    assert "Dein Platz: 2" in page and "1650" in page and "75 %" in page
    romme = client.get(reverse("leaderboard_game", args=["romme"])).content.decode()
    assert 'id="leaderboard-empty"' in romme
    assert "Nach 10 gewerteten Partien stehst du in der Bestenliste" in romme
    assert client.get("/bestenliste/poker/").status_code == 404


def test_the_page_speaks_english_with_english_numbers(client, players, django_user_model):
    make_rating(players[0], display=1650, matches=1234, wins=617)
    client.cookies["django_language"] = "en"
    page = client.get(reverse("leaderboard"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Leaderboard" in page and "1,234" in page and "50 %" in page


def test_a_fixed_number_of_queries_whatever_the_size(client, players, django_assert_num_queries):
    for index, user in enumerate(many_users(150, "q")):
        make_rating(user, display=1900 - index)
    make_rating(players[0], display=1000)
    with django_assert_num_queries(1):  # the top 100, their 7-day change and names in one query
        assert client.get(reverse("leaderboard")).status_code == 200
    client.force_login(players[0])
    # session, user, profile (the site's language middleware), the top 100, one's own row, one's own place
    with django_assert_num_queries(5 + session_reads()):
        page = client.get(reverse("leaderboard")).content.decode()
    assert "Dein Platz: 151" in page


def test_own_place_in_the_top_needs_no_count(client, players, django_assert_num_queries):
    make_rating(players[0], display=1700)
    make_rating(players[1], display=1600)
    client.force_login(players[1])
    with django_assert_num_queries(4 + session_reads()):  # session, user, profile, the top 100, one's own row
        page = client.get(reverse("leaderboard")).content.decode()
    assert "Dein Platz: 2" in page


def test_the_seed_command_fills_a_leaderboard_the_page_reads_in_one_query(client, django_assert_num_queries):
    from django.core.management import call_command

    call_command("ratings_seed", users=60, matches=600, batch=250, stdout=io.StringIO())
    assert RatingChange.objects.filter(game="gin").count() > 0
    board = selectors.leaderboard(game="gin")
    assert len(board["rows"]) > 10
    assert [row["place"] for row in board["rows"]] == list(range(1, len(board["rows"]) + 1))
    displays = [row["display"] for row in board["rows"]]
    assert displays == sorted(displays, reverse=True)
    for rating in Rating.objects.filter(game="gin")[:20]:  # the stored rating is where its changes ended
        last = RatingChange.objects.filter(user_id=rating.user_id, game="gin").order_by("-created_at", "-pk").first()
        assert (rating.mu, rating.display) == (last.mu_after, last.display_after)
        assert rating.matches == RatingChange.objects.filter(user_id=rating.user_id, game="gin").count()
    with django_assert_num_queries(1):
        assert client.get(reverse("leaderboard")).status_code == 200
    call_command("ratings_seed", users=60, matches=600, clear=True, stdout=io.StringIO())
    assert RatingChange.objects.filter(game="gin").count() > 0
