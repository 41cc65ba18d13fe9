"""The arena's pure rules (tournaments.arena, spec/tournaments.md "Arena"): the pairing of free players and
the points with the streak, one test per rule, plus properties of the pairing."""

import doctest

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments import arena
from tournaments.arena import FreePlayer, Outcome, arena_score, arena_tables, base_points

GIN = {"sizes": (2,)}
ROMME = {"sizes": (4, 3), "late_size": 2}


def free(n, **kwargs):
    return [FreePlayer(i, rank=i, rating=1500, **kwargs) for i in range(1, n + 1)]


def test_the_module_examples_hold():
    failed, attempted = doctest.testmod(arena)
    assert attempted > 0 and failed == 0


# --- pairing ------------------------------------------------------------------------------------------------


def test_gin_pairs_players_closest_in_arena_rank():
    players = [FreePlayer("a", rank=1, rating=1500), FreePlayer("b", rank=9, rating=1500),
               FreePlayer("c", rank=2, rating=1500), FreePlayer("d", rank=8, rating=1500)]
    assert sorted(map(sorted, arena_tables(players, **GIN))) == [["a", "c"], ["b", "d"]]


def test_gin_pairs_equal_ranks_by_closeness_of_wertungszahl():
    players = [FreePlayer("a", rank=1, rating=1900), FreePlayer("b", rank=1, rating=1300),
               FreePlayer("c", rank=1, rating=1880), FreePlayer("d", rank=1, rating=1350)]
    assert sorted(map(sorted, arena_tables(players, **GIN))) == [["a", "c"], ["b", "d"]]


def test_rank_outweighs_wertungszahl():
    # One place apart costs 1000, more than 900 Wertungszahl apart.
    players = [FreePlayer("a", rank=1, rating=1500), FreePlayer("b", rank=2, rating=2400),
               FreePlayer("c", rank=3, rating=1500), FreePlayer("d", rank=4, rating=2400)]
    assert sorted(map(sorted, arena_tables(players, **GIN))) == [["a", "b"], ["c", "d"]]


def test_the_last_opponent_is_avoided_when_another_player_is_free():
    players = [FreePlayer("a", rank=1, rating=1500, last=frozenset("b")),
               FreePlayer("b", rank=2, rating=1500, last=frozenset("a")),
               FreePlayer("c", rank=30, rating=2500)]
    tables = arena_tables(players, **GIN)
    assert len(tables) == 1 and "c" in tables[0]


def test_the_last_opponent_is_met_again_when_nobody_else_is_free():
    players = [FreePlayer("a", rank=1, rating=1500, last=frozenset("b")),
               FreePlayer("b", rank=2, rating=1500, last=frozenset("a"))]
    assert arena_tables(players, **GIN) == [["a", "b"]]


def test_a_rematch_costs_ten_thousand():
    a = FreePlayer("a", rank=1, rating=1500, last=frozenset("b"))
    assert arena.pair_cost(a, FreePlayer("b", rank=1, rating=1500)) == 10_000
    assert arena.pair_cost(a, FreePlayer("c", rank=3, rating=1540)) == 2040


def test_the_first_minute_pairs_neighbouring_ranks():
    # Ranks 1-2 and 3-4 are neighbours, even where a matching of Wertungszahl would cross them.
    players = [FreePlayer("a", rank=1, rating=1500), FreePlayer("b", rank=1, rating=1490),
               FreePlayer("c", rank=1, rating=1480), FreePlayer("d", rank=1, rating=1000)]
    assert arena_tables(players, first_minute=True, **GIN) == [["a", "b"], ["c", "d"]]


def test_the_first_minute_pairs_neighbouring_ranks_where_the_matching_would_cross_them():
    # Ranks 1-4 with Wertungszahl 1000, 2200, 2200, 1000. The matching's cheapest: 1-4 (3 × 1000 + 0) and
    # 2-3 (1000 + 0), 4000, against neighbours 1-2 and 3-4 at 2 × (1000 + 1200) = 4400. In the first minute
    # the neighbours play all the same.
    players = [FreePlayer(1, rank=1, rating=1000), FreePlayer(2, rank=2, rating=2200),
               FreePlayer(3, rank=3, rating=2200), FreePlayer(4, rank=4, rating=1000)]
    assert sorted(map(sorted, arena_tables(players, **GIN))) == [[1, 4], [2, 3]]
    assert arena_tables(players, first_minute=True, **GIN) == [[1, 2], [3, 4]]


def test_the_first_minute_leaves_no_two_waiting_who_could_play():
    # Neighbours would pair 1-2 and 3-4 and leave 5 and 6, who met in their previous match, waiting: the
    # first minute seats everyone (the arena load profile found them waiting pass after pass).
    players = [FreePlayer(n, rank=1, rating=1500, last=frozenset({11 - n}) if n in (5, 6) else frozenset())
               for n in range(1, 7)]
    tables = arena_tables(players, first_minute=True, **GIN)
    assert len(tables) == 3 and not any({5, 6} == set(t) for t in tables)


