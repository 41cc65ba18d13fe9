"""The format seam: a format that exists only in this file, registered by a fixture, is run end to end by
the tournament machinery as it is (the staff's create form with its own field, create, publish, register,
start, tables played by the bots, stages advancing, finish, standings, the page, the CSV) — no line outside
this file knows it."""

import re
from typing import Any, ClassVar

import pytest
from django import forms
from django.urls import reverse

from games import registry
from games.models import Match, Table
from tests.tournaments.helpers import play_tournament, started
from tournaments import formats
from tournaments import selectors as tournament_selectors
from tournaments import services as tournament_services
from tournaments.errors import TournamentError
from tournaments.fields import table_option_field, whole_number_field
from tournaments.formats.base import TournamentFormat, int_setting
from tournaments.models import StageTable, Tournament

SETTINGS_FAST = {"check_in_minutes": 0, "break_minutes": 0}


class HomeAndAwayFormat(TournamentFormat):
    """Hin- und Rückspiel (test only): players are paired in registration order and the pair plays
    ``legs`` (2) gin matches, the seats swapped each leg; an odd player out has a bye every leg.
    Standings: wins (a bye counts as one), then the margin; still equal shares the place. A void match
    is a loss for both."""

    name = "hin_rueck"
    game = "gin"
    label = "Hin- und Rückspiel"
    defaults: ClassVar[dict[str, Any]] = {"legs": 2}

    table_option_names = ("target", "turn_seconds")

    @classmethod
    def own_form_fields(cls) -> dict[str, forms.Field]:
        # Its own option, and a gin table option as the game's registry entry offers it.
        return {"legs": whole_number_field("Partien je Paarung", low=1, high=4, default=cls.defaults["legs"],
                                           help_text="Die Plätze werden jede Partie getauscht."),
                "target": table_option_field(cls.game, "target")}

    @classmethod
    def check_settings(cls, s):
        int_setting("legs", s["legs"], 1, 4)

    @classmethod
    def check_options(cls, options, settings):
        try:
            registry.get(cls.game).engine.normalize_options(options)
        except ValueError as error:
            raise TournamentError("bad_options", f"Ungültige Tischoption: {error}") from None
        return options

    def table_options(self, seats):
        return dict(self.t.options)

    def stage_count(self, players=None):
        return self.settings["legs"]

    def seating(self, number, rating):
        players = [e.user_id for e in self.playing()]
        pairs = [players[i:i + 2] for i in range(0, len(players), 2)]
        return [[pair[0], None] if len(pair) == 1 else pair if number % 2 else pair[::-1] for pair in pairs]

    def bye_result(self, seats):
        return {"winner": seats[0], "loser": None, "margin": 0}

    def table_result(self, st, match):
        result = match.result or {}
        winner = result.get("winner")
        if match.status != Match.Status.FINISHED or not isinstance(winner, int):
            return {"void": True}
        final = result["final"]
        return {"winner": st.users[winner], "loser": st.users[1 - winner],
                "margin": max(0, final[winner] - final[1 - winner])}

    def corrected_result(self, st, result):
        if result.get("winner") not in st.users or None in st.users:
            raise TournamentError("bad_result", "Das Ergebnis hat nicht die erwartete Form.")
        winner = result["winner"]
        return {"winner": winner, "loser": next(u for u in st.users if u != winner), "margin": 0}

    def standings(self):
        stages = self.t.stages.count()
        rows = {e.user_id: {"user_id": e.user_id, "place": None, "stages": [None] * stages, "wins": 0, "margin": 0}
                for e in self.participants()}
        for st in self.finished_tables():
            r, n = st.result, st.stage.number - 1
            for me, other in ((st.users[0], st.users[1]), (st.users[1], st.users[0])):
                if me is None:
                    continue
                won = r.get("winner") == me
                margin = r.get("margin", 0)
                rows[me]["stages"][n] = {"opponent": other, "won": won, "void": bool(r.get("void"))}
                rows[me]["wins"] += won
                rows[me]["margin"] += margin if won else -margin
        ordered = sorted(rows.values(), key=lambda row: (-row["wins"], -row["margin"]))
        for i, row in enumerate(ordered):
            same = i and (row["wins"], row["margin"]) == (ordered[i - 1]["wins"], ordered[i - 1]["margin"])
            row["place"] = ordered[i - 1]["place"] if same else i + 1
        return ordered

    def columns(self):
        return [("Siege", "wins"), ("Differenz", "margin")]

    def stage_label(self, number):
        return f"Spiel {number}"

    def stage_cell(self, entry, names):
        if not entry:
            return "–"
        if entry["opponent"] is None:
            return "Freilos"
        return f"{'Sieg' if entry['won'] else 'Niederlage'} gegen {names.get(entry['opponent'], '?')}"


@pytest.fixture
def home_and_away():
    formats.register(HomeAndAwayFormat)
    yield HomeAndAwayFormat
    formats.unregister(HomeAndAwayFormat.name)


