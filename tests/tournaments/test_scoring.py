"""Tournament arithmetic: every Rommé Masters Wertungspunkte band and boundary, the Abbruch, ranking ties,
and the gin match bonuses of api.md."""

from __future__ import annotations

import pytest

from tournaments.scoring import (
    ListStanding,
    gin_match_bonuses,
    list_result,
    loser_wertungspunkte,
    rank_list,
    winner_wertungspunkte,
)

# -- winner -------------------------------------------------------------------------------------------------

def test_winner_hand_romme_before_anyone_laid_out_gets_12():
    assert winner_wertungspunkte(hand_romme=True, others_opened=False, laid_off=False) == 12


def test_winner_hand_romme_without_laying_off_on_others_gets_10():
    assert winner_wertungspunkte(hand_romme=True, others_opened=True, laid_off=False) == 10


def test_winner_hand_romme_with_laying_off_or_joker_swap_on_others_gets_8():
    assert winner_wertungspunkte(hand_romme=True, others_opened=True, laid_off=True) == 8


def test_winner_romme_after_laying_out_earlier_gets_5():
    for others_opened in (False, True):
        for laid_off in (False, True):
            assert winner_wertungspunkte(hand_romme=False, others_opened=others_opened, laid_off=laid_off) == 5


# -- others, opened: ≤10 → 3, 11–30 → 2, ≥31 → 1 ------------------------------------------------------------

@pytest.mark.parametrize(("augen", "wp"), [(0, 3), (10, 3), (11, 2), (30, 2), (31, 1), (150, 1)])
def test_loser_who_laid_out_bands_and_boundaries(augen, wp):
    assert loser_wertungspunkte(points=augen, opened=True) == wp


# -- others, not opened: ≤100 → 0, >100 → −1 -----------------------------------------------------------------

@pytest.mark.parametrize(("augen", "wp"), [(31, 0), (100, 0), (101, -1), (200, -1)])
def test_loser_who_did_not_lay_out_bands_and_boundaries(augen, wp):
    assert loser_wertungspunkte(points=augen, opened=False) == wp


def test_loser_negative_augen_is_refused():
    with pytest.raises(ValueError, match="negative"):
        loser_wertungspunkte(points=-1, opened=True)


# -- list result --------------------------------------------------------------------------------------------

def test_list_result_ten_times_wp_minus_augen():
    assert list_result(wertungspunkte=[12, 3, -1], points=[0, 8, 104]) == 28


def test_list_result_may_be_negative():
    assert list_result(wertungspunkte=[-1, 0, 1], points=[120, 90, 45]) == -255


def test_abbruch_gets_minus_700():
    assert list_result(wertungspunkte=[5], points=[30], aborted=True) == -700
    assert list_result(wertungspunkte=[12, 12, 12], points=[0, 0, 0], aborted=True) == -700


def test_list_result_needs_one_entry_per_round():
    with pytest.raises(ValueError, match="one entry per round"):
        list_result(wertungspunkte=[5, 3], points=[0])


# -- ranking: result, then WP, then fewer Augen, then more rounds won; else shared ----------------------------

def places(*standings):
    return {s.player: place for place, s in rank_list(list(standings))}


def test_ranking_by_result_first():
    assert places(ListStanding("a", 90, 30, 10, 0), ListStanding("b", 100, 10, 0, 0)) == {"b": 1, "a": 2}


def test_ranking_tie_on_result_broken_by_more_wertungspunkte():
    assert places(ListStanding("a", 100, 20, 100, 5), ListStanding("b", 100, 21, 110, 0)) == {"b": 1, "a": 2}


def test_ranking_tie_on_wp_broken_by_fewer_augen():
    assert places(ListStanding("a", 100, 20, 100, 5), ListStanding("b", 100, 20, 90, 0)) == {"b": 1, "a": 2}


def test_ranking_tie_on_augen_broken_by_more_rounds_won():
    assert places(ListStanding("a", 100, 20, 100, 1), ListStanding("b", 100, 20, 100, 2)) == {"b": 1, "a": 2}


def test_ranking_still_equal_shares_the_place():
    got = places(ListStanding("a", 100, 20, 100, 2), ListStanding("b", 100, 20, 100, 2),
                 ListStanding("c", 50, 20, 100, 2))
    assert got == {"a": 1, "b": 1, "c": 3}


def test_abbruch_ranks_below_a_negative_result():
    got = places(ListStanding("quit", -700, 30, 0, 3), ListStanding("stay", -120, 2, 140, 0))
    assert got == {"stay": 1, "quit": 2}


# -- gin match bonuses (api.md) -----------------------------------------------------------------------------

def test_gin_bonuses_shutout_doubles_the_game_bonus():
    assert gin_match_bonuses(rounds_won=[3, 0], winner=0) == [275, 0]


def test_gin_bonuses_boxes_and_game_bonus():
    assert gin_match_bonuses(rounds_won=[4, 2], winner=0) == [200, 50]


def test_gin_bonuses_without_winner_only_boxes():
    assert gin_match_bonuses(rounds_won=[1, 2], winner=None) == [25, 50]


def test_gin_bonuses_bad_winner_is_refused():
    with pytest.raises(ValueError, match="seat index"):
        gin_match_bonuses(rounds_won=[1, 2], winner=2)
