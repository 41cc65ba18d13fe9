"""An independent referee's cases for the Rommé Masters Wertungspunkte (spec/romme.md, api.md).

The table's rows are checked twice: through ``tournaments.scoring`` as api.md names it, and through records
of whole rounds replayed by the engine at a tournament table, with the cards written out.
"""

from __future__ import annotations

import pytest

from tests.engine.review.test_romme_referee import (
    QUICK,
    QUICK_MELDS,
    draw,
    full_deal,
    lay,
    one_round,
    quick_round,
    record,
    replay,
    swap,
)
from tests.engine.review.test_romme_referee import (
    discard as discard_move,
)
from tournaments.scoring import (
    ListStanding,
    list_result,
    loser_wertungspunkte,
    rank_list,
    winner_wertungspunkte,
)

# -- the table as pure functions --------------------------------------------------------------------------


def test_wp_12_hand_romme_when_no_other_player_had_laid_out():
    assert winner_wertungspunkte(hand_romme=True, others_opened=False, laid_off=False) == 12


def test_wp_10_hand_romme_without_laying_off_on_other_players_melds():
    assert winner_wertungspunkte(hand_romme=True, others_opened=True, laid_off=False) == 10


def test_wp_8_hand_romme_with_laying_off_or_a_joker_swap_on_other_players_melds():
    assert winner_wertungspunkte(hand_romme=True, others_opened=True, laid_off=True) == 8


@pytest.mark.parametrize(("others_opened", "laid_off"), [(True, True), (True, False), (False, False)])
def test_wp_5_romme_after_laying_out_on_an_earlier_turn(others_opened, laid_off):
    assert winner_wertungspunkte(hand_romme=False, others_opened=others_opened, laid_off=laid_off) == 5


@pytest.mark.parametrize(("augen", "wp"), [(0, 3), (10, 3), (11, 2), (30, 2), (31, 1), (250, 1)])
def test_wp_3_2_1_for_a_loser_who_laid_out_by_augen_bands(augen, wp):
    assert loser_wertungspunkte(points=augen, opened=True) == wp


@pytest.mark.parametrize(("augen", "wp"), [(31, 0), (100, 0), (101, -1), (260, -1)])
def test_wp_0_and_minus_1_for_a_loser_who_had_not_laid_out(augen, wp):
    assert loser_wertungspunkte(points=augen, opened=False) == wp


def test_api_example_list_result_is_10_times_wp_minus_augen():
    assert list_result(wertungspunkte=[12, 3, -1], points=[0, 8, 104]) == 28


def test_api_example_abbruch_is_minus_700():
    assert list_result(wertungspunkte=[5], points=[30], aborted=True) == -700


def test_negative_list_results_count_as_they_are():
    assert list_result(wertungspunkte=[0, -1], points=[95, 151]) == -10 - 246


def _places(*rows: tuple[str, int, int, int, int]) -> dict[str, int]:
    return {s.player: place for place, s in rank_list([ListStanding(*row) for row in rows])}


def test_ranking_result_first_then_wp_then_fewer_augen_then_more_rounds_won_then_shared():
    places = _places(
        ("best result", 101, 0, 999, 0),
        ("more wp", 100, 21, 110, 0),
        ("fewer augen", 100, 20, 90, 0),
        ("more wins", 100, 20, 100, 3),
        ("equal a", 100, 20, 100, 2),
        ("equal b", 100, 20, 100, 2),
        ("last", -700, 50, 0, 5),
    )
    assert places == {"best result": 1, "more wp": 2, "fewer augen": 3, "more wins": 4, "equal a": 5,
                      "equal b": 5, "last": 7}


# -- the table through whole rounds at a tournament table -------------------------------------------------

WATCHER_95 = "KC QS JD TH 9C 8S 7D 6H 5C 4H 3C 2D AS"  # cannot open; 95 Augen
WATCHER_151 = "JK JK AS AH KC KS QD QH JC JD TS TH 9C"  # 151 Augen: more than 100


def _round(summary: dict) -> dict:
    (rnd,) = summary["rounds"]
    return rnd


def test_record_wp_12_and_augen_never_doubled_at_a_tournament_table():
    summary = replay(record([quick_round(2, 1, ["", WATCHER_95])], rounds=1, tournament=True))
    rnd = _round(summary)
    assert rnd["hand_romme"] and rnd["wertungspunkte"] == [12, 0] and rnd["augen"] == [0, 95]
    assert summary["wertungspunkte"] == [12, 0] and summary["augen"] == [0, 95]
    assert summary["results"] == summary["final"] == [120, -95]
    assert summary["places"] == [1, 2] and summary["winner"] == 0


