"""Whole tournaments through the services, every seat played by the bots' choose_action on its own view."""

import pytest

from games import services as games_services
from games.models import Table
from tests.tournaments.helpers import play_stage, play_tournament, started, users_of
from tournaments import selectors as tournament_selectors
from tournaments import services as tournament_services
from tournaments.models import AuditEntry, Tournament
from tournaments.scoring import ABBRUCH_RESULT

pytestmark = pytest.mark.django_db(transaction=True)

SETTINGS_FAST = {"check_in_minutes": 0, "break_minutes": 0}


def test_romme_series_of_eleven_seated_by_standings_with_an_abbruch(staff, make_players):
    players = make_players(11)
    t = started(staff, players, name="Herbst-Masters", game="romme", format="series",
                settings={"series": 3, "rounds": 1, "table_size": 4, **SETTINGS_FAST}, options={})
    quitter = {}

    def on_stage(stage, table_id, users):
        # Series 2: the first player of the first table abandons the list (Abbruch).
        if stage == 2 and not quitter:
            quitter["user"] = users[0]
            games_services.match_resign(table_id=table_id, user=users[0])

    seatings = play_tournament(t.pk, on_stage=on_stage)
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    sizes = [[len(row["users"]) for row in stage] for stage in seatings]
    assert sizes == [[4, 4, 3], [4, 4, 3], [4, 3, 3]]  # the quitter is out of series 3
    assert all(Table.objects.get(pk=row["table"]).tournament for stage in seatings for row in stage)

    standings = tournament_selectors.tournament_standings(tournament_id=t.pk)
    by_user = {row["user_id"]: row for row in standings}
    quit_row = by_user[quitter["user"].pk]
    assert quit_row["stages"][1]["abbruch"] and quit_row["stages"][1]["result"] == ABBRUCH_RESULT
    assert quit_row["stages"][2] is None and quit_row["out"]
    for row in standings:
        assert row["result"] == sum(s["result"] for s in row["stages"] if s)
        assert set(row) >= {"user_id", "place", "stages", "result", "wertungspunkte", "augen", "rounds_won"}

    # Seating by standings: series 3's tables are the standings after series 2, in order, seat by seat.
    after_two = _standings_after(t, 2)
    seated = [u for row in seatings[2] for u in row["users"]]
    assert seated == [u for u in after_two if u != quitter["user"].pk]
    # The final standings are frozen on the tournament.
    assert t.final_standings == standings


def _standings_after(t, stages):
    """The standings order after the first ``stages`` series, recomputed from the recorded results."""
    from tournaments.scoring import ListStanding, rank_list

    totals = {}
    order = list(t.entries.order_by("number").values_list("user_id", flat=True))
    for st in t.stages.filter(number__lte=stages).prefetch_related("tables"):
        for table in st.tables.all():
            for seat in table.result["seats"]:
                row = totals.setdefault(seat["user_id"], [0, 0, 0, 0])
                for i, key in enumerate(("result", "wertungspunkte", "augen", "rounds_won")):
                    row[i] += seat[key]
    ranked = rank_list([ListStanding(u, *totals[u]) for u in order if u in totals])
    return [s.player for _, s in ranked]


def test_romme_shared_place_skips_the_next(staff, make_players):
    players = make_players(3)
    t = started(staff, players, name="Kurz", game="romme", format="series",
                settings={"series": 1, "rounds": 1, **SETTINGS_FAST}, options={})
    play_tournament(t.pk)
    st = t.stages.get().tables.get()
    seats = [{"user_id": u, "wertungspunkte": wp, "augen": a, "rounds_won": w, "abbruch": False}
             for u, wp, a, w in zip(st.users, (5, 5, 3), (0, 0, 40), (1, 1, 0), strict=True)]
    tournament_services.tournament_result_correct(tournament_id=t.pk, stage_table_id=st.pk, by=staff,
                                                  result={"seats": seats}, reason="Schiedsrichterentscheid")
    places = [row["place"] for row in tournament_selectors.tournament_standings(tournament_id=t.pk)]
    assert places == [1, 1, 3]


