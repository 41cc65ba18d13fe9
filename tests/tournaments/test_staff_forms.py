"""The staff's forms (create, edit, publish, pause, cancel, remove, reinstate, correct a result): every field
is checked by a Django form. Bad input is a field error in German on the same page (400, the posted values
kept), never a server error, and changes nothing; start times are read and shown in the site's time zone."""

from __future__ import annotations

import re
import zoneinfo
from datetime import datetime, timedelta
from html.parser import HTMLParser

import pytest
from django.conf import settings as django_settings
from django.urls import reverse
from django.utils import timezone

from tests.tournaments.helpers import play_stage, started
from tournaments import services as tournament_services
from tournaments.models import AuditEntry, Entry, Tournament

# Each transactional test flushes the database after it (seconds each): only the tests that need committed rows
# are (those playing a stage).
pytestmark = pytest.mark.django_db

SITE_ZONE = zoneinfo.ZoneInfo(django_settings.TIME_ZONE)
FAST = {"check_in_minutes": 0, "break_minutes": 0}


def local(when: datetime) -> str:
    """``when`` as staff type it: in the site's time zone, without an offset."""
    return when.astimezone(SITE_ZONE).strftime("%Y-%m-%d %H:%M")


def in_days(days: int) -> datetime:
    return (timezone.now() + timedelta(days=days)).replace(second=0, microsecond=0)


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


@pytest.fixture
def draft(staff):
    return tournament_services.tournament_create(by=staff, name="Entwurf", game="gin", format="swiss",
                                                 starts_at=in_days(3))


def create(client, **fields):
    return client.post(reverse("tournaments:staff_create"), {"name": "Abend", "kind": "gin:swiss", **fields})


def action(client, t, what, **fields):
    return client.post(reverse("tournaments:staff_action", args=[t.pk, what]), fields)


def snapshot():
    """Everything a staff action may write."""
    return (list(Tournament.objects.order_by("pk").values()), list(Entry.objects.order_by("pk").values()),
            AuditEntry.objects.count())