@pytest.mark.django_db(transaction=True)
def test_a_format_registered_by_a_test_runs_a_whole_tournament(home_and_away, staff, make_players, client):
    players = make_players(5)
    t = started(staff, players, name="Hin und zurück", game="gin", format="hin_rueck", settings=SETTINGS_FAST,
                options={"target": 0})
    assert t.status == Tournament.Status.RUNNING and t.settings["legs"] == 2

    seatings = play_tournament(t.pk)
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED and len(seatings) == 2
    ids = [p.pk for p in players]
    first, second = ([row["users"] for row in stage] for stage in seatings)
    assert first == [[ids[0], ids[1]], [ids[2], ids[3]], [ids[4], None]]
    assert second == [[ids[1], ids[0]], [ids[3], ids[2]], [ids[4], None]]  # the seats swapped
    played = StageTable.objects.filter(stage__tournament=t, table__isnull=False)
    assert played.count() == 4 and all(st.table.status == Table.Status.FINISHED for st in played)
    assert all(Table.objects.get(pk=st.table_id).tournament for st in played)

    standings = tournament_selectors.tournament_standings(tournament_id=t.pk)
    assert sum(row["wins"] for row in standings) == 4 + 2  # four matches won, two byes
    assert standings[0]["place"] == 1 and [r["wins"] for r in standings] == sorted((r["wins"] for r in standings),
                                                                                   reverse=True)
    assert t.final_standings == standings

    page = client.get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    assert "Hin- und Rückspiel" in page and "<th>Siege</th>" in page and "<th>Spiel 2</th>" in page

    client.force_login(staff)  # the CSV: the format's columns, its stages' cells in words (the base's default)
    rows = client.get(reverse("tournaments:staff_csv", args=[t.pk])).content.decode("utf-8-sig").splitlines()
    assert rows[0] == "Platz;Spieler;Siege;Differenz;Spiel 1;Spiel 2"
    assert any(";Freilos;Freilos" in row for row in rows[1:6])


@pytest.mark.django_db(transaction=True)
def test_a_format_registered_by_a_test_goes_through_the_staff_create_form_with_its_own_field(home_and_away,
                                                                                             staff, client):
    client.force_login(staff)
    url = reverse("tournaments:staff_create")
    page = client.get(url, {"kind": "gin:hin_rueck"}).content.decode()
    own = re.search(r'<fieldset class="tn-fields" data-kind="gin:hin_rueck">(.*?)</fieldset>', page, re.S)
    assert own is not None, "the test format's fields are the ones shown"
    assert 'name="legs"' in own.group(1) and "Partien je Paarung" in own.group(1)
    assert '<option value="gin:hin_rueck" selected>Gin Rommé: Hin- und Rückspiel</option>' in page
    swiss = re.search(r'<fieldset class="tn-fields" data-kind="gin:swiss" hidden disabled>(.*?)</fieldset>', page,
                      re.S)
    assert swiss is not None and 'name="legs"' not in swiss.group(1)

    response = client.post(url, {"name": "Hin und zurück", "kind": "gin:hin_rueck", "legs": "3", "target": "0",
                                 "turn_seconds": "30", "check_in_minutes": "0"})
    assert response.status_code == 302
    t = Tournament.objects.get()
    assert (t.game, t.format, t.settings["legs"], t.settings["check_in_minutes"]) == ("gin", "hin_rueck", 3, 0)
    assert t.options == {"target": 0, "turn_seconds": 30}


@pytest.mark.django_db(transaction=True)
def test_the_test_formats_own_field_is_refused_for_another_kind(home_and_away, staff, client):
    client.force_login(staff)
    response = client.post(reverse("tournaments:staff_create"), {"name": "Abend", "kind": "gin:swiss", "legs": "2"})
    assert response.status_code == 400
    assert "„Partien je Paarung“ gehört nicht zu „Gin Rommé: Schweizer System“" in response.content.decode()
    assert not Tournament.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_test_format_option_is_checked_by_its_class(home_and_away, staff):
    with pytest.raises(TournamentError) as refused:
        tournament_services.tournament_create(by=staff, name="X", game="gin", format="hin_rueck",
                                              settings={"legs": 9})
    assert refused.value.code == "bad_settings" and "legs" in refused.value.message
    assert not Tournament.objects.exists()


def test_a_format_unregistered_is_refused_by_name(home_and_away):
    formats.unregister(home_and_away.name)
    with pytest.raises(TournamentError) as refused:
        tournament_services.normalize_settings("gin", "hin_rueck", {})
    assert refused.value.code == "bad_settings"
    assert formats.names("gin") == ("swiss", "knockout", "round_robin", "arena")


def test_a_format_name_belongs_to_one_class(home_and_away):
    class Impostor(HomeAndAwayFormat):
        pass

    with pytest.raises(ValueError, match="registered already"):
        formats.register(Impostor)
    assert formats.get("hin_rueck") is HomeAndAwayFormat


def test_a_format_name_must_fit_the_tournament_row():
    class TooLong(HomeAndAwayFormat):
        name = "hin_und_rueckspiel"

    with pytest.raises(ValueError, match="characters"):
        formats.register(TooLong)
    with pytest.raises(KeyError):
        formats.get("hin_und_rueckspiel")