def test_gin_swiss_of_nine_with_byes_and_buchholz(staff, make_players):
    players = make_players(9)
    t = started(staff, players, name="Gin-Schweizer", game="gin", format="swiss",
                settings={"rounds": 4, **SETTINGS_FAST}, options={"target": 0})
    seatings = play_tournament(t.pk)
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED and len(seatings) == 4
    byes = [row["users"][0] for stage in seatings for row in stage if row["table"] is None]
    assert len(byes) == 4 and len(set(byes)) == 4  # one bye a round, nobody twice
    pairs = [frozenset(row["users"]) for stage in seatings for row in stage if row["table"] is not None]
    assert len(pairs) == len(set(pairs)) == 16  # nobody met anyone twice
    standings = tournament_selectors.tournament_standings(tournament_id=t.pk)
    points = {row["user_id"]: row["match_points"] for row in standings}
    for row in standings:
        met = [s["opponent"] for s in row["stages"] if s["opponent"] is not None]
        assert row["buchholz"] == sum(points[o] for o in met)
        assert row["match_points"] == sum(1 for s in row["stages"] if s["won"])
        assert row["margin"] == sum(s["margin"] if s["won"] else -s["margin"] for s in row["stages"])
    keys = [(-r["match_points"], -r["buchholz"], -r["margin"]) for r in standings]
    assert keys == sorted(keys)


def test_gin_knockout_of_six_with_byes_for_the_top_seeds(staff, make_players, monkeypatch):
    players = make_players(6)
    ratings = {p.pk: 2000 - 10 * i for i, p in enumerate(players)}

    class Rated:
        def __init__(self, user):
            self.display, self.provisional = ratings[user.pk], False

    monkeypatch.setattr(tournament_services, "_seed_rating", lambda user, game: Rated(user))
    t = started(staff, players, name="K.-o.", game="gin", format="knockout", settings=SETTINGS_FAST,
                options={"target": 0})
    first = tournament_selectors.tournament_tables(tournament_id=t.pk)
    assert [row["users"] for row in first if row["table"] is None] == [[players[0].pk, None], [players[1].pk, None]]
    seatings = play_tournament(t.pk)
    assert [len(stage) for stage in seatings] == [4, 2, 1]
    standings = tournament_selectors.tournament_standings(tournament_id=t.pk)
    assert sorted(row["place"] for row in standings) == [1, 2, 3, 3, 5, 5]


def test_gin_round_robin_of_five(staff, make_players):
    players = make_players(5)
    t = started(staff, players, name="Jeder gegen jeden", game="gin", format="round_robin",
                settings=SETTINGS_FAST, options={"target": 0})
    seatings = play_tournament(t.pk)
    assert len(seatings) == 5
    pairs = [frozenset(row["users"]) for stage in seatings for row in stage if row["table"] is not None]
    assert len(pairs) == len(set(pairs)) == 10
    standings = tournament_selectors.tournament_standings(tournament_id=t.pk)
    assert sum(row["match_points"] for row in standings) == 10 + 5  # ten wins and five byes
    assert "buchholz" not in standings[0]


def test_start_drops_players_who_did_not_check_in(staff, make_players):
    from datetime import timedelta

    from django.utils import timezone

    players = make_players(4)
    starts = timezone.now() + timedelta(minutes=5)
    t = tournament_services.tournament_create(by=staff, name="Mit Check-in", game="gin", format="swiss",
                                              settings={"check_in_minutes": 10, "break_minutes": 0},
                                              options={"target": 0}, starts_at=starts)
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    for user in players:
        tournament_services.tournament_register(tournament_id=t.pk, user=user)
    for user in players[:3]:
        tournament_services.tournament_check_in(tournament_id=t.pk, user=user)
    # Not yet: the referee waits for starts_at.
    tournament_services.tournaments_tick(now=starts - timedelta(seconds=1))
    assert Tournament.objects.get(pk=t.pk).status == Tournament.Status.REGISTRATION
    tournament_services.tournaments_tick(now=starts)
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING
    seated = {u for row in tournament_selectors.tournament_tables(tournament_id=t.pk) for u in row["users"]}
    assert players[3].pk not in seated and {p.pk for p in players[:3]} <= seated
    assert t.entries.get(user=players[3]).status == "dropped"


def test_too_few_players_cancels_with_a_notice(staff, make_players):
    players = make_players(2)
    t = started(staff, players, name="Leer", game="romme", format="series", settings=SETTINGS_FAST, options={})
    assert t.status == Tournament.Status.CANCELLED and "zu wenige" in t.notice


