"""The staff's create form per format (issue 27.6): the page shows the fields the chosen kind's format declares,
labelled for its one game; a value for a field of another kind is refused with a clear message, not dropped;
the turn time reaches the tournament's tables; the minimum of players decides at the start; the format's name
is checked against the format registry (no choices list in a migration)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone, translation

from games.models import Table
from tests.tournaments.helpers import play_stage, started
from tournaments import formats, forms, hooks
from tournaments import services as tournament_services
from tournaments.errors import TournamentError
from tournaments.formats.base import TournamentFormat
from tournaments.models import AuditEntry, StageTable, Tournament

# Each transactional test flushes the database after it (seconds each): only the tests that need committed rows
# are (those playing a stage).
pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


def create(client, **fields):
    return client.post(reverse("tournaments:staff_create"), {"name": "Abend", "kind": "gin:swiss", **fields})


def fieldset(page: str, kind: str) -> tuple[str, str]:
    """The attributes after ``data-kind`` and the inside of the fieldset of ``kind``."""
    found = re.search(rf'<fieldset class="tn-fields" data-kind="{kind}"([^>]*)>(.*?)</fieldset>', page, re.S)
    assert found is not None, kind
    return found.group(1), found.group(2)


def names_in(html: str) -> list[str]:
    return re.findall(r'<(?:input|select)[^>]* name="([^"]+)"', html)


def messages(response) -> str:
    return " ".join(re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', response.content.decode(), re.S))


# --- the page shows one kind -------------------------------------------------------------------------------


def test_the_page_shows_the_chosen_kinds_fields_and_hides_and_disables_the_others(staff_client):
    page = staff_client.get(reverse("tournaments:staff_create"), {"kind": "gin:swiss"}).content.decode()
    attrs, swiss = fieldset(page, "gin:swiss")
    assert attrs == ""  # shown and posted
    assert names_in(swiss) == ["rounds", "target", "forfeit_minutes", "turn_seconds", "min_players", "max_players",
                               "check_in_minutes", "break_minutes"]
    for other in ("romme:series", "gin:knockout", "gin:round_robin"):
        attrs, _inside = fieldset(page, other)
        assert attrs == " hidden disabled", other  # not shown, and its fields not posted
    assert names_in(fieldset(page, "romme:series")[1]) == ["series", "rounds", "table_size", "same_deals",
                                                           "turn_seconds", "min_players", "max_players",
                                                           "check_in_minutes", "break_minutes"]
    assert re.search(r'<option value="gin:swiss" selected>', page)
    assert "tournaments/create.js" in page  # swaps the sets in place
    # Without the script: a link per other kind loads the page with that kind's fields.
    links = re.search(r"<noscript>(.*?)</noscript>", page, re.S).group(1)
    assert re.findall(r'href="\?kind=([^"]+)"', links) == ["romme%3Aseries", "gin%3Aknockout", "gin%3Around_robin",
                                                                         "gin%3Aarena", "romme%3Aarena"]


def test_each_kinds_labels_speak_of_its_own_game_only(staff_client):
    page = staff_client.get(reverse("tournaments:staff_create")).content.decode()
    swiss = fieldset(page, "gin:swiss")[1]
    series = fieldset(page, "romme:series")[1]
    assert "Rommé" not in swiss.replace("Gin Rommé", "") and "Liste" not in swiss and "Serie" not in swiss
    assert "Gin" not in series and "Partie bis" not in series
    assert "Runden je Liste" in series and "Pause zwischen den Serien (Minuten)" in series
    assert "Pause zwischen den Runden (Minuten)" in swiss and "Kampflos verloren nach (Minuten)" in swiss


def test_each_kind_shows_its_own_defaults(staff_client):
    page = staff_client.get(reverse("tournaments:staff_create")).content.decode()
    series, swiss = fieldset(page, "romme:series")[1], fieldset(page, "gin:swiss")[1]
    assert re.search(r'name="min_players"[^>]*placeholder="3"', series)
    assert re.search(r'name="min_players"[^>]*placeholder="2"', swiss)
    assert re.search(r'name="table_size"[^>]*placeholder="4"', series)
    robin = fieldset(page, "gin:round_robin")[1]
    assert re.search(r'name="max_players"[^>]*max="10"', robin)


def test_the_ids_stay_unique_across_the_kinds(staff_client):
    page = staff_client.get(reverse("tournaments:staff_create")).content.decode()
    ids = re.findall(r' id="(id_[^"]+)"', page)
    assert len(ids) == len(set(ids))


# --- a field of another kind is refused, never dropped ---------------------------------------------------


@pytest.mark.parametrize("kind, field, value, label", [
    ("gin:swiss", "series", "2", "Serien"),
    ("gin:knockout", "same_deals", "on", "Gleiche Karten an allen Tischen einer Größe"),
    ("gin:round_robin", "table_size", "4", "Tischgröße"),
    ("gin:knockout", "rounds", "3", "Runden je Liste"),
    ("romme:series", "target", "100", "Partie bis"),
    ("romme:series", "forfeit_minutes", "5", "Kampflos verloren nach (Minuten)"),
])
def test_a_field_of_another_kind_is_refused_with_a_clear_message(staff_client, kind, field, value, label):
    response = create(staff_client, kind=kind, **{field: value})
    assert response.status_code == 400
    assert f"„{label}“ gehört nicht zu „{formats.of_kind(kind).kind_label()}“" in messages(response)
    assert not Tournament.objects.exists()


def test_several_fields_of_another_kind_are_named_together(staff_client):
    response = create(staff_client, series="2", table_size="5", same_deals="on")
    text = messages(response)
    assert response.status_code == 400
    assert "Die Felder „Serien“, „Tischgröße“, „Gleiche Karten an allen Tischen einer Größe“ gehören nicht zu" in text


def test_an_empty_field_of_another_kind_is_no_value(staff_client):
    # A page without its script posts the other kinds' empty fields too; they take no value, so they are fine.
    response = create(staff_client, series="", table_size="", rounds="4")
    assert response.status_code == 302
    t = Tournament.objects.get()
    assert (t.format, t.settings["rounds"]) == ("swiss", 4) and "series" not in t.settings


def test_the_edit_form_refuses_a_field_of_another_kind_too(staff_client, staff):
    t = tournament_services.tournament_create(by=staff, name="Entwurf", game="gin", format="knockout")
    before = (dict(t.settings), dict(t.options))
    response = staff_client.post(reverse("tournaments:staff_action", args=[t.pk, "edit"]),
                                 {"name": "Entwurf", "series": "4"})
    assert response.status_code == 400
    assert "„Serien“ gehört nicht zu „Gin Rommé: K.-o.-System“" in response.content.decode()
    t.refresh_from_db()
    assert (t.settings, t.options) == before


def test_the_refusal_is_in_english_for_english_staff(staff_client, staff):
    staff.profile.language = "en"
    staff.profile.save()
    response = create(staff_client, kind="gin:swiss", series="2")
    assert response.status_code == 400
    assert "The field “Series” does not belong to “Gin Rummy: Swiss system”" in \
        response.content.decode().replace("&ldquo;", "“").replace("&rdquo;", "”")


# --- turn time ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind, players, extra", [
    ("gin:swiss", 2, {"rounds": "1", "target": "0"}),
    ("romme:series", 3, {"series": "1", "rounds": "1"}),
])
def test_the_turn_time_reaches_the_tournaments_tables(staff_client, staff, make_players, kind, players, extra):
    response = create(staff_client, kind=kind, turn_seconds="90", check_in_minutes="0", break_minutes="0", **extra)
    assert response.status_code == 302
    t = Tournament.objects.get()
    assert t.options["turn_seconds"] == 90
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    for user in make_players(players):
        tournament_services.tournament_register(tournament_id=t.pk, user=user)
    before = timezone.now()
    tournament_services.tournament_start(tournament_id=t.pk, by=staff)
    tables = Table.objects.filter(pk__in=StageTable.objects.filter(stage__tournament=t).values("table_id"))
    assert tables and all(table.options["turn_seconds"] == 90 for table in tables)
    for table in tables:
        # The first turn's clock runs 90 s, not the 45 s of before.
        assert timedelta(seconds=89) <= table.turn_deadline - before <= timedelta(seconds=95)


def test_an_empty_turn_time_is_the_games_default(staff_client):
    assert create(staff_client, turn_seconds="").status_code == 302
    t = Tournament.objects.get()
    assert "turn_seconds" not in t.options  # the engine's default (45 s) applies


@pytest.mark.parametrize("value", ["50", "0", "-45", "4.5", "9" * 400, "\x00"])
def test_a_turn_time_the_game_does_not_offer_is_a_field_error(staff_client, value):
    response = create(staff_client, turn_seconds=value)
    assert response.status_code == 400
    assert messages(response)
    assert not Tournament.objects.exists()


def test_a_drafts_turn_time_is_changed_on_edit(staff_client, staff):
    t = tournament_services.tournament_create(by=staff, name="Entwurf", game="gin", format="swiss",
                                              options={"target": 50})
    response = staff_client.post(reverse("tournaments:staff_action", args=[t.pk, "edit"]),
                                 {"name": "Entwurf", "turn_seconds": "60"})
    assert response.status_code == 302
    t.refresh_from_db()
    assert t.options == {"target": 50, "turn_seconds": 60}


# --- the minimum of players -------------------------------------------------------------------------------


def _open_with(staff_client, staff, make_players, *, registered: int, **fields) -> Tournament:
    assert create(staff_client, **fields).status_code == 302
    t = Tournament.objects.get()
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    for user in make_players(registered):
        tournament_services.tournament_register(tournament_id=t.pk, user=user)
    return t


def test_fewer_players_than_the_minimum_at_the_start_cancel_it_with_one_clear_audit_entry(staff_client, staff,
                                                                                         make_players):
    t = _open_with(staff_client, staff, make_players, registered=3, min_players="4", check_in_minutes="0")
    assert t.settings["min_players"] == 4
    tournament_services.tournament_start(tournament_id=t.pk, by=staff)
    t.refresh_from_db()
    assert t.status == Tournament.Status.CANCELLED and not t.stages.exists()
    assert "zu wenige Teilnehmer" in t.notice and "3 angemeldet, mindestens 4" in t.notice
    actions = list(AuditEntry.objects.filter(tournament=t).values_list("action", flat=True))
    assert actions == ["create", "publish", "cancel"]  # it never started: no "start" entry
    entry = AuditEntry.objects.get(tournament=t, action="cancel")
    assert entry.details["why"] == "too_few_players" and entry.details["min_players"] == 4
    assert len(entry.details["players"]) == 3
    log = staff_client.get(reverse("tournaments:staff", args=[t.pk])).content.decode()
    assert "Turnier abgesagt: beim Start nur 3 Teilnehmer angemeldet, mindestens 4" in log


def test_the_minimum_counts_who_checked_in(staff_client, staff, make_players):
    starts = timezone.now() + timedelta(minutes=5)
    t = _open_with(staff_client, staff, make_players, registered=4, kind="gin:knockout", min_players="4",
                   check_in_minutes="10", starts_at=timezone.localtime(starts).strftime("%Y-%m-%d %H:%M"))
    for entry in list(t.entries.order_by("number"))[:3]:
        tournament_services.tournament_check_in(tournament_id=t.pk, user=entry.user)
    tournament_services.tournaments_tick(now=t.starts_at)  # the referee at the start time
    t.refresh_from_db()
    assert t.status == Tournament.Status.CANCELLED
    entry = AuditEntry.objects.get(tournament=t, action="cancel")
    assert entry.by is None and entry.details["checked_in"] is True and len(entry.details["players"]) == 3
    staff.profile.language = "en"
    staff.profile.save()
    log = staff_client.get(reverse("tournaments:staff", args=[t.pk])).content.decode()
    assert "Tournament cancelled: only 3 players checked in at the start, at least 4 needed" in log


@pytest.mark.django_db(transaction=True)  # plays a stage: the tables end only on commit
def test_the_minimum_reached_starts_the_tournament(staff_client, staff, make_players):
    t = _open_with(staff_client, staff, make_players, registered=4, min_players="4", check_in_minutes="0",
                   rounds="1", target="0")
    tournament_services.tournament_start(tournament_id=t.pk, by=staff)
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING and t.stages.count() == 1
    play_stage(t.pk)


@pytest.mark.parametrize("kind, fields, field", [
    ("romme:series", {"min_players": "2"}, "min_players"),  # Rommé needs three at least
    ("gin:swiss", {"min_players": "1"}, "min_players"),
    ("gin:swiss", {"min_players": "8", "max_players": "6"}, "min_players"),
    ("gin:round_robin", {"max_players": "12"}, "max_players"),  # ten at most: refused, not cut to ten
    ("gin:round_robin", {"min_players": "11"}, "min_players"),
])
def test_a_minimum_or_maximum_that_does_not_fit_is_a_field_error(staff_client, kind, fields, field):
    response = create(staff_client, kind=kind, **fields)
    assert response.status_code == 400
    assert re.search(rf'id="id_create_{field}"', response.content.decode())
    assert messages(response)
    assert not Tournament.objects.exists()


def test_the_service_refuses_a_minimum_above_the_maximum_and_a_round_robin_over_ten(staff):
    for game, format, settings in (("gin", "swiss", {"min_players": 8, "max_players": 6}),
                                   ("gin", "round_robin", {"max_players": 12})):
        with pytest.raises(TournamentError) as refused:
            tournament_services.tournament_create(by=staff, name="X", game=game, format=format, settings=settings)
        assert refused.value.code == "bad_settings"
    assert not Tournament.objects.exists()


# --- the format's name is the registry's ---------------------------------------------------------------------


class _Extra(TournamentFormat):
    """A format of this file only: registered, it needs no migration; unregistered, its name is refused."""

    name = "extra"
    game = "gin"
    label = "Extra"


def test_a_format_name_is_checked_against_the_registry_not_a_migration(staff, staff_client):
    with pytest.raises(TournamentError) as refused:
        tournament_services.tournament_create(by=staff, name="X", game="gin", format="extra")
    assert refused.value.code == "bad_settings"
    response = create(staff_client, kind="gin:extra")
    assert response.status_code == 400 and not Tournament.objects.exists()

    formats.register(_Extra)
    try:
        assert ("gin:extra", "Gin Rommé: Extra") in [(v, str(label)) for v, label in forms.kind_choices()]
        call_command("makemigrations", "tournaments", "--check", "--dry-run", verbosity=0)  # exits 1 on a change
    finally:
        formats.unregister("extra")


def test_the_migrations_state_carries_no_list_of_formats():
    from django.db.migrations.loader import MigrationLoader

    state = MigrationLoader(None, ignore_no_migrations=True).project_state()
    field = state.models["tournaments", "tournament"].fields["format"]
    assert not field.choices and field.max_length == 12


# --- the abort refusal asks the format -------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # plays a stage: the tables end only on commit
def test_the_forfeit_note_of_an_abort_refusal_comes_from_the_format_in_the_readers_language(staff, make_players):
    t = started(staff, make_players(2), name="Gin", game="gin", format="swiss",
                settings={"rounds": 1, "forfeit_minutes": 1, "check_in_minutes": 0, "break_minutes": 0},
                options={"target": 0})
    table = StageTable.objects.get(stage__tournament=t).table
    with translation.override("de"):
        assert hooks.abort_refusal_note(table).startswith("Wer 1 Minute nach dem Beginn")
    with translation.override("en"):
        assert hooks.abort_refusal_note(table).startswith("Whoever has not made a move of their own 1 minute")


@pytest.mark.django_db(transaction=True)  # plays a stage: the tables end only on commit
def test_a_format_without_a_forfeit_rule_adds_no_note(staff, make_players):
    t = started(staff, make_players(3), name="Serie", game="romme", format="series",
                settings={"series": 1, "rounds": 1, "check_in_minutes": 0, "break_minutes": 0}, options={})
    assert hooks.abort_refusal_note(StageTable.objects.get(stage__tournament=t).table) is None


# --- the staff page ---------------------------------------------------------------------------------------------


def test_the_drafts_edit_form_shows_its_formats_fields_and_cancelling_stands_apart(staff_client, staff):
    t = tournament_services.tournament_create(by=staff, name="Serie", game="romme", format="series")
    page = staff_client.get(reverse("tournaments:staff", args=[t.pk])).content.decode()
    edit = re.search(r'<form method="post" class="tn-form tn-edit"[^>]*>(.*?)</form>', page, re.S).group(1)
    assert "Optionen für Rommé: Serienturnier (Masters)" in edit
    assert names_in(edit)[3:] == ["series", "rounds", "table_size", "same_deals", "turn_seconds", "min_players",
                                  "max_players", "check_in_minutes", "break_minutes"]
    danger = re.search(r'<section class="tn-staff tn-danger">(.*?)</section>', page, re.S).group(1)
    assert 'class="button button-danger"' in danger and "Absagen" in danger and "Veröffentlichen" not in danger
