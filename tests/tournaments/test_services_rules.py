"""The life-cycle rules of spec/tournaments.md through the services, one test per rule."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games import services as games_services
from games.models import Table
from tests.tournaments.helpers import play_stage, started
from tournaments import selectors as tournament_selectors
from tournaments import services as tournament_services
from tournaments.models import AuditEntry, Entry, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

FAST = {"check_in_minutes": 0, "break_minutes": 0}


def _published(staff, **create):
    t = tournament_services.tournament_create(by=staff, **create)
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    return t


def test_only_staff_create_and_every_action_is_in_the_audit_log(staff, make_players):
    (anna,) = make_players(1)
    with pytest.raises(tournament_services.TournamentError) as refused:
        tournament_services.tournament_create(by=anna, name="X", game="gin", format="swiss")
    assert refused.value.code == "not_allowed"
    t = tournament_services.tournament_create(by=staff, name="Herbst", game="gin", format="swiss")
    tournament_services.tournament_edit(tournament_id=t.pk, by=staff, name="Herbst-Gin")
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    with pytest.raises(tournament_services.TournamentError):
        tournament_services.tournament_edit(tournament_id=t.pk, by=staff, name="zu spät")
    log = list(AuditEntry.objects.filter(tournament=t).values_list("action", "by"))
    assert log == [("create", staff.pk), ("edit", staff.pk), ("publish", staff.pk)]


def test_defaults_are_filled_in():
    s = tournament_services.normalize_settings("romme", "series", {})
    assert (s["series"], s["rounds"], s["table_size"], s["same_deals"], s["min_players"]) == (3, 12, 4, False, 3)
    assert (s["check_in_minutes"], s["break_minutes"], s["max_players"]) == (10, 2, None)
    g = tournament_services.normalize_settings("gin", "swiss", {})
    assert (g["min_players"], g["forfeit_minutes"], g["win"], g["loss"], g["bye"]) == (2, 5, 1, 0, 1)
    assert tournament_services.normalize_settings("gin", "round_robin", {})["max_players"] == 10


def test_bad_options_are_refused(staff):
    for game, format, settings in [("romme", "swiss", {}), ("romme", "series", {"series": 11}),
                                   ("romme", "series", {"table_size": 7}), ("gin", "swiss", {"nonsense": 1})]:
        with pytest.raises(tournament_services.TournamentError):
            tournament_services.tournament_create(by=staff, name="X", game=game, format=format, settings=settings)
    with pytest.raises(tournament_services.TournamentError):
        tournament_services.tournament_create(by=staff, name="X", game="gin", format="swiss",
                                              options={"hollywood": True})


def test_full_tournament_has_a_waiting_list_that_moves_up(staff, make_players):
    a, b, c = make_players(3)
    t = _published(staff, name="Voll", game="gin", format="swiss", settings={"max_players": 2})
    statuses = [tournament_services.tournament_register(tournament_id=t.pk, user=u).status for u in (a, b, c)]
    assert statuses == ["registered", "registered", "waiting"]
    assert tournament_selectors.places_left(t) == 0
    tournament_services.tournament_withdraw(tournament_id=t.pk, user=a)
    assert Entry.objects.get(tournament=t, user=c).status == Entry.Status.REGISTERED


def test_registering_twice_changes_nothing(staff, make_players):
    (a,) = make_players(1)
    t = _published(staff, name="Zweimal", game="gin", format="swiss")
    first = tournament_services.tournament_register(tournament_id=t.pk, user=a)
    again = tournament_services.tournament_register(tournament_id=t.pk, user=a)
    assert first.pk == again.pk and t.entries.count() == 1


def test_check_in_opens_check_in_minutes_before_the_start(staff, make_players):
    (a,) = make_players(1)
    starts = timezone.now() + timedelta(minutes=30)
    t = _published(staff, name="Check-in", game="gin", format="swiss", starts_at=starts,
                   settings={"check_in_minutes": 10})
    tournament_services.tournament_register(tournament_id=t.pk, user=a)
    with pytest.raises(tournament_services.TournamentError) as refused:
        tournament_services.tournament_check_in(tournament_id=t.pk, user=a, now=starts - timedelta(minutes=11))
    assert refused.value.code == "check_in_closed"
    entry = tournament_services.tournament_check_in(tournament_id=t.pk, user=a, now=starts - timedelta(minutes=9))
    assert entry.checked_in_at is not None


def test_next_stage_starts_break_minutes_after_the_last_table(staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="Pause", game="gin", format="swiss",
                settings={"rounds": 2, "check_in_minutes": 0, "break_minutes": 2}, options={"target": 0})
    play_stage(t.pk)
    t.refresh_from_db()
    ended = t.stages.get(number=1).finished_at
    assert t.next_stage_at == ended + timedelta(minutes=2)
    tournament_services.tournaments_tick(now=ended + timedelta(minutes=1))
    assert Tournament.objects.get(pk=t.pk).current_stage == 1
    tournament_services.tournaments_tick(now=ended + timedelta(minutes=2))
    assert Tournament.objects.get(pk=t.pk).current_stage == 2


def test_paused_tournament_starts_no_new_stage_until_resumed(staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="Pausiert", game="gin", format="swiss",
                settings={"rounds": 2, **FAST}, options={"target": 0})
    tournament_services.tournament_pause(tournament_id=t.pk, by=staff, reason="Stromausfall")
    play_stage(t.pk)
    t.refresh_from_db()
    assert t.current_stage == 1
    tournament_services.tournaments_tick(now=timezone.now() + timedelta(hours=1))
    assert Tournament.objects.get(pk=t.pk).current_stage == 1
    tournament_services.tournament_resume(tournament_id=t.pk, by=staff)
    assert Tournament.objects.get(pk=t.pk).current_stage == 2


def test_next_stage_refused_while_tables_play(staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="Zu früh", game="gin", format="swiss",
                settings={"rounds": 2, **FAST}, options={"target": 0})
    with pytest.raises(tournament_services.TournamentError) as refused:
        tournament_services.tournament_next_stage(tournament_id=t.pk, by=staff)
    assert refused.value.code == "stage_running"


def test_cancel_closes_the_running_tables(staff, make_players):
    players = make_players(2)
    t = started(staff, players, name="Absage", game="gin", format="swiss", settings=FAST, options={"target": 0})
    table_id = tournament_selectors.tournament_tables(tournament_id=t.pk)[0]["table"]
    tournament_services.tournament_cancel(tournament_id=t.pk, by=staff, reason="Unwetter")
    assert Table.objects.get(pk=table_id).status == Table.Status.ABORTED
    assert Tournament.objects.get(pk=t.pk).status == Tournament.Status.CANCELLED


def test_reinstated_romme_player_is_seated_again(staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="Zurück", game="romme", format="series",
                settings={"series": 2, "rounds": 1, "check_in_minutes": 0, "break_minutes": 5}, options={})
    row = tournament_selectors.tournament_tables(tournament_id=t.pk)[0]
    quitter = row["users"][0]
    from tests.tournaments.helpers import users_of

    games_services.match_resign(table_id=row["table"], user=users_of([quitter])[0])
    play_stage(t.pk)
    assert Entry.objects.get(tournament=t, user_id=quitter).out
    tournament_services.tournament_player_reinstate(tournament_id=t.pk, user_id=quitter, by=staff,
                                                    reason="Verbindung abgebrochen")
    tournament_services.tournament_next_stage(tournament_id=t.pk, by=staff)
    seated = [u for r in tournament_selectors.tournament_tables(tournament_id=t.pk) for u in r["users"]]
    assert quitter in seated


def test_same_deals_tables_of_one_size_publish_the_same_deal_hashes(staff, make_players, settings):
    from games.models import Round

    settings.GAMES_TEST_DEAL_SEED = ""  # the tournament's seeds, not the test seam, must make the deals equal
    t = started(staff, make_players(11), name="Gleiche Karten", game="romme", format="series",
                settings={"same_deals": True, "rounds": 1, **FAST}, options={})
    rows = tournament_selectors.tournament_tables(tournament_id=t.pk)
    by_size: dict[int, set[str]] = {}
    for row in rows:
        first = Round.objects.get(match__table_id=row["table"], number=1)
        by_size.setdefault(len(row["users"]), set()).add(first.deal_hash)
    assert len(by_size[4]) == 1 and len(by_size[3]) == 1 and by_size[4] != by_size[3]


def test_same_deals_gives_every_table_of_a_size_one_seed(staff, make_players, monkeypatch):
    seeds = []
    real = games_services.tables_create_seated_many

    def seated(*, tables, **kwargs):  # the stage's tables, all in one call
        seeds.extend((len(table.users), table.deal_seed) for table in tables)
        return real(tables=tables, **kwargs)

    monkeypatch.setattr(games_services, "tables_create_seated_many", seated)
    t = started(staff, make_players(11), name="Gleiche Karten", game="romme", format="series",
                settings={"same_deals": True, "rounds": 1, **FAST}, options={})
    assert sorted(size for size, _ in seeds) == [3, 4, 4]
    four = {seed for size, seed in seeds if size == 4}
    assert len(four) == 1 and None not in four and four != {seed for size, seed in seeds if size == 3}
    assert t.stages.get().deal_seeds.keys() == {"3", "4"}


def test_csv_export_has_a_row_per_player(staff, make_players):
    players = make_players(2)
    t = started(staff, players, name="CSV", game="gin", format="swiss", settings={"rounds": 1, **FAST},
                options={"target": 0})
    play_stage(t.pk)
    lines = tournament_services.tournament_standings_csv(tournament_id=t.pk, by=staff).splitlines()
    assert lines[0].startswith("place;player;match_points") and len(lines) == 3
    assert AuditEntry.objects.filter(tournament=t, action="export_csv").exists()


@pytest.mark.skipif(connection.vendor == "sqlite", reason="SQLite serialises writers; the race needs row locks")
def test_two_referees_racing_the_next_stage_open_one_set_of_tables(staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="Rennen", game="gin", format="swiss",
                settings={"rounds": 2, "check_in_minutes": 0, "break_minutes": 1}, options={"target": 0})
    play_stage(t.pk)
    t.refresh_from_db()
    before = Table.objects.count()
    barrier = threading.Barrier(2)
    later = t.next_stage_at + timedelta(seconds=1)

    def referee():
        from django.db import connections

        barrier.wait()
        try:
            tournament_services.tournaments_tick(now=later)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=referee) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert Table.objects.count() == before + 2 and t.stages.count() == 2
