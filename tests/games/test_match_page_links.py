"""What links tournament, table and match, and how a match is named: the table page and the match page of a
tournament table name the tournament with a link (``games.panels`` slots filled by tournaments); a match is
"Partie N" by its site-wide number on its page, on the profile and in its record; the profile lists the
opponents on one line; ``/partie/vergleich/`` without names asks for two."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from games import services
from games.models import Match
from tests.games.helpers import play_out
from tests.tournaments.helpers import started
from tournaments import selectors as tournament_selectors

pytestmark = [pytest.mark.django_db, pytest.mark.deal_seed("match-links-tests")]


@pytest.fixture
def swiss_table(staff, players):
    """The one table of a 2-player gin Swiss "Herbstpokal" (one round), with its tournament."""
    tournament = started(staff, players[:2], name="Herbstpokal", game="gin", format="swiss",
                         settings={"rounds": 1, "check_in_minutes": 0, "break_minutes": 0}, options={"target": 0})
    (row,) = tournament_selectors.tournament_tables(tournament_id=tournament.pk)
    return tournament, row["table"], row["users"]


def head_lines(html: str) -> list[str]:
    return re.findall(r'<p class="[^"]*" data-panel="head">(.*?)</p>', html, re.S)


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()


# --- tournament ↔ table ↔ match ---------------------------------------------------------------------------


def test_the_table_page_of_a_tournament_table_names_the_tournament_with_a_link(swiss_table):
    tournament, table_id, _users = swiss_table
    page = Client().get(reverse("games:table", kwargs={"table_id": table_id})).content.decode()
    [line] = head_lines(page)
    link = reverse("tournaments:detail", kwargs={"tournament_id": tournament.pk})
    assert f'<a href="{link}">' in line
    assert text_of(line) == "Turnier: Herbstpokal · Runde 1, Tisch 1"


def test_the_match_page_of_a_tournament_table_names_the_tournament_with_a_link(swiss_table, django_capture_on_commit_callbacks):
    tournament, table_id, user_ids = swiss_table
    users = [get_user_model().objects.get(pk=pk) for pk in user_ids]
    with django_capture_on_commit_callbacks(execute=True):
        play_out(table_id, users)
    match = Match.objects.get(table_id=table_id)
    page = Client().get(reverse("matches:detail", kwargs={"match_id": match.pk})).content.decode()
    [line] = head_lines(page)
    assert f'<a href="{reverse("tournaments:detail", kwargs={"tournament_id": tournament.pk})}">' in line
    assert "Herbstpokal" in line


def test_a_table_outside_a_tournament_names_none(players):
    anna, ben = players[:2]
    table = services.table_create_seated(game="gin", users=[anna, ben], preset="schnell", ranked=True)
    page = Client().get(reverse("games:table", kwargs={"table_id": table.pk})).content.decode()
    assert head_lines(page) == [] and "Turnier:" not in page


def test_the_table_page_names_the_tournament_in_english(swiss_table):
    _tournament, table_id, _users = swiss_table
    page = Client().get(reverse("games:table", kwargs={"table_id": table_id}), headers={"accept-language": "en"})
    [line] = head_lines(page.content.decode())
    assert text_of(line).startswith("Tournament: Herbstpokal")


# --- a match's name -----------------------------------------------------------------------------------------


@pytest.fixture
def fourth_match(players, django_capture_on_commit_callbacks):
    """A Rommé list that is the fourth match site-wide but the first at its table."""
    anna, ben, cleo = players[:3]
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(3):
            table = services.table_create_seated(game="gin", users=[anna, ben], preset="schnell", ranked=False)
            play_out(table.pk, [anna, ben])
        table = services.table_create_seated(game="romme", users=[anna, ben, cleo], ranked=False,
                                             options={"rounds": 1})
        play_out(table.pk, [anna, ben, cleo])
    match = Match.objects.get(table=table)
    assert match.number == 1 and Match.objects.filter(pk__lt=match.pk).count() == 3
    return match


def test_the_match_page_is_headed_by_the_site_wide_number_and_says_its_number_at_the_table(fourth_match):
    page = Client().get(reverse("matches:detail", kwargs={"match_id": fourth_match.pk})).content.decode()
    assert f"<h1>Partie {fourth_match.pk}</h1>" in page
    assert f"Tisch {fourth_match.table_id} · dort die 1. Partie" in page


def test_the_profile_names_the_record_as_the_match_page_does(players, fourth_match):
    anna = players[0]
    client = Client()
    client.force_login(anna)
    page = client.get(reverse("accounts:profile")).content.decode()
    entry = re.search(rf'<li class="match-entry[^"]*" data-match="{fourth_match.pk}">.*?</li>', page, re.S).group(0)
    record_url = reverse("matches:record", kwargs={"match_id": fourth_match.pk})
    assert f'<a href="{record_url}" download>Protokoll der Partie {fourth_match.pk} (JSON)</a>' in entry
    assert "Protokoll der Partie 1 " not in entry
    download = client.get(record_url)
    assert download.status_code == 200
    assert f'partie{fourth_match.pk}.json' in download["Content-Disposition"]


def test_the_profile_lists_the_opponents_on_one_line_separated_by_commas(players, fourth_match):
    anna = players[0]
    page = Client().get(reverse("accounts:public", kwargs={"username": "anna"})).content.decode()
    entry = re.search(rf'data-match="{fourth_match.pk}">.*?</li>', page, re.S).group(0)
    opponents = re.search(r'<span class="match-opponents">(.*?)</span>', entry, re.S).group(1)
    assert "\n" not in opponents
    assert text_of(opponents) == "gegen ben, cleo"
    # The site's stylesheet makes links in a .link-list blocks (one per line); the history's stay inline.
    css = Path(finders.find("site/site.css")).read_text(encoding="utf-8")
    assert re.search(r"\.match-history a\s*\{[^}]*display:\s*inline", css)
    assert anna.username not in text_of(opponents)


# --- head to head without names -----------------------------------------------------------------------------


def compare_form(**query):
    return Client().get(reverse("matches:compare_form"), query)


def test_the_compare_page_without_names_asks_for_two_names(players):
    response = compare_form()
    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="compare-ask"' in page and 'id="compare-error"' not in page
    assert re.search(r'<input type="text" name="a" value=""', page)
    assert re.search(r'<input type="text" name="b" value=""', page)
    assert "Diesen Spieler gibt es nicht" not in page


def test_the_compare_page_with_one_name_asks_for_the_other(players):
    response = compare_form(a="anna", b="")
    page = response.content.decode()
    assert response.status_code == 200
    assert '<input type="text" name="a" value="anna"' in page and 'id="compare-error"' not in page


def test_an_unknown_name_is_404_and_named_whichever_side_it_is(players):
    for query, name in (({"a": "nobody", "b": "ben"}, "nobody"), ({"a": "anna", "b": "niemand"}, "niemand")):
        response = compare_form(**query)
        assert response.status_code == 404
        assert f"Diesen Spieler gibt es nicht: {name}" in response.content.decode()


def test_the_same_player_twice_is_refused_with_a_reason(players):
    response = compare_form(a="anna", b="anna")
    assert response.status_code == 400
    assert "Bitte einen anderen Spieler wählen." in response.content.decode()


def test_two_known_names_lead_to_the_comparison(players):
    response = compare_form(a="anna", b="ben")
    assert response.status_code == 302
    assert response["Location"] == reverse("matches:compare", kwargs={"user_a": "anna", "user_b": "ben"})


def test_the_compare_form_speaks_english(players):
    page = Client().get(reverse("matches:compare_form"), headers={"accept-language": "en"}).content.decode()
    assert "Who against whom? Enter two user names." in page and "compared with" in page
