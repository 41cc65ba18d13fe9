"""The pairing and seating rules of spec/tournaments.md, one test per rule, plus properties."""

import random

from hypothesis import given
from hypothesis import strategies as st

from tournaments import pairing
from tournaments.pairing import GinResult

# --- Rommé tables and seating ------------------------------------------------------------------------


def test_table_sizes_are_as_equal_as_possible_larger_first():
    assert pairing.romme_table_sizes(11, 4) == [4, 4, 3]
    assert pairing.romme_table_sizes(10, 4) == [4, 3, 3]
    assert pairing.romme_table_sizes(9, 4) == [3, 3, 3]
    assert pairing.romme_table_sizes(7, 4) == [4, 3]
    assert pairing.romme_table_sizes(12, 4) == [4, 4, 4]


def test_tables_reduced_by_one_while_fewer_than_three_a_table():
    assert pairing.romme_table_sizes(5, 4) == [5]
    assert pairing.romme_table_sizes(4, 3) == [4]
    assert pairing.romme_table_sizes(8, 3) == [4, 4]


def test_seating_by_standings_fills_table_one_first_better_placed_lower_seat():
    tables = pairing.romme_seating(list("abcdefghijk"), [4, 4, 3])
    assert tables == [list("abcd"), list("efgh"), list("ijk")]


def test_first_series_seating_is_random_but_complete():
    tables = pairing.romme_seating_random(list(range(11)), [4, 4, 3], random.Random(3))
    assert [len(t) for t in tables] == [4, 4, 3]
    assert sorted(p for t in tables for p in t) == list(range(11))


@given(st.integers(1, 80), st.integers(3, 6))
def test_table_sizes_property(n, k):
    sizes = pairing.romme_table_sizes(n, k)
    assert sum(sizes) == n
    assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)
    assert len(sizes) == 1 or min(sizes) >= 3


# --- Swiss --------------------------------------------------------------------------------------------


def test_swiss_default_rounds():
    assert pairing.swiss_rounds(9) == 4
    assert pairing.swiss_rounds(4) == 3
    assert pairing.swiss_rounds(3) == 2
    assert pairing.swiss_rounds(40) == 6


def test_swiss_top_half_meets_bottom_half():
    pairs, bye = pairing.swiss_pairings(list("abcdefgh"), {})
    assert pairs == [("a", "e"), ("b", "f"), ("c", "g"), ("d", "h")] and bye is None


def test_swiss_nobody_meets_the_same_opponent_twice():
    history = [GinResult("a", "c", 10), GinResult("b", "d", 10)]
    points = pairing.match_points(history)
    pairs, _ = pairing.swiss_pairings(["a", "b", "c", "d"], points, history)
    assert {frozenset(p) for p in pairs} == {frozenset("ab"), frozenset("cd")}
    history += [GinResult("a", "b", 5), GinResult("c", "d", 5)]
    pairs, _ = pairing.swiss_pairings(["a", "b", "c", "d"], pairing.match_points(history), history)
    assert {frozenset(p) for p in pairs} == {frozenset("ad"), frozenset("bc")}


def test_swiss_unpairable_player_floats_down_to_next_group():
    # a, b, c on 1 point; a and b met. The lowest of the group (c) floats down rather than a/b repeating.
    history = [GinResult("a", "b", 1), GinResult("c", "d", 1), GinResult("e", "f", 1)]
    points = {"a": 1, "c": 1, "e": 1, "b": 0, "d": 0, "f": 0}
    pairs, bye = pairing.swiss_pairings(["a", "c", "e", "b", "d", "f"], points, history)
    assert bye is None
    assert all(frozenset(p) not in pairing.met(history) for p in pairs)


def test_swiss_bye_goes_to_lowest_placed_without_a_bye():
    pairs, bye = pairing.swiss_pairings(list("abcde"), {})
    assert bye == "e"
    history = [GinResult("e", None)]
    pairs, bye = pairing.swiss_pairings(list("abcde"), pairing.match_points(history), history)
    assert bye == "d"


def test_swiss_buchholz_breaks_ties_bye_adds_nothing():
    results = [GinResult("a", "b", 10), GinResult("c", "d", 10), GinResult("b", "x", 5), GinResult("x", None)]
    standings = pairing.swiss_standings(["a", "b", "c", "d", "x"], results)
    by = {s.player: s for s in standings}
    assert by["a"].buchholz == 1 and by["c"].buchholz == 0
    assert by["x"].buchholz == 1  # b's point; the bye adds 0
    assert by["a"].place < by["c"].place