def test_record_wp_minus_1_for_a_loser_who_had_not_laid_out_with_more_than_100_augen():
    rnd = _round(replay(record([quick_round(2, 1, ["", WATCHER_151])], rounds=1, tournament=True)))
    assert rnd["augen"] == [0, 151] and rnd["wertungspunkte"] == [12, -1]


# Seat 1 starts (dealer 0), draws the QC, opens with 79 and discards the QC, keeping 2S 3C 4H: 9 Augen.
OPENER_9 = "7H 8H 9H TD JD QD KD 5C 5S 5D 2S 3C 4H"
OPENER_9_MOVES = [draw(1), lay(1, "7H 8H 9H", "TD JD QD KD", "5C 5S 5D"), discard_move(1, "QC")]


def test_record_wp_10_hand_romme_after_another_player_had_laid_out_and_wp_3_for_9_augen():
    deal = full_deal([QUICK, OPENER_9], upcard="9H", stock_top="QC KS")
    moves = OPENER_9_MOVES + [draw(0), lay(0, *QUICK_MELDS), discard_move(0, "KS")]
    rnd = _round(replay(one_round(deal, moves, dealer=0, tournament=True)))
    assert (rnd["result"], rnd["winner"], rnd["augen"]) == ("hand_romme", 0, [0, 9])
    assert rnd["wertungspunkte"] == [10, 3]


def test_record_wp_8_hand_romme_with_a_lay_off_on_another_players_meld():
    deal = full_deal(["AC 2C 3C 6H AD 2D 3D AH 2H 3H 2S 3S 4S", OPENER_9], upcard="9H", stock_top="QC KS")
    moves = OPENER_9_MOVES + [
        draw(0),
        lay(0, "AC 2C 3C", "AD 2D 3D", "AH 2H 3H", "2S 3S 4S", lay_offs=[{"card": "6H", "meld": 1}]),
        discard_move(0, "KS"),
    ]
    rnd = _round(replay(one_round(deal, moves, dealer=0, tournament=True)))
    assert rnd["hand_romme"] and rnd["melds"][0] == ["6H", "7H", "8H", "9H"]
    assert rnd["wertungspunkte"] == [8, 3]


def test_record_wp_10_when_the_hand_romme_lays_off_only_on_its_own_melds():
    deal = full_deal(["AC 2C 3C 4C AD 2D 3D AH 2H 3H 2S 3S 5D", OPENER_9], upcard="9H", stock_top="QC 4S")
    moves = OPENER_9_MOVES + [
        draw(0),
        lay(0, "AC 2C 3C", "AD 2D 3D", "AH 2H 3H", "2S 3S 4S", lay_offs=[{"card": "4C", "meld": 4}]),
        discard_move(0, "5D"),
    ]
    rnd = _round(replay(one_round(deal, moves, dealer=0, tournament=True)))
    assert rnd["hand_romme"] and rnd["wertungspunkte"] == [10, 3]


def test_record_wp_8_hand_romme_of_40_with_a_joker_swap_on_another_players_meld_and_wp_2_for_15_augen():
    deal = full_deal(["8H TH JH QH KH AC 2C 3C AD 2D 3D 2S 3S", "7H JK 9H 5C 5S 5D TD JD QD KD 2S 3C 8C"],
                     upcard="9S", stock_top="QC KS")
    moves = [
        draw(1), lay(1, "7H JK 9H", "5C 5S 5D", "TD JD QD KD"), discard_move(1, "8C"),  # keeps 2S 3C QC: 15
        draw(0), lay(0, "TH JH QH KH", "AC 2C 3C", "AD 2D 3D"),
        swap(0, 1, "8H", lay(0, "2S 3S JK")), discard_move(0, "KS"),
    ]
    rnd = _round(replay(one_round(deal, moves, dealer=0, tournament=True)))
    assert rnd["melds"][0] == ["7H", "8H", "9H"] and rnd["melds"][-1] == ["2S", "3S", "JK"]
    assert rnd["hand_romme"] and rnd["augen"] == [0, 15] and rnd["wertungspunkte"] == [8, 2]


