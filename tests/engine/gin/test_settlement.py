"""Settling a knock, one rule per test with the cards written out (gin.md, "Settling a knock", "Scoring")."""

from __future__ import annotations

from games.engine.gin.melds import cards_of, mask_of
from games.engine.gin.settle import Scoring, defender_reply, settle_big_gin, settle_knock
from tests.engine.gin.helpers import STOCK, both_pass_then, cards, knock, play, start


def settle(knocker: str, defender: str, *, limit: int = 10, **scoring):
    return settle_knock(knocker=mask_of(cards(knocker)), defender=mask_of(cards(defender)),
                        knock_limit=limit, scoring=Scoring(**scoring))


def test_knock_scores_defender_minus_knocker_deadwood():
    s = settle("4H 5H 6H KC KD KS QC QD QS AC", "2C 3D 9S TC TD TH 3S 4S 5S 9D")
    assert (s.result, s.knocker_deadwood, s.defender_deadwood, s.points) == ("knock", 1, 2 + 3 + 9 + 9, 22)
    assert s.winner_is_knocker


def test_layoffs_chain_7h_then_8h_onto_4h_5h_6h():
    s = settle("4H 5H 6H KC KD KS QC QD QS AC", "7H 8H 2D TC TD TH 3S 4S 5S 9D")
    assert sorted(s.layoff_cards()) == ["7H", "8H"]
    assert s.defender_deadwood == 2 + 9
    assert s.points == 11 - 1


def test_layoffs_run_grows_at_both_ends_ace_low():
    s = settle("2H 3H 4H KC KD KS QC QD QS JC", "AH 5H 6H 2D 9C 9D 9S 7S 8D TS")
    assert sorted(s.layoff_cards()) == ["5H", "6H", "AH"]
    assert s.defender_deadwood == 2 + 7 + 8 + 10


def test_layoff_no_wrap_from_king_to_ace():
    s = settle("JS QS KS 5C 5D 5H 8C 8D 8H AC", "AS 2D 3C 4D 6S 7S 9S TC TD TH")
    assert s.layoff_cards() == []  # AS does not go on Q-K; 9S? not adjacent either (TS missing)


def test_layoff_set_of_three_grows_to_four():
    s = settle("9C 9D 9S 2H 3H 4H KC KD KS AD", "9H 2C 3D 5S 7C JD QH TC TD TS")
    assert s.layoff_cards() == ["9H"]


def test_layoff_nothing_onto_a_set_of_four():
    s = settle("9C 9D 9S 9H 2H 3H 4H KC KD KS", "2C 3D 5S 7C JD QH TC TD TS AD", limit=0)
    assert s.result == "gin"


def test_layoff_that_would_strand_a_better_own_meld_is_not_taken():
    # 7H could go onto the knocker's 7C 7D 7S, but then 8H 9H would be deadwood: the run 7H 8H 9H is kept.
    s = settle("7C 7D 7S 2H 3H 4H KC KD KS AD", "7H 8H 9H 2C 3D 5S JC QD TC 6S")
    assert s.layoff_cards() == []
    assert ["7H", "8H", "9H"] in [cards_of(m) for m in s.defender_melds]
    assert s.defender_deadwood == 2 + 3 + 5 + 10 + 10 + 10 + 6


def test_a_card_serves_a_layoff_when_that_is_better_than_its_own_meld():
    # 5H could complete the defender's own four 5s (leaving 6H stranded), or go with 6H onto the knocker's
    # 2H 3H 4H while 5C 5D 5S stay a set: the lay-off leaves 6 less.
    s = settle("2H 3H 4H KC KD KS QC QD QS AC", "5C 5D 5H 5S 6H 2C 3D JS TD 9S")
    assert sorted(s.layoff_cards()) == ["5H", "6H"]
    assert ["5C", "5D", "5S"] in [cards_of(m) for m in s.defender_melds]
    assert s.defender_deadwood == 2 + 3 + 10 + 10 + 9


def test_no_layoffs_against_gin():
    s = settle("4H 5H 6H KC KD KS 9C 9D 9H 9S", "7H 3H KH 2C 2D 2S 5C 6C 7C AD")
    assert s.result == "gin"
    assert s.layoff_cards() == []
    assert s.defender_deadwood == 7 + 3 + 10 + 1
    assert s.points == 21 + 25


def test_gin_bonus_option_20():
    s = settle("4H 5H 6H KC KD KS 9C 9D 9H 9S", "7H 3H KH 2C 2D 2S 5C 6C 7C AD", gin_bonus=20)
    assert s.points == 21 + 20