def field_errors(response) -> str:
    return " ".join(re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', response.content.decode(), re.S))


# --- create ---------------------------------------------------------------------------------------------


def test_max_players_of_five_thousand_digits_is_a_field_error(staff_client):
    response = create(staff_client, max_players="9" * 5000)
    assert response.status_code == 400
    assert "ganze Zahl" in field_errors(response)
    assert not Tournament.objects.exists()


def test_max_players_of_four_and_a_half_is_a_field_error(staff_client):
    response = create(staff_client, max_players="4.5")
    assert response.status_code == 400
    assert "ganze Zahl" in field_errors(response)
    assert not Tournament.objects.exists()


@pytest.mark.parametrize("field", ["name", "max_players", "starts_at", "rounds", "break_minutes"])
def test_a_nul_byte_in_any_field_is_a_field_error(staff_client, field):
    value = {"name": "Abend\x00", "starts_at": local(in_days(2)) + "\x00"}.get(field, "3\x00")
    response = create(staff_client, **{field: value})
    assert response.status_code == 400
    assert field_errors(response)
    assert not Tournament.objects.exists()


def test_a_start_on_the_forty_fifth_of_the_thirteenth_month_is_a_field_error(staff_client):
    response = create(staff_client, starts_at="2025-13-45 99:99")
    assert response.status_code == 400
    assert "Datum" in field_errors(response)
    assert not Tournament.objects.exists()


def test_an_offset_of_ninety_nine_hours_is_a_field_error(staff_client):
    response = create(staff_client, starts_at=in_days(2).strftime("%Y-%m-%dT%H:%M") + "+99:00")
    assert response.status_code == 400
    assert "Datum" in field_errors(response)
    assert not Tournament.objects.exists()


def test_a_time_beyond_the_calendar_in_utc_is_a_field_error(staff_client):
    response = create(staff_client, starts_at="9999-12-31T23:59-12:00")
    assert response.status_code == 400
    assert field_errors(response)
    assert not Tournament.objects.exists()


def test_a_start_in_the_past_is_refused(staff_client):
    response = create(staff_client, starts_at=local(timezone.now() - timedelta(minutes=5)))
    assert response.status_code == 400
    assert "Vergangenheit" in field_errors(response)
    assert not Tournament.objects.exists()


def test_a_start_time_that_does_not_exist_in_the_site_time_zone_is_a_field_error(staff_client):
    # The clocks jump from 02:00 to 03:00 on the last Sunday of March in Berlin.
    year = timezone.now().year + 1
    last_sunday = max(d for d in (datetime(year, 3, day) for day in range(25, 32)) if d.weekday() == 6)
    response = create(staff_client, starts_at=f"{last_sunday:%Y-%m-%d} 02:30")
    assert response.status_code == 400
    assert field_errors(response)
    assert not Tournament.objects.exists()


def test_a_start_is_read_in_the_site_time_zone(staff_client):
    start = in_days(10)
    response = create(staff_client, starts_at=local(start))
    assert response.status_code == 302
    assert Tournament.objects.get().starts_at == start


def test_a_start_with_an_offset_is_converted(staff_client):
    start = in_days(10)
    response = create(staff_client, starts_at=start.astimezone(zoneinfo.ZoneInfo("America/New_York")).isoformat())
    assert response.status_code == 302
    assert Tournament.objects.get().starts_at == start


def test_the_create_form_names_the_time_zone_next_to_the_start(staff_client):
    page = staff_client.get(reverse("tournaments:staff_create")).content.decode()
    assert django_settings.TIME_ZONE in page


def test_an_unknown_kind_is_a_field_error(staff_client):
    response = create(staff_client, kind="gin:schach")
    assert response.status_code == 400
    assert field_errors(response)
    assert not Tournament.objects.exists()


def test_romme_rounds_per_list_outside_the_allowed_ones_are_a_field_error(staff_client, settings):
    settings.TOURNAMENTS_ROMME_ROUNDS = (6, 12, 18, 24)
    response = create(staff_client, kind="romme:series", rounds="7")
    assert response.status_code == 400
    assert "6, 12, 18" in field_errors(response)
    assert not Tournament.objects.exists()


def test_rounds_for_a_knockout_are_a_field_error(staff_client):
    response = create(staff_client, kind="gin:knockout", rounds="3")
    assert response.status_code == 400
    assert field_errors(response)
    assert not Tournament.objects.exists()


def test_a_target_the_game_does_not_know_is_a_field_error(staff_client):
    response = create(staff_client, target="77")
    assert response.status_code == 400
    assert field_errors(response)
    assert not Tournament.objects.exists()


def test_a_valid_create_keeps_every_option(staff_client):
    response = create(staff_client, kind="romme:series", series="2", rounds="6", table_size="3", same_deals="on",
                      max_players="30", check_in_minutes="0", break_minutes="4", starts_at=local(in_days(5)))
    assert response.status_code == 302
    t = Tournament.objects.get()
    assert (t.game, t.format) == ("romme", "series")
    assert {k: t.settings[k] for k in ("series", "rounds", "table_size", "same_deals", "max_players",
                                       "check_in_minutes", "break_minutes")} == {
        "series": 2, "rounds": 6, "table_size": 3, "same_deals": True, "max_players": 30,
        "check_in_minutes": 0, "break_minutes": 4}


def test_create_errors_keep_the_posted_values(staff_client):
    response = create(staff_client, name="Winterpokal", kind="romme:series", series="2", max_players="4.5",
                      starts_at="2025-13-45 99:99")
    page = response.content.decode()
    assert response.status_code == 400
    assert 'value="Winterpokal"' in page and 'value="4.5"' in page and 'value="2025-13-45 99:99"' in page
    assert re.search(r'<option value="romme:series"[^>]*selected', page)


# --- edit, publish --------------------------------------------------------------------------------------


def test_year_one_on_edit_is_a_field_error(staff_client, draft):
    before = snapshot()
    response = action(staff_client, draft, "edit", name="Entwurf", starts_at="0001-01-01 00:00")
    assert response.status_code == 400
    assert field_errors(response)
    assert snapshot() == before


def test_a_start_in_the_past_is_refused_on_edit(staff_client, draft):
    before = snapshot()
    response = action(staff_client, draft, "edit", name="Entwurf",
                      starts_at=local(timezone.now() - timedelta(hours=1)))
    assert response.status_code == 400
    assert "Vergangenheit" in field_errors(response)
    assert snapshot() == before


def test_edit_errors_keep_the_posted_values(staff_client, draft):
    response = action(staff_client, draft, "edit", name="Neuer Name", starts_at="morgen früh")
    page = response.content.decode()
    assert response.status_code == 400
    assert 'value="Neuer Name"' in page and 'value="morgen früh"' in page


def test_an_edit_reads_the_start_in_the_site_time_zone(staff_client, draft):
    start = in_days(20)
    response = action(staff_client, draft, "edit", name="Entwurf", starts_at=local(start))
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.starts_at == start


def test_an_empty_start_on_edit_means_staff_start_it(staff_client, draft):
    assert action(staff_client, draft, "edit", name="Entwurf", starts_at="").status_code == 302
    draft.refresh_from_db()
    assert draft.starts_at is None


def test_a_draft_edit_changes_its_options(staff_client, draft):
    response = action(staff_client, draft, "edit", name="Entwurf", starts_at=local(draft.starts_at), rounds="4",
                      max_players="16", check_in_minutes="0", break_minutes="3", forfeit_minutes="7", target="150")
    assert response.status_code == 302
    draft.refresh_from_db()
    assert {k: draft.settings[k] for k in ("rounds", "max_players", "check_in_minutes", "break_minutes",
                                           "forfeit_minutes")} == {"rounds": 4, "max_players": 16,
                                                                   "check_in_minutes": 0, "break_minutes": 3,
                                                                   "forfeit_minutes": 7}
    assert draft.options["target"] == 150


def test_an_option_emptied_on_edit_takes_its_default(staff_client, staff):
    t = tournament_services.tournament_create(by=staff, name="Serie", game="romme", format="series",
                                              settings={"series": 5, "max_players": 20, "same_deals": True})
    response = action(staff_client, t, "edit", name="Serie", starts_at="", series="", max_players="", rounds="12",
                      table_size="4", check_in_minutes="10", break_minutes="2")
    assert response.status_code == 302
    t.refresh_from_db()
    assert (t.settings["series"], t.settings["max_players"], t.settings["same_deals"]) == (3, None, False)


def test_an_option_the_edit_does_not_post_stays_as_it_is(staff_client, staff):
    t = tournament_services.tournament_create(by=staff, name="Serie", game="romme", format="series",
                                              settings={"series": 5, "same_deals": True})
    assert action(staff_client, t, "edit", name="Neu", starts_at="").status_code == 302
    t.refresh_from_db()
    assert (t.name, t.settings["series"], t.settings["same_deals"]) == ("Neu", 5, True)


@pytest.mark.parametrize("field, value", [("max_players", "9" * 5000), ("rounds", "4.5"), ("target", "77"),
                                          ("break_minutes", "\x00"), ("forfeit_minutes", "0")])
def test_a_bad_option_on_edit_is_a_field_error_and_changes_nothing(staff_client, draft, field, value):
    before = snapshot()
    response = action(staff_client, draft, "edit", name="Entwurf", starts_at=local(draft.starts_at),
                      **{field: value})
    assert response.status_code == 400
    assert field_errors(response)
    assert snapshot() == before


def test_publishing_a_draft_whose_start_has_passed_is_refused(staff_client, draft):
    Tournament.objects.filter(pk=draft.pk).update(starts_at=timezone.now() - timedelta(minutes=1))
    before = snapshot()
    response = action(staff_client, draft, "publish")
    assert response.status_code == 400
    assert "Vergangenheit" in response.content.decode()
    assert snapshot() == before


def test_the_staff_page_shows_the_start_in_the_site_time_zone_and_names_it(staff_client, draft):
    page = staff_client.get(reverse("tournaments:staff", args=[draft.pk])).content.decode()
    assert local(draft.starts_at) in page
    assert django_settings.TIME_ZONE in page


# --- reasons, players, results --------------------------------------------------------------------------


def test_cancel_without_a_reason_is_a_field_error(staff_client, draft):
    before = snapshot()
    response = action(staff_client, draft, "cancel", reason="   ")
    assert response.status_code == 400
    assert field_errors(response)
    assert snapshot() == before


def test_a_reason_longer_than_the_log_keeps_is_a_field_error(staff_client, draft):
    before = snapshot()
    response = action(staff_client, draft, "pause", reason="x" * 301)
    assert response.status_code == 400
    assert field_errors(response)
    assert snapshot() == before


def test_a_reason_error_keeps_the_posted_reason(staff_client, draft, staff):
    tournament_services.tournament_publish(tournament_id=draft.pk, by=staff)
    response = action(staff_client, draft, "pause", reason="Kaffee\x00")
    assert response.status_code == 400
    assert 'value="Kaffee' in response.content.decode()


@pytest.mark.parametrize("user_id", ["abc", "9" * 40, "", "4.5"])
def test_removing_someone_who_is_not_in_the_tournament_is_a_field_error(staff_client, staff, make_players,
                                                                         user_id):
    t = tournament_services.tournament_create(by=staff, name="Offen", game="gin", format="swiss")
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    before = snapshot()
    response = action(staff_client, t, "remove", user_id=user_id, reason="Störung")
    assert response.status_code == 400
    assert field_errors(response)
    assert snapshot() == before


@pytest.mark.django_db(transaction=True)  # plays a stage: the tables end only on commit
def test_a_service_refusal_is_shown_on_the_page_and_keeps_the_reason(staff_client, staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="K.-o.", game="gin", format="knockout", settings=FAST, options={"target": 0})
    tournament_services.tournament_player_remove(tournament_id=t.pk, user_id=players[0].pk, by=staff,
                                                 reason="Störung")
    before = snapshot()
    response = action(staff_client, t, "reinstate", user_id=str(players[0].pk), reason="Versehen")
    page = response.content.decode()
    assert response.status_code == 400
    assert "K.-o.-System" in page and 'value="Versehen"' in page
    assert snapshot() == before


@pytest.fixture
def gin_running(staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="Gin", game="gin", format="swiss", settings={"rounds": 3, **FAST},
                options={"target": 0})
    play_stage(t.pk)
    st = t.stages.get(number=1).tables.exclude(table=None).first()
    return t, st


@pytest.mark.django_db(transaction=True)  # plays a stage: the tables end only on commit
@pytest.mark.parametrize("margin", ["-5", "4.5", "9" * 5000, "x", ""])
def test_a_correction_with_a_bad_margin_is_a_field_error(staff_client, gin_running, margin):
    t, st = gin_running
    before = snapshot(), st.result
    response = action(staff_client, t, "correct", stage_table_id=str(st.pk), winner=str(st.users[1]),
                      margin=margin, reason="Schiedsrichter")
    st.refresh_from_db()
    assert response.status_code == 400
    assert field_errors(response)
    assert (snapshot(), st.result) == before
    assert 'value="Schiedsrichter"' in response.content.decode()


@pytest.mark.django_db(transaction=True)  # plays a stage: the tables end only on commit
def test_a_correction_naming_a_winner_who_did_not_play_is_a_field_error(staff_client, gin_running, staff):
    t, st = gin_running
    before = snapshot(), st.result
    response = action(staff_client, t, "correct", stage_table_id=str(st.pk), winner=str(staff.pk), margin="10",
                      reason="Schiedsrichter")
    st.refresh_from_db()
    assert response.status_code == 400
    assert (snapshot(), st.result) == before


@pytest.mark.django_db(transaction=True)  # plays a stage: the tables end only on commit
def test_a_correction_of_a_table_of_another_tournament_is_a_field_error(staff_client, gin_running, draft):
    t, st = gin_running
    before = snapshot()
    response = action(staff_client, draft, "correct", stage_table_id=str(st.pk), winner=str(st.users[1]),
                      margin="10", reason="Schiedsrichter")
    assert response.status_code == 400
    assert snapshot() == before


@pytest.mark.django_db(transaction=True)  # plays a stage: the tables end only on commit
def test_a_valid_gin_correction_is_recorded(staff_client, gin_running):
    t, st = gin_running
    response = action(staff_client, t, "correct", stage_table_id=str(st.pk), winner=str(st.users[1]),
                      margin="12", reason="Schiedsrichter")
    assert response.status_code == 302
    st.refresh_from_db()
    assert st.result["winner"] == st.users[1] and st.result["margin"] == 12


@pytest.fixture
def romme_running(staff, django_user_model):
    players = [django_user_model.objects.create_user(f"r{i}", f"r{i}@example.org", "pw") for i in range(3)]
    t = started(staff, players, name="Rommé", game="romme", format="series",
                settings={"series": 2, "rounds": 1, **FAST}, options={})
    play_stage(t.pk)
    return t, t.stages.get(number=1).tables.get()


def romme_fields(st, **override):
    fields = {"stage_table_id": str(st.pk), "reason": "Zählfehler"}
    for u in st.users:
        fields.update({f"wp_{u}": "2", f"augen_{u}": "10", f"won_{u}": "0"})
    fields.update(override)
    return fields


@pytest.mark.django_db(transaction=True)  # plays a stage: the tables end only on commit
@pytest.mark.parametrize("field, value", [("wp", "9" * 5000), ("augen", "-1"), ("won", "1.5"), ("augen", "\x00")])
def test_a_romme_correction_with_a_bad_number_is_a_field_error(staff_client, romme_running, field, value):
    t, st = romme_running
    before = snapshot(), st.result
    response = action(staff_client, t, "correct", **romme_fields(st, **{f"{field}_{st.users[0]}": value}))
    st.refresh_from_db()
    assert response.status_code == 400
    assert field_errors(response)
    assert (snapshot(), st.result) == before


@pytest.mark.django_db(transaction=True)  # plays a stage: the tables end only on commit
def test_a_valid_romme_correction_is_recorded(staff_client, romme_running):
    t, st = romme_running
    u = st.users[0]
    response = action(staff_client, t, "correct", **romme_fields(st, **{f"wp_{u}": "5", f"augen_{u}": "3",
                                                                        f"abbruch_{u}": "on"}))
    assert response.status_code == 302
    st.refresh_from_db()
    seat = next(s for s in st.result["seats"] if s["user_id"] == u)
    assert (seat["wertungspunkte"], seat["augen"], seat["abbruch"], seat["result"]) == (5, 3, True, -700)


# --- labels ---------------------------------------------------------------------------------------------


class _Inputs(HTMLParser):
    """Every form control of a page, and whether a label names it."""

    def __init__(self):
        super().__init__()
        self.controls, self.label_for, self.open_labels = [], set(), 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "label":
            self.open_labels += 1
            if attrs.get("for"):
                self.label_for.add(attrs["for"])
        elif tag in ("input", "select", "textarea") and attrs.get("type") not in ("hidden", "submit"):
            self.controls.append((attrs.get("name"), attrs.get("id"), self.open_labels > 0))

    def handle_endtag(self, tag):
        if tag == "label":
            self.open_labels -= 1

    def unlabelled(self):
        return [name for name, id_, inside in self.controls if not inside and id_ not in self.label_for]


def unlabelled(page: str) -> list:
    parser = _Inputs()
    parser.feed(page)
    return parser.unlabelled()


def test_every_input_of_the_create_form_has_a_label(staff_client):
    assert unlabelled(staff_client.get(reverse("tournaments:staff_create")).content.decode()) == []


@pytest.mark.django_db(transaction=True)  # plays a stage: the tables end only on commit
def test_every_input_of_the_staff_page_has_a_label(staff_client, staff, draft, gin_running, romme_running):
    pages = []
    for t in (draft, gin_running[0], romme_running[0]):
        pages.append(staff_client.get(reverse("tournaments:staff", args=[t.pk])).content.decode())
    t = tournament_services.tournament_create(by=staff, name="Offen", game="gin", format="swiss")
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    pages.append(staff_client.get(reverse("tournaments:staff", args=[t.pk])).content.decode())
    assert [unlabelled(page) for page in pages] == [[], [], [], []]


# --- English --------------------------------------------------------------------------------------------


def test_field_errors_and_the_time_zone_note_are_in_english_for_english_staff(staff_client, staff):
    staff.profile.language = "en"  # a signed-in person reads the language of their profile
    staff.profile.save()
    response = staff_client.post(reverse("tournaments:staff_create"),
                                 {"name": "Evening", "kind": "gin:swiss", "max_players": "4.5",
                                  "starts_at": local(timezone.now() - timedelta(hours=2))})
    page = response.content.decode()
    assert response.status_code == 400
    assert "Please enter a whole number from 2 to 10000." in page
    assert "This start time is in the past." in page
    assert f"Time in the {django_settings.TIME_ZONE} time zone" in page


def test_the_list_and_the_tournament_page_show_the_start_in_the_site_time_zone_and_name_it(client, draft, staff):
    tournament_services.tournament_publish(tournament_id=draft.pk, by=staff)
    shown = timezone.localtime(draft.starts_at, SITE_ZONE).strftime("%H:%M")
    for url in (reverse("tournaments:list"), reverse("tournaments:detail", args=[draft.pk])):
        page = client.get(url).content.decode()
        assert f"{shown} ({django_settings.TIME_ZONE})" in page, url
