"""A forfeit explained where it shows (issue 27.7): a no-show who lost by the forfeit rule reads "kampflos" (by
forfeit) in the standings, for both players, and the audit log says who lost by forfeit at which table. A match
resigned by someone who had played is no forfeit."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse

from games import services as games_services
from games.models import Table
from tests.games.helpers import state_of
from tests.tournaments.helpers import started
from tournaments import selectors as tournament_selectors
from tournaments import services as tournament_services
from tournaments.models import AuditEntry

pytestmark = pytest.mark.django_db(transaction=True)

FAST = {"check_in_minutes": 0, "break_minutes": 0}


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def forfeited_swiss(staff, players):
    """A one-round gin Swiss of two whose seat to act lets its first turn run out and never comes back: the
    forfeit rule takes the match from it. Returns the tournament, the no-show and the winner."""
    t = started(staff, players, name="Nikolaus", game="gin", format="swiss",
                settings={"rounds": 1, "forfeit_minutes": 5, **FAST}, options={"target": 0})
    row = tournament_selectors.tournament_tables(tournament_id=t.pk)[0]
    table = Table.objects.get(pk=row["table"])
    absent = state_of(table).to_act
    assert games_services.turn_timeout(table_id=table.pk, now=table.turn_deadline + timedelta(seconds=1))
    match = Table.objects.get(pk=table.pk).current_match
    assert tournament_services.tournaments_tick(now=match.started_at + timedelta(minutes=5, seconds=1)) >= 1
    no_show, winner = (next(u for u in players if u.pk == row["users"][i]) for i in (absent, 1 - absent))
    return t, no_show, winner


def test_a_forfeit_reads_kampflos_in_the_standings_for_both_players(client, staff, make_players):
    t, no_show, winner = forfeited_swiss(staff, make_players(2))
    page = _text(client.get(reverse("tournaments:detail", kwargs={"tournament_id": t.pk})).content.decode())
    assert f"kampflos gegen {no_show.username}" in page and f"kampflos gegen {winner.username}" in page
    assert "+0 gegen" not in page


def test_a_forfeit_has_its_line_in_the_audit_log(client, staff, make_players):
    t, no_show, _winner = forfeited_swiss(staff, make_players(2))
    entry = AuditEntry.objects.get(tournament=t, action="forfeit")
    assert entry.by is None and entry.details["user_id"] == no_show.pk  # the site's own rule, not staff
    client.force_login(staff)
    page = _text(client.get(reverse("tournaments:staff", args=[t.pk])).content.decode())
    assert f"Kampflos verloren: {no_show.username}, Runde 1, Tisch 1" in page


def test_the_forfeit_in_english(client, staff, make_players):
    t, no_show, winner = forfeited_swiss(staff, make_players(2))
    staff.profile.language = "en"
    staff.profile.save()
    client.force_login(staff)
    page = _text(client.get(reverse("tournaments:detail", kwargs={"tournament_id": t.pk})).content.decode())
    assert f"by forfeit against {no_show.username}" in page and f"by forfeit against {winner.username}" in page
    staff_page = _text(client.get(reverse("tournaments:staff", args=[t.pk])).content.decode())
    assert f"Lost by forfeit: {no_show.username}, Round 1, table 1" in staff_page


def test_a_match_resigned_after_playing_is_no_forfeit(client, staff, make_players):
    from tests.tournaments.helpers import play_tournament

    players = make_players(2)
    t = started(staff, players, name="Gespielt", game="gin", format="swiss", settings={"rounds": 1, **FAST},
                options={"target": 0})
    play_tournament(t.pk)
    page = _text(client.get(reverse("tournaments:detail", kwargs={"tournament_id": t.pk})).content.decode())
    assert "kampflos" not in page
    assert not AuditEntry.objects.filter(tournament=t, action="forfeit").exists()


@pytest.mark.parametrize(("language", "against", "resigned"), [("de", "gegen", "durch Aufgabe"),
                                                          ("en", "against", "by resignation")])
def test_a_resigned_tournament_match_says_so_in_both_players_cells(client, staff, make_players, language, against,
                                                                    resigned):
    players = make_players(2)
    t = started(staff, players, name="Aufgabe", game="gin", format="swiss", settings={"rounds": 1, **FAST},
                options={"target": 100})
    row = tournament_selectors.tournament_tables(tournament_id=t.pk)[0]
    quitter, winner = (next(u for u in players if u.pk == row["users"][i]) for i in (0, 1))
    games_services.match_resign(table_id=row["table"], user=quitter)
    staff.profile.language = language
    staff.profile.save()
    client.force_login(staff)
    page = _text(client.get(reverse("tournaments:detail", kwargs={"tournament_id": t.pk})).content.decode())
    assert re.search(rf"\+\d+ {against} {quitter.username} {resigned}", page), page  # the winner's cell
    assert re.search(rf"\u2212\d+ {against} {winner.username} {resigned}", page), page  # the quitter's
    assert "kampflos" not in page and "by forfeit" not in page


@pytest.mark.parametrize(("language", "cells"), [
    ("de", ["Sieg gegen ben durch Aufgabe", "Niederlage gegen ben durch Aufgabe", "+13 gegen ben durch Aufgabe",
            "\u221213 gegen ben durch Aufgabe"]),
    ("en", ["Win against ben by resignation", "Loss against ben by resignation", "+13 against ben by resignation",
            "\u221213 against ben by resignation"]),
])
def test_a_resignation_before_anyone_scored_says_who_won_in_words(staff, language, cells):
    from django.utils import translation

    from tournaments import formats

    t = tournament_services.tournament_create(by=staff, name="Marge", game="gin", format="swiss", settings={})
    fmt = formats.of(t)
    with translation.override(language):
        assert [fmt.stage_cell({"opponent": 2, "won": won, "margin": margin, "resigned": True}, {2: "ben"})
                for margin, won in ((0, True), (0, False), (13, True), (13, False))] == cells
