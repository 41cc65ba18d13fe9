"""The arena through the services (spec/tournaments.md "Arena"): continuous pairing on the referee's clock,
late entries, pause and resume, leaving a table, the end, ranked play and one live table at a time."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games import services as games_services
from games.models import Table
from ratings import pool as ratings_pool
from ratings.models import RatingChange
from tests.games.helpers import play_out
from tests.tournaments.helpers import started, users_of
from tournaments import formats, selectors
from tournaments import services as tournament_services
from tournaments.errors import TournamentError
from tournaments.models import Entry, StageTable, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

GIN = {"game": "gin", "format": "arena", "settings": {"minutes": 20}, "options": {"target": 0}}
ROMME = {"game": "romme", "format": "arena", "settings": {"minutes": 20}, "options": {"rounds": 1}}


@pytest.fixture(autouse=True)
def _present_while_the_test_runs(settings):
    # Whoever registered is present all through a test unless it says otherwise.
    settings.TOURNAMENTS_ARENA_PRESENT_SECONDS = 3600


def arena(staff, players, **kwargs):
    return started(staff, players, name="Arena", **{**GIN, **kwargs})


def running_tables(t):
    return list(StageTable.objects.filter(stage__tournament=t, finished_at__isnull=True).order_by("number"))


def seated(t):
    return {u for st in running_tables(t) for u in st.users}


def play(st):
    play_out(st.table_id, users_of(st.users))


def later(t, minutes):
    return t.started_at + tournament_services.clock_minutes(minutes)


def test_an_arena_seats_everyone_present_at_its_start(staff, make_players):
    t = arena(staff, make_players(6))
    tables = running_tables(t)
    assert len(tables) == 3 and all(len(st.users) == 2 for st in tables)
    assert all(Table.objects.get(pk=st.table_id).ranked and Table.objects.get(pk=st.table_id).tournament
               for st in tables)
    assert t.stages.count() == 1 and t.status == Tournament.Status.RUNNING


def test_a_player_away_from_the_arena_is_not_paired(staff, make_players):
    players = make_players(4)
    t = tournament_services.tournament_create(by=staff, name="Arena", **GIN)
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    for user in players:
        tournament_services.tournament_register(tournament_id=t.pk, user=user)
    Entry.objects.filter(tournament=t, user=players[3]).update(seen_at=timezone.now() - timedelta(hours=2))
    tournament_services.tournament_start(tournament_id=t.pk, by=staff)
    assert players[3].pk not in seated(t) and len(seated(t)) == 2


def test_a_player_back_on_the_page_is_paired_on_the_next_pass(staff, make_players):
    players = make_players(3)
    t = arena(staff, players)
    waiting = next(p for p in players if p.pk not in seated(t))
    Entry.objects.filter(tournament=t, user=waiting).update(seen_at=timezone.now() - timedelta(hours=2))
    assert tournament_services.tournament_seen(tournament_id=t.pk, user=waiting)
    assert Entry.objects.get(tournament=t, user=waiting).seen_at > timezone.now() - timedelta(minutes=1)


def test_finished_players_are_paired_again_but_not_with_their_last_opponent(staff, make_players):
    t = arena(staff, make_players(4))
    first = {frozenset(st.users) for st in running_tables(t)}
    for st in running_tables(t):
        play(st)
    assert not running_tables(t)
    opened = tournament_services.tournament_pair(tournament_id=t.pk, now=later(t, 2))
    assert len(opened) == 2
    assert not {frozenset(st.users) for st in opened} & first


def test_the_last_opponent_is_met_again_when_nobody_else_is_free(staff, make_players):
    t = arena(staff, make_players(2))
    [st] = running_tables(t)
    play(st)
    [again] = tournament_services.tournament_pair(tournament_id=t.pk, now=later(t, 2))
    assert set(again.users) == set(st.users)


def test_the_referee_tick_pairs_the_arena(staff, make_players):
    t = arena(staff, make_players(4))
    for st in running_tables(t):
        play(st)
    tournament_services.tournaments_tick(now=later(t, 2))
    assert len(running_tables(t)) == 2


def test_each_pairing_pass_of_the_referee_tick_logs_its_server_time(staff, make_players, caplog):
    import json

    t = arena(staff, make_players(4))
    for st in running_tables(t):
        play(st)
    with caplog.at_level("INFO", logger="tournaments.passes"):
        tournament_services.tournaments_tick(now=later(t, 2))
    [line] = [r.getMessage() for r in caplog.records if r.name == "tournaments.passes"]
    assert line.startswith("arena pass ")
    facts = json.loads(line.removeprefix("arena pass "))
    assert facts["tournament"] == t.pk and facts["tables"] == 2 and facts["seated"] == 4
    assert 0 < facts["seconds"] < 60
    with caplog.at_level("INFO", logger="tournaments.passes"):
        caplog.clear()
        tournament_services.tournaments_tick(now=later(t, 2))  # everyone at a table: no pass, no line
    assert not [r for r in caplog.records if r.name == "tournaments.passes"]


def test_points_and_streak_in_the_standings(staff, make_players):
    t = arena(staff, make_players(2))
    for _ in range(3):
        [st] = running_tables(t)
        play(st)
        tournament_services.tournament_pair(tournament_id=t.pk, now=later(t, 2))
    rows = selectors.tournament_standings(tournament_id=t.pk)
    assert sum(r["matches"] for r in rows) == 6
    assert sum(1 for r in rows for p in r["strip"] if p) == 3  # one winner a match
    for r in rows:
        assert len(r["strip"]) == 3 and set(r["strip"]) <= {0, 2, 4} and r["points"] == sum(r["strip"])
        # Double only after two wins in a row; on fire after the last two won.
        assert all(p != 4 or (i >= 2 and r["strip"][i - 1] and r["strip"][i - 2]) for i, p in enumerate(r["strip"]))
        assert r["fire"] == bool(r["strip"][-1] and r["strip"][-2])
    assert rows[0]["place"] == 1 and rows[0]["points"] >= rows[1]["points"]


def test_a_player_who_leaves_a_table_forfeits_it_and_is_paused(staff, make_players):
    players = make_players(2)
    t = arena(staff, players)
    [st] = running_tables(t)
    leaver, stayer = users_of(st.users)
    games_services.match_resign(table_id=st.table_id, user=leaver)
    st.refresh_from_db()
    assert st.result["seats"][st.users.index(leaver.pk)] == {"user_id": leaver.pk, "place": 2, "left": True}
    assert Entry.objects.get(tournament=t, user=leaver).paused
    rows = {r["user_id"]: r for r in selectors.tournament_standings(tournament_id=t.pk)}
    assert rows[stayer.pk]["points"] == 2 and rows[leaver.pk]["points"] == 0
    assert tournament_services.tournament_pair(tournament_id=t.pk, now=later(t, 2)) == []


def test_a_paused_player_is_not_paired_until_they_resume(staff, make_players):
    players = make_players(2)
    t = arena(staff, players)
    [st] = running_tables(t)
    tournament_services.tournament_player_pause(tournament_id=t.pk, user=players[0])
    play(st)  # the table they sit at is played out
    assert tournament_services.tournament_pair(tournament_id=t.pk, now=later(t, 2)) == []
    tournament_services.tournament_player_resume(tournament_id=t.pk, user=players[0])
    assert len(tournament_services.tournament_pair(tournament_id=t.pk, now=later(t, 2))) == 1


def test_a_pause_from_someone_not_playing_is_refused_and_changes_nothing(staff, make_players):
    players = make_players(3)
    t = arena(staff, players[:2])
    with pytest.raises(TournamentError) as refused:
        tournament_services.tournament_player_pause(tournament_id=t.pk, user=players[2])
    assert refused.value.code == "not_registered"
    assert not Entry.objects.filter(tournament=t, paused=True).exists()


def test_a_pause_in_a_format_without_it_is_refused(staff, make_players):
    players = make_players(2)
    t = started(staff, players, name="Swiss", game="gin", format="swiss", settings={"check_in_minutes": 0},
                options={"target": 0})
    with pytest.raises(TournamentError) as refused:
        tournament_services.tournament_player_pause(tournament_id=t.pk, user=players[0])
    assert refused.value.code == "no_pause"
    assert not Entry.objects.filter(tournament=t, paused=True).exists()


def test_joining_late_plays_at_once(staff, make_players):
    players = make_players(3)
    t = arena(staff, players[:2])
    entry = tournament_services.tournament_register(tournament_id=t.pk, user=players[2])
    assert entry.status == Entry.Status.PLAYING
    [st] = running_tables(t)
    play(st)
    opened = tournament_services.tournament_pair(tournament_id=t.pk, now=later(t, 2))
    assert len(opened) == 1 and players[2].pk in opened[0].users


def test_joining_late_is_refused_for_a_format_of_stages(staff, make_players):
    players = make_players(3)
    t = started(staff, players[:2], name="Swiss", game="gin", format="swiss", settings={"check_in_minutes": 0},
                options={"target": 0})
    with pytest.raises(TournamentError) as refused:
        tournament_services.tournament_register(tournament_id=t.pk, user=players[2])
    assert refused.value.code == "bad_status"


def test_no_new_pairing_in_the_last_minutes(staff, make_players):
    t = arena(staff, make_players(4))  # 20 minutes: the last 2 without pairing
    for st in running_tables(t):
        play(st)
    assert tournament_services.tournament_pair(tournament_id=t.pk, now=later(t, 18) + timedelta(seconds=1)) == []
    assert len(tournament_services.tournament_pair(tournament_id=t.pk, now=later(t, 17))) == 2


def test_matches_running_at_the_end_are_played_out_and_count(staff, make_players):
    t = arena(staff, make_players(2))
    [st] = running_tables(t)
    # The arena's time ran out while the table plays: nothing ends it, no new pairing.
    Tournament.objects.filter(pk=t.pk).update(started_at=t.started_at - tournament_services.clock_minutes(21))
    tournament_services.tournament_pair(tournament_id=t.pk)
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING
    play(st)  # the last match ends: the arena with it
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    assert sorted(r["points"] for r in t.final_standings) == [0, 2]


def test_an_arena_without_a_table_at_its_end_finishes_on_the_next_pass(staff, make_players):
    t = arena(staff, make_players(2))
    [st] = running_tables(t)
    play(st)
    tournament_services.tournaments_tick(now=later(t, 20))
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED and len(t.final_standings) == 2


def test_every_arena_match_is_ranked_even_the_fourth_between_two_in_a_day(staff, make_players):
    t = arena(staff, make_players(2))
    for _ in range(4):
        [st] = running_tables(t)
        play(st)
        tournament_services.tournament_pair(tournament_id=t.pk, now=later(t, 2))
    matches = [st.table.current_match_id for st in StageTable.objects.filter(stage__tournament=t, finished_at__isnull=False)]
    assert len(matches) == 4
    assert all(RatingChange.objects.filter(match_id=m).count() == 2 for m in matches)


def test_a_player_at_a_ranked_table_is_not_paired_by_the_arena(staff, make_players):
    players = make_players(4)
    t = tournament_services.tournament_create(by=staff, name="Arena", **GIN)
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    for user in players[:2]:
        tournament_services.tournament_register(tournament_id=t.pk, user=user)
    tournament_services.tournament_start(tournament_id=t.pk, by=staff)
    # Two join late while they play a ranked table: the arena waits until it is over.
    ranked = games_services.table_create_seated(game="gin", users=players[2:], ranked=True, options={"target": 0})
    for user in players[2:]:
        tournament_services.tournament_register(tournament_id=t.pk, user=user)
    t.refresh_from_db()
    assert tournament_services.tournament_pair(tournament_id=t.pk, now=later(t, 2)) == []
    play_out(ranked.pk, players[2:])
    assert len(tournament_services.tournament_pair(tournament_id=t.pk, now=later(t, 2))) == 1


def test_a_player_in_a_running_arena_is_not_paired_by_the_ranked_pool(staff, make_players):
    players = make_players(2)
    arena(staff, players)
    with pytest.raises(games_services.ServiceError) as refused:
        ratings_pool.pool_join(user=players[0], game="gin")
    assert refused.value.code in ("already_seated", "in_tournament")


def test_whoever_waits_in_the_pool_leaves_it_when_the_arena_seats_them(staff, make_players):
    players = make_players(3)
    t = arena(staff, players[:2])
    ratings_pool.pool_join(user=players[2], game="gin")
    tournament_services.tournament_register(tournament_id=t.pk, user=players[2])
    [st] = running_tables(t)
    play(st)
    opened = tournament_services.tournament_pair(tournament_id=t.pk, now=later(t, 2))
    assert players[2].pk in opened[0].users
    assert not ratings_pool.PoolEntry.objects.filter(user=players[2], table__isnull=True).exists()


def test_romme_arena_seats_a_table_of_three_and_scores_places_two_one_nothing(staff, make_players):
    t = started(staff, make_players(3), name="Rommé-Arena", **ROMME)
    [st] = running_tables(t)
    assert len(st.users) == 3
    play(st)
    st.refresh_from_db()
    points = {r["user_id"]: r["points"] for r in selectors.tournament_standings(tournament_id=t.pk)}
    by_place = {}
    for seat in st.result["seats"]:
        by_place.setdefault(seat["place"], []).append(points[seat["user_id"]])
    assert all(p == 2 for p in by_place.get(1, []))
    if 2 in by_place and len(by_place.get(1, [])) == 1:
        assert by_place[2] == [1]


def test_romme_arena_needs_three_players_at_the_start(staff, make_players):
    t = started(staff, make_players(2), name="Rommé-Arena", **ROMME)
    assert t.status == Tournament.Status.CANCELLED


def test_an_arena_has_no_check_in(staff):
    with pytest.raises(TournamentError) as refused:
        tournament_services.tournament_create(by=staff, name="A", game="gin", format="arena",
                                              settings={"check_in_minutes": 10})
    assert refused.value.code == "bad_settings"


def test_the_arena_takes_the_games_short_table_options_by_default(staff):
    gin = tournament_services.tournament_create(by=staff, name="A", game="gin", format="arena")
    romme = tournament_services.tournament_create(by=staff, name="B", game="romme", format="arena")
    assert gin.options["target"] == 50 and romme.options["rounds"] == 4
    assert gin.settings["minutes"] == 60 and gin.settings["check_in_minutes"] == 0


def test_the_create_form_shows_the_arenas_fields(staff):
    fields = formats.get("arena", "gin").form_fields()
    assert list(fields)[:2] == ["minutes", "target"]
    assert "check_in_minutes" not in fields and "break_minutes" not in fields
    assert formats.get("arena", "gin").form_defaults()["target"] == 50
    assert "rounds" in formats.get("arena", "romme").form_fields()


def test_a_pass_is_due_only_with_players_to_seat_or_an_end_to_check(staff, make_players):
    t = arena(staff, make_players(2))
    fmt = formats.of(t)
    assert not fmt.pass_due(later(t, 2))  # both at their table: nothing to do, no lock taken
    [st] = running_tables(t)
    play(st)
    assert fmt.pass_due(later(t, 2))
    assert not fmt.pass_due(later(t, 19))  # the last minutes: nobody is paired
    assert fmt.pass_due(later(t, 20))  # the end: the pass finishes the arena


def test_each_player_paired_is_told_their_table_on_every_page_they_have_open(staff, make_players, monkeypatch):
    from games.delivery import events, notices

    t = arena(staff, make_players(4))
    for st in running_tables(t):
        play(st)
    told: list[tuple[str, dict]] = []
    send = events._send

    def recorded(messages):
        told.extend((group, m["frame"]) for group, m in messages if m.get("type") == "notice.frame")
        send(messages)

    monkeypatch.setattr(events, "_send", recorded)
    opened = tournament_services.tournament_pair(tournament_id=t.pk, now=later(t, 2))
    ready = {(group, frame["table_id"]) for group, frame in told if frame["kind"] == "table_ready"}
    assert ready == {(notices.user_group(u), st.table_id) for st in opened for u in st.users}
    assert all(frame["tournament_url"] == reverse("tournaments:detail", args=[t.pk])
               for _g, frame in told if frame["kind"] == "table_ready")


def test_two_romme_players_left_over_wait_then_play_a_table_of_two_after_sixty_seconds(staff, make_players):
    players = make_players(5)
    t = started(staff, players[:3], name="Rommé-Arena", **ROMME)
    for user in players[3:]:
        tournament_services.tournament_register(tournament_id=t.pk, user=user)
    now = timezone.now()
    assert tournament_services.tournament_pair(tournament_id=t.pk, now=now + timedelta(seconds=5)) == []
    [pair] = tournament_services.tournament_pair(tournament_id=t.pk, now=now + timedelta(seconds=61))
    assert sorted(pair.users) == sorted(u.pk for u in players[3:])
    assert Table.objects.get(pk=pair.table_id).seat_count == 2


@pytest.mark.parametrize("game, given, options", [
    ("gin", {"minutes": 10}, {}),
    ("gin", {"minutes": 241}, {}),
    ("gin", {"minutes": "60"}, {}),
    ("gin", {"legs": 2}, {}),
    ("gin", {}, {"hollywood": True, "target": 100}),
    ("gin", {}, {"target": 77}),
    ("romme", {}, {"seats": 3}),
    ("romme", {}, {"scoring": "fancy"}),
])
def test_a_forged_arena_is_refused_and_nothing_is_made(staff, game, given, options):
    with pytest.raises(TournamentError) as refused:
        tournament_services.tournament_create(by=staff, name="A", game=game, format="arena", settings=given,
                                              options=options)
    assert refused.value.code in ("bad_settings", "bad_options")
    assert not Tournament.objects.exists()


def test_two_romme_players_left_over_get_their_table_of_two_from_the_referees_clock(staff, make_players):
    # Three play a table of three; two join late and are the only free players: 2, fewer than the 3 of the
    # smallest table a pass forms. After 5 s nothing; once one has waited 60 s, the referee's own pass (no
    # pairing called by hand) seats the two at a table of two.
    players = make_players(5)
    t = started(staff, players[:3], name="Rommé-Arena", **ROMME)
    for user in players[3:]:
        tournament_services.tournament_register(tournament_id=t.pk, user=user)
    now = timezone.now()
    tournament_services.tournaments_tick(now=now + timedelta(seconds=5))
    assert [len(st.users) for st in running_tables(t)] == [3]
    tournament_services.tournaments_tick(now=now + timedelta(seconds=61))
    assert [len(st.users) for st in running_tables(t)] == [3, 2]
    assert sorted(running_tables(t)[1].users) == sorted(u.pk for u in players[3:])


def test_arena_rank_for_pairing_is_the_place_in_the_whole_arena_not_among_the_free_players(staff, make_players):
    # Four play two gin matches: the two winners have 2 points (place 1, shared), the two losers 0 (place 3,
    # shared). The winners leave the page. The losers, the only free players, keep their arena rank 3 for
    # the pairing's |Δrank| × 1000 (not 1, as if the absent were not in the arena).
    t = arena(staff, make_players(4))
    for st in running_tables(t):
        play(st)
    rows = selectors.tournament_standings(tournament_id=t.pk)
    assert sorted((r["place"], r["points"]) for r in rows) == [(1, 2), (1, 2), (3, 0), (3, 0)]
    winners = [r["user_id"] for r in rows if r["points"] == 2]
    Entry.objects.filter(tournament=t, user_id__in=winners).update(seen_at=timezone.now() - timedelta(hours=2))
    free = formats.of(t).free_players(later(t, 2), tournament_services._rating_for(t))
    assert sorted((p.player, p.rank) for p in free) == sorted((r["user_id"], 3) for r in rows if r["points"] == 0)