def test_record_wp_5_romme_and_wp_1_for_a_loser_who_laid_out_with_31_augen_or_more():
    # Seat 1 opens with 64 and keeps KS KC 9C 8S 7D 6C (50); seat 0 opens on its second turn and goes out
    # on its third, so it is a plain Rommé.
    deal = full_deal(["TH JH QH KH AC 2C 3C AD 2D 3D 2S 3S 4D", "7H 8H 9H TD JD QD KD KS KC 9C 8S 7D 6C"],
                     upcard="9S", stock_top="QC 5C 2H 5H 4S")
    moves = [
        draw(1), lay(1, "7H 8H 9H", "TD JD QD KD"), discard_move(1, "QC"),
        draw(0), discard_move(0, "5C"),
        draw(1), discard_move(1, "2H"),
        draw(0), lay(0, "TH JH QH KH", "AC 2C 3C", "AD 2D 3D"), discard_move(0, "5H"),
        draw(1), discard_move(1, "4S"),
        draw(0, "discard"), lay(0, "2S 3S 4S"), discard_move(0, "4D"),
    ]
    rnd = _round(replay(one_round(deal, moves, dealer=0, tournament=True)))
    assert (rnd["result"], rnd["hand_romme"], rnd["winner"]) == ("romme", False, 0)
    assert rnd["augen"] == [0, 50] and rnd["wertungspunkte"] == [5, 1] and rnd["opened"] == [True, True]


def test_record_list_result_sums_wp_and_augen_over_the_rounds():
    # Round 1: seat 0 goes out at once (12), seat 1 holds 95 (0 WP). Round 2: seat 1 goes out at once (12),
    # seat 0 holds 151 (−1 WP). Results: seat 0 10×11 − 151 = −41; seat 1 10×12 − 95 = 25.
    summary = replay(record([quick_round(2, 1, ["", WATCHER_95]), quick_round(2, 0, [WATCHER_151, ""])],
                            rounds=2, tournament=True))
    assert [r["wertungspunkte"] for r in summary["rounds"]] == [[12, 0], [-1, 12]]
    assert summary["wertungspunkte"] == [11, 12] and summary["augen"] == [151, 95]
    assert summary["results"] == summary["final"] == [-41, 25]
    assert summary["rounds_won"] == [1, 1] and summary["places"] == [2, 1] and summary["winner"] == 1


def test_record_casual_list_of_the_same_rounds_counts_doubled_minus_points():
    summary = replay(record([quick_round(2, 1, ["", WATCHER_95]), quick_round(2, 0, [WATCHER_151, ""])],
                            rounds=2))
    assert summary["totals"] == summary["final"] == [302, 190]
    assert summary["places"] == [2, 1] and summary["winner"] == 1


def test_record_equal_casual_totals_share_a_place():
    # Three seats: seat 0 goes out at once; seats 1 and 2 both hold 95 Augen.
    summary = replay(record([quick_round(3, 2, ["", WATCHER_95, "KH QC JS TD 9D 8C 7S 6D 5S 4D 3H 2S AC"])],
                            rounds=1))
    assert summary["totals"] == [0, 190, 190] and summary["places"] == [1, 2, 2] and summary["winner"] == 0


def test_record_equal_tournament_standings_share_first_place_and_nobody_wins():
    # Round 1 seat 0 wins at once, round 2 seat 1 at once, each opponent holding 95: both 10×12 − 95 = 25.
    summary = replay(record([quick_round(2, 1, ["", WATCHER_95]), quick_round(2, 0, [WATCHER_95, ""])],
                            rounds=2, tournament=True))
    assert summary["results"] == [25, 25] and summary["places"] == [1, 1] and summary["winner"] is None


def test_record_wp_10_when_the_hand_romme_swaps_a_joker_only_on_its_own_meld():
    deal = full_deal(["7S JK 9S 8S TH JH QH KH AC 2C 3C AD 2D", OPENER_9], upcard="9H", stock_top="QC KS")
    moves = OPENER_9_MOVES + [
        draw(0), lay(0, "7S JK 9S", "TH JH QH KH", "AC 2C 3C"),
        swap(0, 4, "8S", lay(0, "AD 2D JK")), discard_move(0, "KS"),
    ]
    rnd = _round(replay(one_round(deal, moves, dealer=0, tournament=True)))
    assert rnd["melds"][3] == ["7S", "8S", "9S"] and rnd["melds"][-1] == ["AD", "2D", "JK"]
    assert rnd["hand_romme"] and rnd["wertungspunkte"] == [10, 3]
