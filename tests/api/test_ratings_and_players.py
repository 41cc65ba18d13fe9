"""Leaderboards (place, name, Wertungszahl, matches, win share, 7-day change, pages), a player's public
profile per game and their rating history, as the ratings selectors compute them."""

from __future__ import annotations

import pytest
from django.utils import timezone

from accounts import services as account_services
from api import api as api_module
from ratings.models import Rating, RatingChange
from tests.api.conftest import get_json
from tests.factories import many_users

pytestmark = pytest.mark.django_db


def make_rating(user, *, game="gin", display=1600, matches=10, wins=5):
    now = timezone.now()
    return Rating.objects.create(user=user, game=game, mu=25 + (display - 1500) / 60, sigma=3.0, display=display,
                                 matches=matches, wins=wins, last_rated_at=now, reached_at=now,
                                 established=matches >= 10)


def test_the_leaderboard_rows_carry_place_name_rating_matches_share_and_week_change(people, play):
    anna, ben, cleo = people
    anna.profile.display_name = "Anna K."
    anna.profile.save()
    make_rating(anna, display=1650, matches=20, wins=15)
    make_rating(ben, display=1600, matches=10, wins=5)
    make_rating(cleo, display=1700, matches=9)  # provisional: not listed
    body = get_json("/api/v1/leaderboards/gin")
    assert body["game"] == "gin" and body["page"] == 1 and body["per_page"] == api_module.PER_PAGE
    assert body["rows"] == [
        {"place": 1, "player": {"username": "anna", "name": "Anna K."}, "wertungszahl": 1650, "matches": 20,
         "win_share": 0.75, "change_7d": 0},
        {"place": 2, "player": {"username": "ben", "name": "ben"}, "wertungszahl": 1600, "matches": 10,
         "win_share": 0.5, "change_7d": 0},
    ]
    assert get_json("/api/v1/leaderboards/romme")["rows"] == []


def test_the_week_change_is_the_rating_now_minus_before_the_first_change_this_week(people, play):
    anna = people[0]
    match = play([anna, people[1]], ranked=True)
    make_rating(people[2])
    rating = Rating.objects.get(user=anna, game="gin")
    Rating.objects.filter(pk=rating.pk).update(matches=10, established=True)
    before = RatingChange.objects.get(user=anna, match=match).display_before
    row = next(r for r in get_json("/api/v1/leaderboards/gin")["rows"] if r["player"]["username"] == "anna")
    assert row["change_7d"] == rating.display - before != 0


def test_pages_follow_one_another(people, monkeypatch):
    monkeypatch.setattr(api_module, "PER_PAGE", 2)
    anna, ben, cleo = people
    for user, display in ((anna, 1700), (ben, 1600), (cleo, 1500)):
        make_rating(user, display=display)
    first = get_json("/api/v1/leaderboards/gin")
    second = get_json("/api/v1/leaderboards/gin", page=2)
    assert [r["place"] for r in first["rows"]] == [1, 2]
    assert [(r["place"], r["player"]["username"]) for r in second["rows"]] == [(3, "cleo")]
    assert (first["next_page"], second["next_page"]) == (2, None)
    assert get_json("/api/v1/leaderboards/gin", page=3)["rows"] == []


def test_pages_go_on_past_the_twentieth(monkeypatch):
    monkeypatch.setattr(api_module, "PER_PAGE", 1)
    people = many_users(23, "p")
    for index, user in enumerate(people):
        make_rating(user, display=1800 - index)
    page = get_json("/api/v1/leaderboards/gin", page=22)
    assert [(r["place"], r["player"]["username"]) for r in page["rows"]] == [(22, "p021")]
    assert page["next_page"] == 23
    last = get_json("/api/v1/leaderboards/gin", page=23)
    assert [r["place"] for r in last["rows"]] == [23] and last["next_page"] is None


def test_a_page_out_of_range_or_an_unknown_game_is_refused(people):
    get_json("/api/v1/leaderboards/gin", 422, page=0)
    get_json("/api/v1/leaderboards/gin", 422, page=api_module.MAX_PAGE + 1)
    assert "gin" in get_json("/api/v1/leaderboards/chess", 404)["detail"]


def test_a_deleted_player_leaves_the_board_and_a_deactivated_one_has_no_user_name(people):
    anna, ben, _ = people
    make_rating(anna, display=1700)
    make_rating(ben)
    account_services.account_delete(user=anna)
    ben.is_active = False
    ben.save()
    rows = get_json("/api/v1/leaderboards/gin")["rows"]
    assert [r["player"] for r in rows] == [{"username": None, "name": "ben"}]


def test_the_profile_gives_per_game_rating_provisional_matches_and_facts(people, play):
    anna, ben, _ = people
    play([anna, ben], ranked=True)
    play([anna, ben])
    body = get_json("/api/v1/players/anna")
    assert body["username"] == "anna" and body["name"] == "anna"
    assert "email" not in str(body) and "@example.org" not in str(body)
    gin = next(g for g in body["games"] if g["game"] == "gin")
    rating = Rating.objects.get(user=anna, game="gin")
    assert gin["wertungszahl"] == rating.display and gin["provisional"] is True and gin["rated_matches"] == 1
    assert gin["matches"] == 2
    assert gin["facts"] and all(set(f) == {"slug", "label", "value"} for f in gin["facts"])
    romme = next(g for g in body["games"] if g["game"] == "romme")
    assert romme["wertungszahl"] is None and romme["matches"] == 0


def test_the_rating_history_lists_every_change_oldest_first(people, play):
    anna, ben, _ = people
    first = play([anna, ben], ranked=True)
    second = play([anna, ben], ranked=True)
    body = get_json("/api/v1/players/anna/ratings/gin")
    changes = [RatingChange.objects.get(user=anna, match=m) for m in (first, second)]
    assert body["game"] == "gin" and body["username"] == "anna"
    assert [(p["match_id"], p["before"], p["after"]) for p in body["points"]] == [
        (c.match_id, c.display_before, c.display_after) for c in changes]
    assert body["points"][0]["after"] == body["points"][1]["before"]
    assert get_json("/api/v1/players/anna/ratings/romme")["points"] == []
    get_json("/api/v1/players/anna/ratings/chess", 404)


def test_a_deleted_or_deactivated_player_has_no_profile(people):
    anna, ben, _ = people
    account_services.account_delete(user=anna)
    ben.is_active = False
    ben.save()
    get_json("/api/v1/players/anna", 404)
    get_json("/api/v1/players/ben", 404)
    get_json(f"/api/v1/players/{anna.username}", 404)  # the placeholder name of the deleted account
    get_json("/api/v1/players/ben/matches", 404)


def test_the_leaderboard_costs_the_same_queries_for_3_players_or_30(django_user_model, django_assert_max_num_queries,
                                                                   settings):
    settings.API_RATE_WINDOW = 10**9  # one window for the whole test: the counter's queries stay alike
    users = django_user_model.objects.bulk_create([django_user_model(username=f"p{i:02d}") for i in range(30)])
    for user in users[:3]:
        make_rating(user)
    # The limit's counter in the database cache takes most of them (none with Redis): what matters is no more.
    # One request first, so the counter exists for both that are counted.
    get_json("/api/v1/leaderboards/gin")
    with django_assert_max_num_queries(16) as few:
        assert len(get_json("/api/v1/leaderboards/gin")["rows"]) == 3
    for user in users[3:]:
        make_rating(user)
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert len(get_json("/api/v1/leaderboards/gin")["rows"]) == 30