def test_forfeit_a_player_who_never_moves_loses(staff, make_players):
    from datetime import timedelta

    players = make_players(2)
    t = started(staff, players, name="Forfeit", game="gin", format="swiss",
                settings={"rounds": 1, "forfeit_minutes": 5, **SETTINGS_FAST}, options={"target": 0})
    row = tournament_selectors.tournament_tables(tournament_id=t.pk)[0]
    table = Table.objects.get(pk=row["table"])
    # The seat to act lets its time run out once; five minutes later it has not moved itself.
    from tests.games.helpers import state_of

    absent = state_of(table).to_act
    assert games_services.turn_timeout(table_id=table.pk, now=table.turn_deadline + timedelta(seconds=1))
    match = Table.objects.get(pk=table.pk).current_match
    assert tournament_services.tournaments_tick(now=match.started_at + timedelta(minutes=5, seconds=1)) >= 1
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    winner = row["users"][1 - absent]
    assert tournament_selectors.tournament_standings(tournament_id=t.pk)[0]["user_id"] == winner


def test_staff_correction_recomputes_and_keeps_the_original(staff, make_players):
    players = make_players(2)
    t = started(staff, players, name="Korrektur", game="gin", format="swiss",
                settings={"rounds": 1, **SETTINGS_FAST}, options={"target": 0})
    play_tournament(t.pk)
    st = t.stages.get().tables.get()
    original = dict(st.result)
    loser = original["loser"]
    tournament_services.tournament_result_correct(tournament_id=t.pk, stage_table_id=st.pk, by=staff,
                                                  result={"winner": loser, "margin": 12}, reason="Falsch gewertet")
    st.refresh_from_db()
    assert st.original_result == original and st.result["winner"] == loser
    assert tournament_selectors.tournament_standings(tournament_id=t.pk)[0]["user_id"] == loser
    log = AuditEntry.objects.get(tournament=t, action="correct")
    assert log.by == staff and log.reason == "Falsch gewertet" and log.details["before"] == original
    with pytest.raises(tournament_services.TournamentError):
        tournament_services.tournament_result_correct(tournament_id=t.pk, stage_table_id=st.pk, by=staff,
                                                      result={"winner": loser, "margin": 1}, reason="")


def test_stage_start_raced_by_two_callers_opens_one_set_of_tables(staff, make_players):
    from django.utils import timezone

    players = make_players(4)
    t = started(staff, players, name="Rennen", game="gin", format="swiss",
                settings={"rounds": 2, "check_in_minutes": 0, "break_minutes": 2}, options={"target": 0})
    play_stage(t.pk)
    t.refresh_from_db()
    assert t.current_stage == 1 and t.next_stage_at is not None
    tables_before = Table.objects.count()
    # Staff press "next stage" and two referees find the break over, one after the other.
    tournament_services.tournament_next_stage(tournament_id=t.pk, by=staff)
    later = t.next_stage_at + timezone.timedelta(seconds=1)
    tournament_services.tournaments_tick(now=later)
    tournament_services.tournaments_tick(now=later)
    with tournament_services.transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=t.pk)
        tournament_services._stage_start(locked, 2, later)  # a retry of the same start
    assert Table.objects.count() == tables_before + 2
    assert t.stages.count() == 2


def test_match_ended_announced_twice_records_once(staff, make_players):
    players = make_players(2)
    t = started(staff, players, name="Zweimal", game="gin", format="swiss",
                settings={"rounds": 1, **SETTINGS_FAST}, options={"target": 0})
    play_tournament(t.pk)
    st = t.stages.get().tables.get()
    before = dict(st.result)
    games_services.match_announce(match_id=st.table.current_match_id, how="finished")
    st.refresh_from_db()
    assert st.result == before and AuditEntry.objects.filter(tournament=t, action="finish").count() == 1


def test_remove_player_plays_their_seat_as_left_and_pairs_them_no_more(staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="Entfernt", game="gin", format="swiss",
                settings={"rounds": 3, **SETTINGS_FAST}, options={"target": 0})
    gone = players[0]
    tournament_services.tournament_player_remove(tournament_id=t.pk, user_id=gone.pk, by=staff, reason="Unsportlich")
    play_tournament(t.pk)
    standings = tournament_selectors.tournament_standings(tournament_id=t.pk)
    row = next(r for r in standings if r["user_id"] == gone.pk)
    assert row["stages"][0]["won"] is False and row["stages"][1:] == [None, None]
    assert users_of([gone.pk])[0] is not None
