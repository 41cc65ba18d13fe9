"""A tournament's words (issue 27.11): the Swiss's automatic number of rounds as a number, real plural forms,
the bye written once, one minus sign, "Final standings" in English; in German and in English."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tests.tournaments.helpers import play_tournament, started
from tournaments import formats
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db(transaction=True)


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _page(t, language: str) -> str:
    html = Client().get(reverse("tournaments:detail", args=[t.pk]), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    return _text(html)


@pytest.fixture
def open_swiss(staff, make_players):
    t = tournament_services.tournament_create(by=staff, name="Schweizer", game="gin", format="swiss",
                                              settings={"forfeit_minutes": 1, "win": 1, "loss": 0, "bye": 1})
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    for user in make_players(4):
        tournament_services.tournament_register(tournament_id=t.pk, user=user)
    return t


@pytest.mark.parametrize(
    ("language", "rounds", "scoring", "forfeit"),
    [("de", "3 Runden (automatisch bei 4 Teilnehmern)", "Sieg: 1 Punkt, Niederlage: 0 Punkte, Freilos: 1 Punkt",
      "Wer 1 Minute nach Beginn nicht gespielt hat, verliert"),
     ("en", "3 rounds (automatic for 4 players)", "Win: 1 point, loss: 0 points, bye: 1 point",
      "Whoever has not played 1 minute after the start loses")],
)
def test_a_swiss_says_how_many_rounds_and_counts_in_plural_forms(open_swiss, language, rounds, scoring, forfeit):
    page = _page(open_swiss, language)
    assert rounds in page and scoring in page and forfeit in page
    assert "automatisch viele" not in page and "Punkt(e)" not in page and "point(s)" not in page


def test_a_swiss_with_a_set_number_of_rounds_says_it(staff):
    t = tournament_services.tournament_create(by=staff, name="Eine", game="gin", format="swiss",
                                              settings={"rounds": 1})
    with translation.override("de"):
        assert formats.of(t).more_words() == ["1 Runde"]
    with translation.override("en"):
        assert formats.of(t).more_words() == ["1 round"]


@pytest.mark.parametrize("language", ["de", "en"])
def test_the_bye_is_written_once(staff, make_players, language):
    t = started(staff, make_players(3), name="Drei", game="gin", format="swiss",
                settings={"rounds": 1, "check_in_minutes": 0}, options={"target": 0})
    page = _page(t, language)
    bye = "Freilos" if language == "de" else "Bye"
    tables = page[page.index("Tische der Runde 1" if language == "de" else "Tables of round 1"):]
    tables = tables[:tables.index("Tabelle" if language == "de" else "Standings")]
    # "p03 Bye", not "p03 · Bye Bye": the row names its one player, its note says the bye.
    assert re.fullmatch(rf"(\S+ ){{3}}1 p0\d {bye} p0\d · p0\d \S+ ", tables), tables


@pytest.mark.parametrize(("language", "against"), [("de", "gegen"), ("en", "against")])
def test_a_lost_match_carries_the_one_minus_sign(staff, language, against):
    t = tournament_services.tournament_create(by=staff, name="Zeichen", game="gin", format="swiss", settings={})
    fmt = formats.of(t)
    with translation.override(language):
        assert fmt.stage_cell({"opponent": 2, "won": False, "margin": 5}, {2: "ben"}) == f"\u22125 {against} ben"
        assert fmt.stage_cell({"opponent": 2, "won": True, "margin": 13}, {2: "ben"}) == f"+13 {against} ben"


@pytest.mark.parametrize(("language", "heading"), [("de", "Endstand"), ("en", "Final standings")])
def test_a_finished_tournament_shows_its_final_standings(staff, make_players, language, heading):
    t = started(staff, make_players(2), name="Fertig", game="gin", format="swiss",
                settings={"rounds": 1, "check_in_minutes": 0, "break_minutes": 0}, options={"target": 0})
    play_tournament(t.pk)
    html = Client().get(reverse("tournaments:detail", args=[t.pk]), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert re.search(rf'<h2 id="t-standings">{heading}</h2>', html)
    # The loser's margin in the standings and in its round cell, with the one minus sign, never "-".
    standings = html[html.index('id="t-standings"'):]
    assert re.search(r"<td>\u2212\d+</td>", standings) and not re.search(r">-\d", standings)


def test_the_minus_filter_writes_the_one_minus_sign():
    from django.template import Context, Template
    out = Template("{% load glossary %}{{ a|minus }} {{ b|minus }} {{ c|minus }} {{ d|minus }}").render(
        Context({"a": -19, "b": 7, "c": 0, "d": "–"}))
    assert out == "\u221219 7 0 –"