def test_an_odd_player_waits_for_the_next_pass():
    tables = arena_tables(free(5), **GIN)
    assert len(tables) == 2 and len({p for t in tables for p in t}) == 4


def test_free_players_are_matched_in_groups_of_at_most_a_hundred():
    players = free(250)
    assert [len(g) for g in arena.groups(arena.in_rank_order(players))] == [100, 100, 50]
    tables = arena_tables(players, **GIN)
    group_of = {p.player: (p.rank - 1) // 100 for p in players}
    assert len(tables) == 125
    assert all(group_of[a] == group_of[b] for a, b in tables)


def test_left_overs_of_two_groups_meet():
    players = free(201)[:200] + [FreePlayer(999, rank=201, rating=1500)]
    # 100 + 100 + 1: each group pairs fully; one waits. With a rematch blocking a pair in group one, its two
    # left-overs are paired across.
    blocked = [FreePlayer(p.player, rank=p.rank, rating=p.rating,
                          last=frozenset({2}) if p.player == 1 else frozenset({1}) if p.player == 2 else frozenset())
               for p in players]
    tables = arena_tables(blocked, **GIN)
    assert not any({1, 2} == set(t) for t in tables)
    assert len(tables) == 100


def test_romme_seats_tables_of_four_then_three():
    assert arena.table_sizes(11, (4, 3)) == [4, 4, 3]
    assert arena.table_sizes(10, (4, 3)) == [4, 3, 3]
    assert arena.table_sizes(9, (4, 3)) == [3, 3, 3]
    assert arena.table_sizes(8, (4, 3)) == [4, 4]
    assert [len(t) for t in arena_tables(free(11), **ROMME)] == [4, 4, 3]


def test_romme_tables_are_neighbours_in_rank():
    assert arena_tables(free(7), **ROMME) == [[1, 2, 3, 4], [5, 6, 7]]


def test_romme_left_over_player_waits():
    tables = arena_tables(free(5), **ROMME)
    assert tables == [[1, 2, 3, 4]]


def test_two_romme_players_left_over_wait_for_the_next_pass():
    assert arena_tables(free(2, waited=59.0), **ROMME) == []


def test_two_romme_players_left_over_play_a_table_of_two_after_sixty_seconds():
    players = [FreePlayer(1, rank=1, rating=1500, waited=61.0), FreePlayer(2, rank=2, rating=1500, waited=3.0)]
    assert arena_tables(players, **ROMME) == [[1, 2]]


def test_romme_last_opponents_are_parted_by_a_swap():
    players = free(8)
    players[0] = FreePlayer(1, rank=1, rating=1500, last=frozenset({2}))
    tables = arena_tables(players, **ROMME)
    assert sorted(len(t) for t in tables) == [4, 4]
    assert not any({1, 2} <= set(t) for t in tables)


# --- properties ---------------------------------------------------------------------------------------------

@st.composite
def free_players(draw, most=260):
    n = draw(st.integers(0, most))
    ranks = draw(st.lists(st.integers(1, 40), min_size=n, max_size=n))
    ratings = draw(st.lists(st.integers(1000, 2200), min_size=n, max_size=n))
    waited = draw(st.lists(st.floats(0, 120), min_size=n, max_size=n))
    # Previous matches: disjoint pairs, as the arena's last round of tables left them.
    ids = list(range(n))
    pairs = draw(st.integers(0, n // 2))
    last = {}
    for k in range(pairs):
        a, b = ids[2 * k], ids[2 * k + 1]
        last[a], last[b] = frozenset({b}), frozenset({a})
    return [FreePlayer(i, rank=ranks[i], rating=ratings[i], last=last.get(i, frozenset()), waited=waited[i])
            for i in ids]


@settings(max_examples=60, deadline=None)
@given(free_players(), st.booleans())
def test_gin_property_no_one_twice_never_the_last_opponent_while_another_is_free(players, first_minute):
    tables = arena_tables(players, first_minute=first_minute, **GIN)
    seated = [p for t in tables for p in t]
    assert len(seated) == len(set(seated))
    assert all(len(t) == 2 for t in tables)
    last = {p.player: p.last for p in players}
    if len(players) > 2:
        assert not any(b in last[a] for a, b in tables)
    # Whoever waits has nobody to play: at most one left over, or those left are each other's last opponents.
    # (In the first minute too: neighbours in rank order, but not at the price of two left waiting who could play.)
    waiting = [p for p in players if p.player not in set(seated)]
    assert len(waiting) <= 1 or all(b.player in a.last for a in waiting for b in waiting if a is not b)


@settings(max_examples=60, deadline=None)
@given(free_players())
def test_romme_property_no_one_twice_tables_of_four_or_three(players):
    tables = arena_tables(players, **ROMME)
    seated = [p for t in tables for p in t]
    assert len(seated) == len(set(seated))
    late = [t for t in tables if len(t) == 2]
    assert all(len(t) in (3, 4) for t in tables if t not in late)
    assert len(late) <= 1 and (not late or len(players) - len(seated) == 0)
    assert len(players) - len(seated) <= 2


@settings(max_examples=40, deadline=None)
@given(free_players())
def test_group_property_at_most_a_hundred_consecutive_in_rank(players):
    ordered = arena.in_rank_order(players)
    cut = arena.groups(ordered)
    assert all(1 <= len(g) <= 100 for g in cut)
    assert [p for g in cut for p in g] == ordered


# --- points and streaks ------------------------------------------------------------------------------------


def test_gin_win_scores_two():
    assert base_points(Outcome(1, 2)) == 2


def test_gin_loss_scores_nothing():
    assert base_points(Outcome(2, 2)) == 0


def test_romme_place_one_scores_two():
    assert base_points(Outcome(1, 4)) == 2


def test_romme_place_two_scores_one_at_tables_of_three_or_more():
    assert base_points(Outcome(2, 3)) == 1 and base_points(Outcome(2, 4)) == 1


def test_romme_place_two_scores_nothing_at_a_table_of_two():
    assert base_points(Outcome(2, 2)) == 0


def test_romme_places_below_two_score_nothing():
    assert base_points(Outcome(3, 4)) == 0 and base_points(Outcome(4, 4)) == 0


def test_a_shared_first_place_is_a_win_for_each():
    assert base_points(Outcome(1, 4)) == 2 and Outcome(1, 4).won


def test_after_two_wins_in_a_row_further_wins_count_double():
    score = arena_score([Outcome(1, 2)] * 5)
    assert score.strip == [2, 2, 4, 4, 4] and score.points == 16 and score.on_fire


def test_on_fire_after_two_wins_in_a_row():
    assert not arena_score([Outcome(1, 2)]).on_fire
    assert arena_score([Outcome(1, 2), Outcome(1, 2)]).on_fire


def test_a_match_that_is_not_a_win_ends_the_streak():
    score = arena_score([Outcome(1, 2), Outcome(1, 2), Outcome(1, 2), Outcome(2, 2), Outcome(1, 2)])
    assert score.strip == [2, 2, 4, 0, 2] and not score.on_fire


def test_romme_place_two_ends_the_streak_and_is_not_doubled():
    score = arena_score([Outcome(1, 4), Outcome(1, 4), Outcome(2, 4), Outcome(1, 4)])
    assert score.strip == [2, 2, 1, 2]


def test_a_forfeit_or_abandon_scores_nothing_and_ends_the_streak():
    score = arena_score([Outcome(1, 2), Outcome(1, 2), Outcome(1, 2, left=True), Outcome(1, 2)])
    assert score.strip == [2, 2, 0, 2] and score.losses == 1


def test_wins_by_the_opponents_forfeit_count_as_wins():
    # The opponent left: the one who stayed is placed 1 and it is a win like any other.
    assert arena_score([Outcome(1, 2), Outcome(1, 2), Outcome(1, 2)]).strip == [2, 2, 4]


def test_performance_is_mean_opponent_rating_plus_400_times_wins_minus_losses_per_match():
    score = arena_score([Outcome(1, 2, opponents=(1600,)), Outcome(2, 2, opponents=(1400,)),
                         Outcome(1, 2, opponents=(1500,))])
    assert score.performance == round(1500 + 400 * (2 - 1) / 3)


def test_romme_place_two_is_neither_a_win_nor_a_loss_in_the_performance():
    score = arena_score([Outcome(2, 4, opponents=(1500, 1500, 1500))])
    assert (score.wins, score.losses, score.performance) == (0, 0, 1500)


def test_standings_order_by_points_then_performance_then_matches_else_shared():
    scores = {
        "a": arena_score([Outcome(1, 2, opponents=(1500,))]),
        "b": arena_score([Outcome(1, 2, opponents=(1700,))]),
        "c": arena_score([Outcome(2, 2, opponents=(1500,)), Outcome(1, 2, opponents=(1500,))]),
        "d": arena_score([Outcome(2, 2, opponents=(1500,)), Outcome(1, 2, opponents=(1500,))]),
        "e": arena_score([]),
    }
    assert arena.arena_places(scores) == [(1, "b"), (2, "a"), (3, "c"), (3, "d"), (5, "e")]


def test_more_matches_played_breaks_a_tie_of_points_and_performance():
    scores = {"a": arena_score([Outcome(1, 2, opponents=(1500,))]),
              "b": arena_score([Outcome(1, 2, opponents=(1900,)), Outcome(2, 2, opponents=(1900,))])}
    assert (scores["a"].points, scores["a"].performance) == (scores["b"].points, scores["b"].performance)
    assert arena.arena_places(scores) == [(1, "b"), (2, "a")]
