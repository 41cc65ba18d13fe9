"""Finished tournaments are on every participant's profile (tournaments.md "finished": the final standings
are frozen and shown on every participant's profile), with place, points and a link; a running one is not."""

import re

import pytest
from django.urls import reverse

from tests.tournaments.helpers import play_tournament, started
from tournaments import selectors as tournament_selectors
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)

FAST = {"check_in_minutes": 0, "break_minutes": 0}


def _profile_rows(client, user):
    html = client.get(reverse("accounts:public", kwargs={"username": user.username})).content.decode()
    return re.findall(r'<li data-tournament="(\d+)"><a href="([^"]+)">([^<]+)</a>\s*· <span data-role="place">([^<]+)</span>'
                      r'(?:\s*· <span data-role="points">([^<]+)</span>)?', html)


def test_a_finished_swiss_is_on_each_participants_profile_with_place_points_and_link(client, staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="Adventsturnier", game="gin", format="swiss",
                settings={"rounds": 2, **FAST}, options={"target": 0})
    assert _profile_rows(client, players[0]) == []  # running: not yet
    play_tournament(t.pk)
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED

    standings = tournament_selectors.tournament_standings(tournament_id=t.pk)
    for row in standings:
        user = next(p for p in players if p.pk == row["user_id"])
        [(pk, url, name, place, points)] = _profile_rows(client, user)
        assert (int(pk), name) == (t.pk, "Adventsturnier")
        assert url == reverse("tournaments:detail", kwargs={"tournament_id": t.pk})
        assert place == f"Platz {row['place']} von 4"
        assert points == f"Punkte {row['match_points']}"


def test_a_finished_romme_series_shows_the_list_result(client, staff, make_players):
    players = make_players(3)
    t = started(staff, players, name="Masters", game="romme", format="series",
                settings={"series": 1, "rounds": 1, "table_size": 3, **FAST}, options={})
    play_tournament(t.pk)
    best = tournament_selectors.tournament_standings(tournament_id=t.pk)[0]
    winner = next(p for p in players if p.pk == best["user_id"])
    [(_, _, _, place, points)] = _profile_rows(client, winner)
    assert place == "Platz 1 von 3"
    assert points == f"Ergebnis {best['result']}"


def test_the_profiles_tournaments_in_english(client, staff, make_players, settings):
    players = make_players(4)
    t = started(staff, players, name="Advent", game="gin", format="swiss",
                settings={"rounds": 2, **FAST}, options={"target": 0})
    play_tournament(t.pk)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    html = client.get(reverse("accounts:public", kwargs={"username": players[0].username})).content.decode()
    place = tournament_selectors.tournament_standings(tournament_id=t.pk)
    row = next(r for r in place if r["user_id"] == players[0].pk)
    assert f'<span data-role="place">Place {row["place"]} of 4</span>' in html
    assert f'<span data-role="points">Points {row["match_points"]}</span>' in html
