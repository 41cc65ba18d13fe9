"""A Rommé tournament's stages are *Serien* everywhere (issue 27.8): the tables' heading, the break in the
options, the countdown, the audit log, the staff page and the table page's tournament line say "Serie", in
German and English; a gin tournament keeps "Runde". The format class names its stage."""

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tests.tournaments.helpers import started
from tournaments import formats

pytestmark = pytest.mark.django_db(transaction=True)


def _text(html):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.fixture
def series(staff, make_players):
    return started(staff, make_players(3), name="Masters", game="romme", format="series",
                   settings={"series": 2, "rounds": 1, "table_size": 3, "check_in_minutes": 0, "break_minutes": 3},
                   options={})


def test_a_series_page_says_serie_where_a_gin_page_says_runde(client, staff, series):
    page = _text(client.get(reverse("tournaments:detail", kwargs={"tournament_id": series.pk})).content.decode())
    assert "Tische der Serie 1" in page and "Tische der Runde" not in page
    assert "3 Minuten Pause zwischen den Serien" in page and "zwischen den Runden" not in page

    client.force_login(staff)
    staff_page = _text(client.get(reverse("tournaments:staff", args=[series.pk])).content.decode())
    assert "Serie 1 gestartet" in staff_page and "Nächste Serie jetzt" in staff_page
    assert "Runde gestartet" not in staff_page and "Nächste Runde" not in staff_page

    table_id = series.stages.get().tables.get().table_id
    table_page = _text(Client().get(reverse("games:table", kwargs={"table_id": table_id})).content.decode())
    assert "Turnier: Masters · Serie 1, Tisch 1" in table_page


def test_the_stage_words_in_english(series):
    fmt = formats.of(series)
    with translation.override("en"):
        assert fmt.stage_tables_title(2) == "Tables of series 2"
        assert fmt.stage_break_words(1) == "1 minute break between series"
        assert fmt.next_stage_countdown_label() == "Next series in"
        assert fmt.stage_started_label(2) == "Series 2 started"
        assert fmt.stage_table_label(2, 3) == "Series 2, table 3"


def test_a_gin_tournament_keeps_its_rounds(staff, make_players):
    t = started(staff, make_players(2), name="Gin", game="gin", format="swiss",
                settings={"rounds": 1, "check_in_minutes": 0, "break_minutes": 1}, options={"target": 0})
    fmt = formats.of(t)
    assert fmt.stage_tables_title(1) == "Tische der Runde 1"
    assert fmt.stage_break_words(1) == "1 Minute Pause zwischen den Runden"
    assert fmt.next_stage_countdown_label() == "Nächste Runde in"
    with translation.override("en"):
        assert fmt.stage_table_label(1, 2) == "Round 1, table 2"