def test_tie_is_an_undercut():
    # Knocker 8 (8D), defender 8 (2S 6S) after lay-offs (none fit): the defender wins 0 + 25.
    s = settle("AH 2H 3H 9C 9D 9S KC KD KS 8D", "2S 6S QC QD QH 4C 5C 6C 7C 8C")
    assert (s.result, s.knocker_deadwood, s.defender_deadwood) == ("undercut", 8, 8)
    assert not s.winner_is_knocker
    assert s.points == 25


def test_undercut_scores_knocker_minus_defender_plus_bonus():
    s = settle("AH 2H 3H 9C 9D 9S KC KD KS 8D", "2S 4S QC QD QH 4C 5C 6C 7C 8C")
    assert (s.result, s.points) == ("undercut", 8 - 6 + 25)


def test_undercut_bonus_options_20_and_10():
    for bonus in (20, 10):
        s = settle("AH 2H 3H 9C 9D 9S KC KD KS 8D", "2S 4S QC QD QH 4C 5C 6C 7C 8C", undercut_bonus=bonus)
        assert s.points == 2 + bonus


def test_knocker_spread_avoids_an_undercut():
    # Least deadwood spreads AH-4H (6): the defender lays off 5H 6H, keeps 1 and undercuts (-30).
    # Spreading AH 2H 3H and keeping 4H (deadwood 10, still within the limit) blocks both lay-offs:
    # the knocker wins 12 - 10 = 2.
    s = settle("AH 2H 3H 4H 9C 9D 9S 2C AS 3D", "5H 6H AC KC KD KH TS JS QS KS")
    assert (s.result, s.knocker_deadwood, s.defender_deadwood, s.points) == ("knock", 10, 12, 2)
    assert [cards_of(m) for m in s.knocker_melds] == [["AH", "2H", "3H"], ["9C", "9D", "9S"]]
    assert s.layoff_cards() == []


def test_knocker_spread_is_chosen_by_result_not_only_by_deadwood():
    # Both spreads leave 6: tens as a set of four with J-K of hearts, or TH-KH as a run with three tens.
    # Only the run TH-KH takes the defender's 9H, so the server spreads the set of four.
    s = settle("TC TD TS TH JH QH KH 2C 3D AS", "9H 2S 4C 5D 6D 7D 8C 8D 8S AD")
    assert (s.result, s.knocker_deadwood, s.defender_deadwood, s.points) == ("knock", 6, 16, 10)
    assert ["TC", "TD", "TH", "TS"] in [cards_of(m) for m in s.knocker_melds]


def test_defender_reply_counts_two_runs_of_one_suit_without_reusing_a_card():
    knocker = [mask_of(cards("2H 3H 4H")), mask_of(cards("8H 9H TH"))]
    deadwood, laid = defender_reply(tuple(knocker), mask_of(cards("5H 6H 7H KC QD JS 2C 3D 4S 9C")))
    assert deadwood == 10 + 10 + 10 + 2 + 3 + 4 + 9
    assert laid in (0, mask_of(cards("5H 6H 7H"))) or laid.bit_count() == 3


def test_big_gin_scores_defender_deadwood_plus_31_without_layoffs():
    s = settle_big_gin(knocker=mask_of(cards("4H 5H 6H 7H KC KD KS 9C 9D 9H 9S")),
                       defender=mask_of(cards("8H 3H 2C 2D 2S 5C 6C 7C AD QD")), scoring=Scoring())
    assert (s.result, s.points, s.layoff_cards()) == ("big_gin", 8 + 3 + 1 + 10 + 31, [])


def test_knock_end_to_end_records_spread_layoffs_and_both_deadwoods():
    m = start("7H 8H 2D TC TD TH 3S 4S 5S 9D", "4H 5H 6H KC KD KS QC QD QS AC", "8C", "JH")
    m = both_pass_then(m)
    m = play(m, (1, STOCK), (1, knock("JH")))
    s = m.round.summary
    assert s["result"] == "knock" and s["knocker"] == 1 and s["winner"] == 1
    assert s["deadwood"] == [11, 1] and s["points"] == 10
    assert sorted(s["layoffs"]) == ["7H", "8H"]
    assert s["melds"][1] == [["4H", "5H", "6H"], ["QC", "QD", "QS"], ["KC", "KD", "KS"]]
    assert m.totals == (0, 10) and m.boxes == (0, 1)
