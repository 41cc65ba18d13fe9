"""The standings CSV: a cell that a spreadsheet would run as a formula (it starts with = + - @, a tab or a
carriage return) is neutralised with a leading ``'`` (OWASP); the numbers the site writes stay numbers."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from games import services as games_services
from tests.tournaments.helpers import play_stage, started

pytestmark = pytest.mark.django_db(transaction=True)

FAST = {"check_in_minutes": 0, "break_minutes": 0}
FORMULA_NAMES = ["-1+1x", "@SUMx", '=HYPERLINK("https://example.org/?leak";"klick")', "\tTab", "\rCR", "+49x"]


def rows_of(response) -> list[list[str]]:
    text = response.content.decode("utf-8")
    assert text.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(text[1:], newline=""), delimiter=";"))
    return rows[:rows.index([])]  # the standings; the audit log follows after an empty row


def make_user(django_user_model, name):
    return django_user_model.objects.create_user(name, None, "pw")


@pytest.fixture
def romme_rows(client, staff, django_user_model):
    """A Rommé series of six (tables of 3 and 3) whose players have formula names; the first quits (Abbruch)."""
    players = [make_user(django_user_model, name) for name in FORMULA_NAMES]
    t = started(staff, players, name="Formeln", game="romme", format="series",
                settings={"series": 1, "rounds": 1, "table_size": 3, **FAST}, options={})
    quitter = players[0]

    def on_table(table_id, users):
        if quitter in users:
            games_services.match_resign(table_id=table_id, user=quitter)

    play_stage(t.pk, on_table=on_table)
    client.force_login(staff)
    return rows_of(client.get(reverse("tournaments:staff_csv", args=[t.pk])))


def test_a_player_name_that_starts_like_a_formula_gets_a_leading_apostrophe(romme_rows):
    players = sorted(row[1] for row in romme_rows[1:])
    assert players == sorted("'" + name for name in FORMULA_NAMES)


def test_a_list_result_of_minus_seven_hundred_stays_a_number(romme_rows):
    header = romme_rows[0]
    quitter = next(row for row in romme_rows[1:] if row[1] == "'" + FORMULA_NAMES[0])
    assert quitter[header.index("Ergebnis")] == "-700"
    assert quitter[header.index("Serie 1")] == "-700"


def test_every_number_the_site_writes_stays_a_number(romme_rows):
    header = romme_rows[0]
    numeric = [header.index(c) for c in ("Platz", "Ergebnis", "WP", "Augen", "Runden gewonnen", "Serie 1")]
    for row in romme_rows[1:]:
        for i in numeric:
            int(row[i])  # no apostrophe, nothing else


def test_a_gin_round_is_a_margin_written_as_a_number_beside_the_opponent_neutralised(client, staff, django_user_model):
    players = [make_user(django_user_model, "@SUMx"), make_user(django_user_model, "anna"),
               make_user(django_user_model, "ben")]
    t = started(staff, players, name="Gin", game="gin", format="swiss", settings={"rounds": 1, **FAST},
                options={"target": 0})
    play_stage(t.pk)
    client.force_login(staff)
    rows = rows_of(client.get(reverse("tournaments:staff_csv", args=[t.pk])))
    header = rows[0]
    assert header[-2:] == ["Runde 1", "Runde 1 Gegner"]
    margins = {row[1]: row[header.index("Runde 1")] for row in rows[1:]}
    opponents = {row[1]: row[header.index("Runde 1 Gegner")] for row in rows[1:]}
    assert set(margins) == {"'@SUMx", "anna", "ben"}
    played = [name for name, who in opponents.items() if who != "Freilos"]
    assert len(played) == 2 and list(opponents.values()).count("Freilos") == 1
    # The margin is a number of its own (won positive, lost negative: no apostrophe in front of "-19").
    assert sorted(int(margins[name]) > 0 for name in played) == [False, True]
    assert int(margins[played[0]]) == -int(margins[played[1]])
    # The opponent is a name a player chose: neutralised where it starts like a formula.
    assert {opponents[name] for name in played} <= {"'@SUMx", "anna", "ben"}
    assert "@SUMx" not in opponents.values()


def test_the_csv_headers_in_english(client, staff, django_user_model):
    players = [make_user(django_user_model, "anna"), make_user(django_user_model, "ben")]
    t = started(staff, players, name="Gin", game="gin", format="swiss", settings={"rounds": 1, **FAST},
                options={"target": 0})
    play_stage(t.pk)
    staff.profile.language = "en"  # a signed-in person reads the language of their profile
    staff.profile.save()
    client.force_login(staff)
    header = rows_of(client.get(reverse("tournaments:staff_csv", args=[t.pk])))[0]
    assert header[-2:] == ["Round 1", "Round 1 opponent"]


def test_an_ordinary_name_is_left_as_it_is():
    from tournaments.views import spreadsheet_cell

    assert spreadsheet_cell("anna") == "anna"
    assert spreadsheet_cell("Jörg-1+1") == "Jörg-1+1"


def test_a_tab_inside_a_name_leaves_the_name_in_one_cell():
    from tournaments.views import csv_neutralised

    text = csv_neutralised('place;player\r\n1;"an\tna;=1"\r\n')
    assert list(csv.reader(io.StringIO(text, newline=""), delimiter=";")) == [["place", "player"],
                                                                               ["1", "an\tna;=1"]]


def test_a_formula_in_a_quoted_cell_with_a_line_break_is_neutralised():
    from tournaments.views import csv_neutralised

    text = csv_neutralised('place;player\r\n1;"=1+1\r\nx"\r\n')
    assert list(csv.reader(io.StringIO(text, newline=""), delimiter=";"))[1] == ["1", "'=1+1\r\nx"]
