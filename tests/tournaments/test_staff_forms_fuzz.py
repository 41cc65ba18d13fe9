"""Hostile input to every staff form, generated (hypothesis), as tests/ginsite/test_form_fuzz.py does for the
players' forms: create, and every action (edit, publish, start, next stage, pause, resume, cancel, remove,
reinstate, correct a result) on drafts, a tournament open for registration and running Rommé and gin
tournaments with finished tables, with forged, missing, repeated, oversized, NUL-laden and badly encoded
fields, by staff, a player and an anonymous visitor. None is a server error (5xx) or logs at ERROR, and a
refused post (400) changes nothing. The tournaments are made once for the module; each example runs in a
transaction that is rolled back afterwards, inside its test's own, so every example meets the same tournaments."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from games.models import Table
from tests.factories import UserFactory, users
from tests.games.fuzzing import FUZZ
from tests.play import rows_committed_for_the_scope
from tests.tournaments.helpers import play_stage, started
from tournaments import services as tournament_services
from tournaments.models import AuditEntry, Entry, StageTable, Tournament

pytestmark = pytest.mark.django_db

#: What a refused or accepted staff post may answer; never 5xx.
ALLOWED = {200, 302, 400, 403, 404, 405, 413}
FAST = {"check_in_minutes": 0, "break_minutes": 0}
ACTIONS = ["edit", "publish", "start", "next_stage", "pause", "resume", "cancel", "remove", "reinstate",
           "correct", "unbekannt"]

safe_text = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=40)


def _when(delta: timedelta) -> str:
    return timezone.localtime(timezone.now() + delta).strftime("%Y-%m-%d %H:%M")


SPECIAL = ["", " ", "on", "0", "1", "2", "3", "-1", "4.5", "1e3", "١٢", " 7 ", "NaN", "9" * 5000,
           "99999999999999999999", "\x00", "3\x00", "x" * 301, "x" * 5000, "<script>alert(1)</script>",
           "2025-13-45 99:99", "2026-01-01T10:00+99:00", "0001-01-01 00:00", "9999-12-31T23:59-12:00",
           _when(timedelta(days=3)), _when(-timedelta(hours=1)), "24.12.2099 19:30", "2099-03-29 02:30",
           "romme:series", "gin:swiss", "gin:knockout", "gin:round_robin", "gin:schach", "100", "0", "77"]
FIELDS = ["name", "kind", "starts_at", "series", "table_size", "same_deals", "target", "forfeit_minutes", "rounds",
          "max_players", "check_in_minutes", "break_minutes", "reason", "user_id", "stage_table_id", "winner",
          "margin", "csrfmiddlewaretoken"]
raw_bodies = st.one_of(st.binary(max_size=200), st.sampled_from([b"\xff\xfe=\xff", b"reason=%ff%fe", b"=" * 3000,
                                                                 b"name=%00&starts_at=%00",
                                                                 b"&".join(b"f%d=1" % i for i in range(1200))]))


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    # Made once for the module's twelve tests (each made them anew before: about 160 s of the suite), as the
    # tournaments' tests play (tests/tournaments/conftest.py): with Rommé lists of one round.
    yield from rows_committed_for_the_scope(django_db_blocker, _world, seed="tournament-tests",
                                            TOURNAMENTS_ROMME_ROUNDS=(1, 2, 6, 12, 18, 24))


def _world():
    from django.contrib.auth import get_user_model

    django_user_model = get_user_model()
    staff = UserFactory(username="leitung", is_staff=True)

    def players(prefix, n):
        return users(*(f"{prefix}{i}" for i in range(n)))

    later = timezone.now() + timedelta(days=2)
    gin_draft = tournament_services.tournament_create(by=staff, name="Gin-Entwurf", game="gin", format="knockout",
                                                      starts_at=later)
    romme_draft = tournament_services.tournament_create(by=staff, name="Rommé-Entwurf", game="romme",
                                                        format="series")
    open_ = tournament_services.tournament_create(by=staff, name="Offen", game="gin", format="swiss",
                                                  starts_at=later)
    tournament_services.tournament_publish(tournament_id=open_.pk, by=staff)
    for user in players("o", 3):
        tournament_services.tournament_register(tournament_id=open_.pk, user=user)
    gin = started(staff, players("g", 4), name="Gin", game="gin", format="swiss", settings={"rounds": 3, **FAST},
                  options={"target": 0})
    play_stage(gin.pk)
    romme = started(staff, players("r", 3), name="Rommé", game="romme", format="series",
                    settings={"series": 2, "rounds": 1, **FAST}, options={})
    play_stage(romme.pk)
    tournaments = {"gin_draft": gin_draft, "romme_draft": romme_draft, "open": open_, "gin": gin, "romme": romme}
    stage_tables = list(StageTable.objects.values_list("pk", flat=True))
    user_ids = list(django_user_model.objects.values_list("pk", flat=True))
    return {"staff": staff, "player": django_user_model.objects.get(username="g0"), "tournaments": tournaments,
            "ids": [str(i) for i in stage_tables + user_ids]}


def snapshot():
    """Everything a staff post may write."""
    return (list(Tournament.objects.order_by("pk").values()), list(Entry.objects.order_by("pk").values()),
            list(StageTable.objects.order_by("pk").values()), AuditEntry.objects.count(),
            list(Table.objects.order_by("pk").values_list("pk", "status")))


def form_data(ids: list[str]):
    seat_fields = [f"{kind}_{i}" for i in ids for kind in ("wp", "augen", "won", "abbruch")]
    values = st.one_of(safe_text, st.sampled_from(SPECIAL + ids))
    names = st.one_of(st.sampled_from(FIELDS), st.sampled_from(seat_fields), safe_text)
    return st.dictionaries(names, st.one_of(values, st.lists(values, min_size=2, max_size=3)), max_size=10)


def _run_fuzz(world, caplog, path_of):
    caplog.set_level(logging.WARNING)
    users = {"staff": world["staff"], "player": world["player"], "anonymous": None}

    @FUZZ
    @given(who=st.sampled_from(["staff", "staff", "staff", "player", "anonymous"]),
           which=st.sampled_from(sorted(world["tournaments"])),
           body=st.one_of(form_data(world["ids"]), form_data(world["ids"]), raw_bodies))
    def run(who, which, body):
        caplog.clear()
        client = Client(raise_request_exception=False)
        if users[who] is not None:
            client.force_login(users[who])
        url = path_of(world["tournaments"][which])
        with transaction.atomic():
            before = snapshot()
            if isinstance(body, bytes):
                response = client.generic("POST", url, body, content_type="application/x-www-form-urlencoded")
            else:
                response = client.post(url, body)
            case = f"{who} POST {url} {str(body)[:300]!r}"
            assert response.status_code in ALLOWED, (case, response.status_code)
            if response.status_code == 400:
                assert snapshot() == before, case
            transaction.set_rollback(True)
        logged = [f"{r.name}: {r.getMessage()[:200]}" for r in caplog.records
                  if (r.levelno >= logging.ERROR or r.exc_info) and not r.name.startswith("django.security.")]
        assert logged == [], case

    run()


def test_forged_input_to_the_create_form_is_never_a_server_error_and_a_refusal_creates_nothing(world, caplog):
    _run_fuzz(world, caplog, lambda t: reverse("tournaments:staff_create"))


@pytest.mark.parametrize("action", ACTIONS)
def test_forged_input_to_a_staff_action_is_never_a_server_error_and_a_refusal_changes_nothing(world, caplog,
                                                                                               action):
    _run_fuzz(world, caplog, lambda t: reverse("tournaments:staff_action", args=[t.pk, action]))
