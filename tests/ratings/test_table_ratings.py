"""The Wertungszahl at each seat of a ranked table's page (ratings.md "The number people see"): the table page
holds a container and loads ``ratings/table.js``, which asks ``pool:table_ratings`` for each seat's number
("1500?" while provisional) and, once the match has ended and been rated, each seat's change ("+14", "−9");
until the rating is stored the answer says ``pending`` so the page asks again, a bounded number of times."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from games import services
from games.models import Match, Table
from ratings.models import Rating, RatingChange
from tests.games.helpers import play_out

pytestmark = pytest.mark.django_db


def ratings_of(table_id: int, language: str = "de"):
    url = reverse("pool:table_ratings", kwargs={"table_id": table_id})
    return Client().get(url, headers={"accept-language": language})


def seats_of(response) -> dict[str, dict]:
    assert response.status_code == 200, response.content
    return {seat["name"]: seat for seat in response.json()["seats"]}


def ranked_gin(anna, ben) -> Table:
    return services.table_create_seated(game="gin", users=[anna, ben], preset="schnell", ranked=True)


def test_each_seat_of_a_ranked_table_shows_its_wertungszahl_with_a_question_mark_while_provisional(players):
    anna, ben = players[:2]
    Rating.objects.create(user=ben, game="gin", display=1612, matches=3)
    seats = seats_of(ratings_of(ranked_gin(anna, ben).pk))
    assert seats["anna"] == {"seat": 0, "name": "anna", "rating": "1500?", "provisional": True, "change": None,
                             "trend": ""}
    assert (seats["ben"]["seat"], seats["ben"]["rating"]) == (1, "1612?")


def test_an_established_player_s_wertungszahl_has_no_question_mark(players):
    anna, ben = players[:2]
    Rating.objects.create(user=anna, game="gin", display=1534, matches=10)
    seats = seats_of(ratings_of(ranked_gin(anna, ben).pk))
    assert (seats["anna"]["rating"], seats["anna"]["provisional"]) == ("1534", False)


def test_the_wertungszahl_is_the_one_of_the_table_s_game(players):
    anna, ben, cleo = players[:3]
    Rating.objects.create(user=anna, game="gin", display=1700, matches=20)
    Rating.objects.create(user=anna, game="romme", display=1420, matches=20)
    table = services.table_create_seated(game="romme", users=[anna, ben, cleo], ranked=True)
    assert seats_of(ratings_of(table.pk))["anna"]["rating"] == "1420"


def test_while_the_match_is_played_there_is_no_change_and_nothing_pending(players):
    anna, ben = players[:2]
    answer = ratings_of(ranked_gin(anna, ben).pk).json()
    assert (answer["over"], answer["pending"]) == (False, False)
    assert [seat["change"] for seat in answer["seats"]] == [None, None]


def test_after_a_rated_match_each_seat_shows_its_change_beside_the_new_number(players, django_capture_on_commit_callbacks):
    anna, ben = players[:2]
    table = ranked_gin(anna, ben)
    with django_capture_on_commit_callbacks(execute=True):
        play_out(table.pk, [anna, ben])
    match = Match.objects.get(table=table)
    changes = {c.user_id: c for c in RatingChange.objects.filter(match=match)}
    answer = ratings_of(table.pk).json()
    assert (answer["over"], answer["pending"]) == (True, False)
    seats = {seat["name"]: seat for seat in answer["seats"]}
    for user in (anna, ben):
        change = changes[user.pk]
        delta = change.display_after - change.display_before
        assert delta != 0
        text = f"+{delta}" if delta > 0 else f"\u2212{-delta}"
        assert seats[user.username]["change"] == text
        assert seats[user.username]["trend"] == ("up" if delta > 0 else "down")
        assert seats[user.username]["rating"] == f"{change.display_after}?"
    winner = match.winner.username
    assert seats[winner]["trend"] == "up"


def test_a_match_ended_but_not_yet_rated_is_pending_so_the_page_asks_again(players):
    anna, ben = players[:2]
    table = ranked_gin(anna, ben)
    play_out(table.pk, [anna, ben])  # inside the test's transaction the end is never announced: not rated yet
    assert not RatingChange.objects.exists()
    answer = ratings_of(table.pk).json()
    assert (answer["over"], answer["pending"]) == (True, True)
    assert answer["retries"] > 0 and 0 < answer["retry_ms"] <= 2000
    assert [seat["change"] for seat in answer["seats"]] == [None, None]


def test_an_aborted_match_is_never_rated_so_nothing_is_pending(players):
    anna, ben = players[:2]
    table = ranked_gin(anna, ben)
    services.match_abort(table_id=table.pk, user=anna)
    answer = ratings_of(table.pk).json()
    assert (answer["over"], answer["pending"]) == (True, False)


def test_a_casual_table_or_an_unknown_one_has_no_seat_ratings(players):
    anna, ben = players[:2]
    casual = services.table_create_seated(game="gin", users=[anna, ben], preset="schnell", ranked=False)
    assert ratings_of(casual.pk).status_code == 404
    assert ratings_of(casual.pk + 1000).status_code == 404


def test_the_seat_ratings_are_not_cached(players):
    anna, ben = players[:2]
    response = ratings_of(ranked_gin(anna, ben).pk)
    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]


def test_the_words_come_in_the_page_s_language(players):
    anna, ben = players[:2]
    table = ranked_gin(anna, ben)
    german = ratings_of(table.pk).json()["words"]
    english = ratings_of(table.pk, "en").json()["words"]
    assert german["title"] == "Wertungszahl" and english["title"] == "Rating"
    assert german["changes"] == "Wertung dieser Partie" and english["changes"] != german["changes"]
    assert english["provisional"] != german["provisional"]


def test_a_ranked_table_page_holds_the_container_and_loads_the_ratings_module(players):
    anna, ben = players[:2]
    table = ranked_gin(anna, ben)
    page = Client().get(reverse("games:table", kwargs={"table_id": table.pk})).content.decode()
    url = reverse("pool:table_ratings", kwargs={"table_id": table.pk})
    assert f'id="seat-ratings" class="gt-ratings" data-url="{url}"' in page
    assert 'id="match-end-ratings"' in page
    assert '<script type="module" src="/static/ratings/table.js"></script>' in page


def test_a_casual_table_page_loads_no_ratings(players):
    anna, ben = players[:2]
    table = services.table_create_seated(game="gin", users=[anna, ben], preset="schnell", ranked=False)
    page = Client().get(reverse("games:table", kwargs={"table_id": table.pk})).content.decode()
    assert "seat-ratings" not in page and "ratings/table.js" not in page


def test_the_seat_ratings_cost_the_same_few_queries_for_two_seats_or_four(players, django_assert_max_num_queries):
    anna, ben, cleo, dora = players
    for user in players:
        Rating.objects.create(user=user, game="romme", display=1550, matches=12)
    two = services.table_create_seated(game="gin", users=[anna, ben], preset="schnell", ranked=True)
    with django_assert_max_num_queries(4):  # table, seats, ratings (and changes once over)
        assert len(ratings_of(two.pk).json()["seats"]) == 2
    # One live ranked table per person (ratings.md): staff close the gin table before the four sit down.
    staff = get_user_model().objects.create_user("leitung", password="x", is_staff=True)
    services.table_close(table_id=two.pk, by=staff)
    four = services.table_create_seated(game="romme", users=[anna, ben, cleo, dora], ranked=True)
    for table in (four,):
        with django_assert_max_num_queries(4):  # table, seats, ratings (and changes once over)
            assert len(ratings_of(table.pk).json()["seats"]) == table.seat_count
