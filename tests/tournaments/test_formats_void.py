"""Nobody advances or scores without playing: a tournament table that ends without a result (here ended by
staff; a match called off by any other path ends the same way, through games' one end of a match) gives
no win to anyone — not to seat 0, not to the better seed. One case per format, as its docstring rules."""

import pytest

from games import services as games_services
from tests.tournaments.helpers import play_stage, play_tournament, started
from tournaments import selectors as tournament_selectors
from tournaments import services as tournament_services
from tournaments.models import Entry, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

FAST = {"check_in_minutes": 0, "break_minutes": 0}


def _staff_end(staff, table_id):
    games_services.table_close(table_id=table_id, by=staff)


def _by_user(t):
    return {row["user_id"]: row for row in tournament_selectors.tournament_standings(tournament_id=t.pk)}


@pytest.fixture
def seeded(monkeypatch):
    """Knockout seeds in the order players are made (the first the best rated)."""

    def use(players):
        ratings = {p.pk: 2000 - 10 * i for i, p in enumerate(players)}

        class Rated:
            def __init__(self, user):
                self.display, self.provisional = ratings[user.pk], False

        monkeypatch.setattr(tournament_services, "_seed_rating", lambda user, game: Rated(user))
    return use


def test_series_void_list_scores_nothing_for_anyone_at_the_table(staff, make_players):
    players = make_players(3)
    t = started(staff, players, name="Serie ohne Ergebnis", game="romme", format="series",
                settings={"series": 1, "rounds": 1, **FAST}, options={})
    (row,) = tournament_selectors.tournament_tables(tournament_id=t.pk)
    _staff_end(staff, row["table"])
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    st = t.stages.get().tables.get()
    assert st.result == {"void": True}
    standings = _by_user(t)
    for user_id in row["users"]:
        r = standings[user_id]
        assert (r["result"], r["wertungspunkte"], r["augen"], r["rounds_won"]) == (0, 0, 0, 0)
        assert r["stages"] == [None] and not r["out"] and r["place"] == 1
    assert not Entry.objects.filter(tournament=t, out=True).exists()


def test_swiss_void_match_is_a_loss_for_both(staff, make_players):
    players = make_players(2)
    t = started(staff, players, name="Schweizer ohne Ergebnis", game="gin", format="swiss",
                settings={"rounds": 1, "win": 3, "loss": 1, **FAST}, options={"target": 0})
    (row,) = tournament_selectors.tournament_tables(tournament_id=t.pk)
    _staff_end(staff, row["table"])
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    standings = _by_user(t)
    for user_id in row["users"]:
        r = standings[user_id]
        assert r["match_points"] == 1 and r["place"] == 1  # the loss's point, no win: shared first place
        assert r["stages"][0]["won"] is False and r["stages"][0]["void"]


def test_swiss_void_pair_counts_as_met_and_is_not_paired_again(staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="Schweizer, gewertet als gespielt", game="gin", format="swiss",
                settings={"rounds": 3, **FAST}, options={"target": 0})
    voided = []

    def on_stage(stage, table_id, users):
        if stage == 1 and not voided:
            voided.append(frozenset(u.pk for u in users))
            _staff_end(staff, table_id)

    seatings = play_tournament(t.pk, on_stage=on_stage)
    pairs = [frozenset(row["users"]) for stage in seatings for row in stage]
    assert pairs.count(voided[0]) == 1 and len(set(pairs)) == 6


def test_knockout_void_match_sends_neither_player_through(staff, make_players, seeded):
    players = make_players(4)
    seeded(players)
    t = started(staff, players, name="K.-o. ohne Ergebnis", game="gin", format="knockout", settings=FAST,
                options={"target": 0})
    first = tournament_selectors.tournament_tables(tournament_id=t.pk)
    top = next(row for row in first if players[0].pk in row["users"])
    assert top["users"] == [players[0].pk, players[3].pk]  # seed 1 at seat 0

    def on_stage(stage, table_id, users):
        if table_id == top["table"]:
            _staff_end(staff, table_id)

    play_tournament(t.pk, on_stage=on_stage)
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    final = t.stages.get(number=2).tables.get()
    assert players[0].pk not in final.users and players[3].pk not in final.users
    assert final.table is None and final.users[1] is None  # the other semi-final's winner has a walkover
    standings = _by_user(t)
    assert standings[players[0].pk]["place"] == standings[players[3].pk]["place"] == 3
    assert standings[final.users[0]]["place"] == 1


def test_knockout_two_void_semi_finals_leave_the_final_empty(staff, make_players, seeded):
    players = make_players(4)
    seeded(players)
    t = started(staff, players, name="K.-o. leer", game="gin", format="knockout", settings=FAST,
                options={"target": 0})
    for row in tournament_selectors.tournament_tables(tournament_id=t.pk):
        _staff_end(staff, row["table"])
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    final = t.stages.get(number=2).tables.get()
    assert final.users == [None, None] and final.table is None
    assert sorted(row["place"] for row in _by_user(t).values()) == [3, 3, 3, 3]  # no winner, no finalist


def test_knockout_void_final_has_no_winner(staff, make_players, seeded):
    players = make_players(2)
    seeded(players)
    t = started(staff, players, name="Finale ohne Ergebnis", game="gin", format="knockout", settings=FAST,
                options={"target": 0})
    (row,) = tournament_selectors.tournament_tables(tournament_id=t.pk)
    _staff_end(staff, row["table"])
    assert sorted(r["place"] for r in _by_user(t).values()) == [2, 2]


def test_round_robin_void_match_is_a_loss_for_both(staff, make_players):
    players = make_players(3)
    t = started(staff, players, name="Jeder gegen jeden ohne Ergebnis", game="gin", format="round_robin",
                settings=FAST, options={"target": 0})
    voided = []

    def on_stage(stage, table_id, users):
        if not voided:
            voided.append([u.pk for u in users])
            _staff_end(staff, table_id)

    seatings = play_tournament(t.pk, on_stage=on_stage)
    assert len(seatings) == 3
    standings = _by_user(t)
    a, b = voided[0]
    for me, other in ((a, b), (b, a)):
        (entry,) = [s for s in standings[me]["stages"] if s and s["opponent"] == other]
        assert entry["won"] is False and entry["void"]
    # Two matches won and three byes: the void match gave nobody its point.
    assert sum(r["match_points"] for r in standings.values()) == 2 + 3


def test_staff_correct_a_void_knockout_match_while_the_next_round_waits(staff, make_players, seeded):
    players = make_players(4)
    seeded(players)
    t = started(staff, players, name="K.-o. korrigiert", game="gin", format="knockout",
                settings={"check_in_minutes": 0, "break_minutes": 5}, options={"target": 0})
    top = next(row for row in tournament_selectors.tournament_tables(tournament_id=t.pk)
               if players[0].pk in row["users"])
    _staff_end(staff, top["table"])
    play_stage(t.pk)  # the other semi-final; the final waits for the break
    assert Tournament.objects.get(pk=t.pk).current_stage == 1
    st = t.stages.get(number=1).tables.get(table_id=top["table"])
    tournament_services.tournament_result_correct(tournament_id=t.pk, stage_table_id=st.pk, by=staff,
                                                  result={"winner": players[3].pk, "margin": 10},
                                                  reason="Tisch hing; Spielstand laut Protokoll")
    tournament_services.tournament_next_stage(tournament_id=t.pk, by=staff)
    (final,) = tournament_selectors.tournament_tables(tournament_id=t.pk)
    assert players[3].pk in final["users"] and players[0].pk not in final["users"]
