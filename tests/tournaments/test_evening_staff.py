"""The staff page and its CSV as an admin lives them: the audit log in words, headers in the staff's language,
the audit log in the CSV, and after the end each player's final state with no action left to take."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.tournaments.helpers import play_tournament, started
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db(transaction=True)

FAST = {"rounds": 1, "check_in_minutes": 0, "break_minutes": 0}


def gin_swiss(staff, players):
    return started(staff, players, name="Abend", game="gin", format="swiss", settings=FAST, options={"target": 0})


def csv_rows(client, t):
    text = client.get(reverse("tournaments:staff_csv", args=[t.pk])).content.decode("utf-8")
    return list(csv.reader(io.StringIO(text.lstrip("\ufeff"), newline=""), delimiter=";"))


def english(staff):
    staff.profile.language = "en"  # a signed-in person reads the language of their profile
    staff.profile.save()


def audit_part(rows):
    """The rows after the empty row that ends the standings: title, header, entries."""
    return rows[rows.index([]) + 1:]


def test_the_audit_log_names_each_action_in_german_words(client, staff, make_players):
    t = gin_swiss(staff, make_players(2))
    play_tournament(t.pk)
    client.force_login(staff)
    page = client.get(reverse("tournaments:staff", args=[t.pk])).content.decode()
    for words in ("Turnier angelegt", "Veröffentlicht", "Turnier gestartet", "Runde 1 gestartet",
                  "Turnier beendet"):
        assert f"<td>{words}</td>" in page, words
    for code in ("create", "publish", "start", "stage_start", "finish"):
        assert f"<td>{code}</td>" not in page


def test_the_audit_log_is_in_english_for_english_staff(client, staff, make_players):
    t = gin_swiss(staff, make_players(2))
    play_tournament(t.pk)
    english(staff)
    client.force_login(staff)
    page = client.get(reverse("tournaments:staff", args=[t.pk])).content.decode()
    assert "<td>Tournament created</td>" in page
    assert "<td>Round 1 started</td>" in page
    assert "<td>Tournament finished</td>" in page


def test_a_removal_in_the_log_names_the_player_and_the_reason(client, staff, make_players):
    anna, ben, cara = make_players(3)
    t = started(staff, [anna, ben, cara], name="Abend", game="gin", format="swiss",
                settings={**FAST, "rounds": 2}, options={"target": 0})
    tournament_services.tournament_player_remove(tournament_id=t.pk, user_id=ben.pk, by=staff, reason="kam nicht")
    client.force_login(staff)
    page = client.get(reverse("tournaments:staff", args=[t.pk])).content.decode()
    assert f"<td>Spieler entfernt: {ben.username}</td><td>kam nicht</td>" in page


def test_the_csv_headers_are_german(client, staff, make_players):
    t = gin_swiss(staff, make_players(2))
    play_tournament(t.pk)
    client.force_login(staff)
    assert csv_rows(client, t)[0] == ["Platz", "Spieler", "Punkte", "Buchholz", "Differenz", "Runde 1",
                                     "Runde 1 Gegner"]


def test_the_csv_headers_are_english_for_english_staff(client, staff, make_players):
    t = gin_swiss(staff, make_players(2))
    play_tournament(t.pk)
    english(staff)
    client.force_login(staff)
    rows = csv_rows(client, t)
    assert rows[0] == ["Place", "Player", "Points", "Buchholz", "Margin", "Round 1", "Round 1 opponent"]
    assert audit_part(rows)[1] == ["When", "Who", "What", "Why"]


def test_the_csv_appends_the_audit_log_with_who_when_what_and_why(client, staff, make_players):
    t = gin_swiss(staff, make_players(2))
    tournament_services.tournament_pause(tournament_id=t.pk, by=staff, reason="Stromausfall")
    tournament_services.tournament_resume(tournament_id=t.pk, by=staff, reason="Strom ist zurück")
    play_tournament(t.pk)
    client.force_login(staff)
    rows = csv_rows(client, t)
    standings, audit = rows[:rows.index([])], audit_part(rows)
    assert len(standings) == 3  # the header and two players
    assert audit[0] == ["Protokoll"] and audit[1] == ["Wann", "Wer", "Was", "Warum"]
    entries = audit[2:]
    whats = [row[2] for row in entries]
    # Newest first: this export itself, the finish, ..., the creation last.
    assert whats[0] == "Tabelle als CSV exportiert" and whats[-1] == "Turnier angelegt"
    now = timezone.localtime()
    for row in entries:  # when: a local time a spreadsheet reads as a date, within the last minute
        when = timezone.make_aware(datetime.strptime(row[0], "%Y-%m-%d %H:%M:%S"))
        assert timedelta(0) <= now - when < timedelta(minutes=1), row
    assert [row[1:] for row in entries if row[2] == "Pausiert"] == [[staff.username, "Pausiert", "Stromausfall"]]
    assert [row[1] for row in entries if row[2] == "Turnier beendet"] == ["automatisch"]


def test_an_audit_reason_that_starts_like_a_formula_is_neutralised_in_the_csv(client, staff, make_players):
    t = gin_swiss(staff, make_players(2))
    tournament_services.tournament_pause(tournament_id=t.pk, by=staff, reason='=HYPERLINK("x";"y")')
    client.force_login(staff)
    reasons = [row[3] for row in audit_part(csv_rows(client, t))[2:] if row[2] == "Pausiert"]
    assert reasons == ['\'=HYPERLINK("x";"y")']


def test_after_the_finish_each_player_shows_their_place_and_no_remove_button(client, staff, make_players):
    players = make_players(2)
    t = gin_swiss(staff, players)
    client.force_login(staff)
    running = client.get(reverse("tournaments:staff", args=[t.pk])).content.decode()
    assert running.count("Entfernen</button>") == 2
    play_tournament(t.pk)
    page = client.get(reverse("tournaments:staff", args=[t.pk])).content.decode()
    assert "Entfernen</button>" not in page and "Wieder aufnehmen</button>" not in page
    assert "<td>spielt" not in page
    assert "<td>Platz 1" in page and "<td>Platz 2" in page


def test_after_a_cancel_no_player_can_be_removed_and_each_shows_the_cancel(client, staff, make_players):
    t = gin_swiss(staff, make_players(2))
    tournament_services.tournament_cancel(tournament_id=t.pk, by=staff, reason="Gewitter")
    client.force_login(staff)
    page = client.get(reverse("tournaments:staff", args=[t.pk])).content.decode()
    assert "Entfernen</button>" not in page
    players, log = page.split("Protokoll</h2>")
    assert players.count("<td>Turnier abgesagt") == 2
    assert "<td>Turnier abgesagt</td><td>Gewitter</td>" in log


def test_a_correction_in_the_log_names_the_series_the_table_and_the_reason(client, staff, make_players):
    t = started(staff, make_players(3), name="Kurz", game="romme", format="series",
                settings={"series": 1, **FAST}, options={})
    play_tournament(t.pk)
    st = t.stages.get().tables.get()
    seats = [{"user_id": u, "wertungspunkte": wp, "augen": a, "rounds_won": w, "abbruch": False}
             for u, wp, a, w in zip(st.users, (5, 5, 3), (0, 0, 40), (1, 1, 0), strict=True)]
    tournament_services.tournament_result_correct(tournament_id=t.pk, stage_table_id=st.pk, by=staff,
                                                  result={"seats": seats}, reason="Schiedsrichterentscheid")
    client.force_login(staff)
    page = client.get(reverse("tournaments:staff", args=[t.pk])).content.decode()
    assert "<td>Serie 1 gestartet</td>" in page
    assert "<td>Ergebnis korrigiert: Serie 1, Tisch 1</td><td>Schiedsrichterentscheid</td>" in page