def test_swiss_margin_then_direct_encounter_then_shared():
    results = [GinResult("a", "b", 30), GinResult("b", "a", 30)]
    standings = pairing.swiss_standings(["a", "b"], results)
    assert [s.place for s in standings] == [1, 1]
    results = [GinResult("a", "c", 10), GinResult("b", "d", 40)]
    standings = pairing.swiss_standings(list("abcd"), results)
    assert standings[0].player == "b"


def test_direct_encounter_decides_equal_points_and_margins():
    results = [GinResult("b", "a", 20), GinResult("a", "c", 20), GinResult("c", "b", 20)]
    standings = pairing.round_robin_standings(list("abc"), results)
    assert [s.place for s in standings] == [1, 1, 1]  # a circle: everyone beat one of the others
    results = [GinResult("b", "a", 20), GinResult("a", "c", 40), GinResult("c", "b", 20)]
    standings = pairing.round_robin_standings(["a", "b", "c"], results)
    assert standings[0].player == "a"


def _play_swiss(n, rounds, seed):
    rng = random.Random(seed)
    players = list(range(n))
    rating = {p: rng.randint(1000, 2000) for p in players}
    history = []
    per_round = []
    for _ in range(rounds):
        points = pairing.match_points(history)
        ranked = sorted(players, key=lambda p: (-points.get(p, 0), -rating[p]))
        pairs, bye = pairing.swiss_pairings(ranked, points, history)
        per_round.append((pairs, bye))
        for a, b in pairs:
            history.append(GinResult(a, b, 10) if rng.random() < 0.5 else GinResult(b, a, 10))
        if bye is not None:
            history.append(GinResult(bye, None))
    return per_round


@given(st.integers(2, 16), st.integers(0, 10_000))
def test_swiss_properties(n, seed):
    rounds = pairing.swiss_rounds(n)
    seen, byes = set(), []
    for pairs, bye in _play_swiss(n, rounds, seed):
        paired = [p for pair in pairs for p in pair]
        assert len(paired) == len(set(paired))
        assert len(paired) + (bye is not None) == n
        assert (bye is not None) == (n % 2 == 1)
        for pair in pairs:
            assert frozenset(pair) not in seen
            seen.add(frozenset(pair))
        if bye is not None:
            assert bye not in byes
            byes.append(bye)


# --- Knockout -----------------------------------------------------------------------------------------


def test_bracket_is_next_power_of_two():
    assert [pairing.bracket_size(n) for n in (2, 3, 5, 6, 8, 9)] == [2, 4, 8, 8, 8, 16]


def test_standard_seeding_one_meets_lowest_seed():
    assert pairing.bracket_order(4) == [1, 4, 2, 3]
    assert pairing.knockout_first_round(list("abcdefgh"))[0] == ("a", "h")


def test_byes_go_to_the_top_seeds():
    first = pairing.knockout_first_round(list("abcdef"))
    byes = [a for a, b in first if b is None]
    assert sorted(byes) == ["a", "b"]


def test_knockout_places():
    assert pairing.knockout_place(rounds=3, lost_in=None) == 1
    assert pairing.knockout_place(rounds=3, lost_in=3) == 2
    assert pairing.knockout_place(rounds=3, lost_in=2) == 3
    assert pairing.knockout_place(rounds=3, lost_in=1) == 5


@given(st.integers(2, 64))
def test_seeds_one_and_two_meet_only_in_the_final(n):
    seeded = list(range(1, n + 1))
    matches = pairing.knockout_first_round(seeded)
    # Top seed always wins: 1 and 2 must not meet before the last round.
    rounds = pairing.knockout_rounds(n)
    current = [min(p for p in m if p is not None) for m in matches]
    for number in range(2, rounds + 1):
        pairs = pairing.knockout_next_round(current)
        if {1, 2} in [set(p) for p in pairs]:
            assert number == rounds
        current = [min(p) for p in pairs]
    assert current == [1]


# --- Round robin --------------------------------------------------------------------------------------


@given(st.integers(2, 10))
def test_circle_method_everyone_meets_everyone_exactly_once(n):
    players = list(range(n))
    rounds = pairing.round_robin_rounds(players)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    meetings = [frozenset(p) for r in rounds for p in r if None not in p]
    assert len(meetings) == len(set(meetings)) == n * (n - 1) // 2
    for r in rounds:
        seated = [p for pair in r for p in pair if p is not None]
        assert len(seated) == len(set(seated)) == n  # everyone plays, or has the round's one bye
        assert sum(None in pair for pair in r) == n % 2
    if n % 2:
        assert sorted(b[0] for r in rounds for b in r if b[1] is None) == players
