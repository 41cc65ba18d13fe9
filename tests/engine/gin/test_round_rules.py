"""The round's rules of gin.md, one test per rule, with the cards written out."""

from __future__ import annotations

import random

import pytest

from games.engine.errors import IllegalAction
from games.engine.gin import match as gin
from tests.engine.gin.helpers import PASS, PILE, STOCK, both_pass_then, discard, knock, play, start

# Seat 1 holds 4H 5H 6H, three kings, three queens and AC (deadwood 1); seat 0 a loose hand.
LOOSE = "7H 8H 2D TC TD TH 3S 4S 5S 9D"
KNOCKER = "4H 5H 6H KC KD KS QC QD QS AC"


def test_dealing_ten_cards_each_an_upcard_and_31_in_the_stock():
    m = gin.new_match({}, rng=random.Random(1))
    assert [h.bit_count() for h in m.round.hands] == [10, 10]
    assert m.round.stock_size == 31 and len(m.round.discard) == 1
    deal = m.current_deal()
    assert sorted(deal["hands"][0] + deal["hands"][1] + [deal["upcard"]] + deal["stock"]) == sorted(
        gin.ALL_CARDS)


def test_first_dealer_is_chosen_with_the_rng_given():
    dealers = {gin.new_match({}, rng=random.Random(seed)).dealer for seed in range(20)}
    assert dealers == {0, 1}
    assert gin.new_match({}, rng=random.Random(5)).current_deal() == gin.new_match(
        {}, rng=random.Random(5)).current_deal()


def test_first_turn_pass_non_dealer_is_offered_the_upcard_first():
    m = start(LOOSE, KNOCKER, "9C", dealer=0)
    assert (m.phase, m.to_act) == ("first_turn", 1)
    assert gin.legal_actions(m) == [PASS, PILE]


def test_first_turn_pass_offer_cannot_be_answered_by_drawing_from_stock():
    m = start(LOOSE, KNOCKER, "9C", dealer=0)
    with pytest.raises(IllegalAction, match="take the upcard or pass"):
        gin.apply_action(m, 1, STOCK)


def test_first_turn_pass_then_dealer_is_offered_the_upcard():
    m = play(start(LOOSE, KNOCKER, "9C", dealer=0), (1, PASS))
    assert (m.phase, m.to_act) == ("first_turn", 0)


def test_first_turn_both_pass_non_dealer_must_draw_from_stock():
    m = both_pass_then(start(LOOSE, KNOCKER, "9C", dealer=0))
    assert (m.phase, m.to_act) == ("draw", 1)
    assert gin.legal_actions(m) == [STOCK]
    with pytest.raises(IllegalAction, match="must draw from the stock"):
        gin.apply_action(m, 1, PILE)


def test_first_turn_dealer_takes_upcard_discards_then_non_dealer_is_on_turn():
    m = play(start(LOOSE, KNOCKER, "9C", dealer=0), (1, PASS), (0, PILE), (0, discard("2D")))
    assert (m.phase, m.to_act) == ("draw", 1)
    assert gin.legal_actions(m) == [STOCK, PILE]


def test_first_turn_non_dealer_takes_upcard_then_dealer_is_on_turn():
    m = play(start(LOOSE, KNOCKER, "9C", dealer=0), (1, PILE), (1, discard("AC")))
    assert (m.phase, m.to_act) == ("draw", 0)


def test_first_turn_free_non_dealer_starts_a_normal_turn():
    m = start(LOOSE, KNOCKER, "9C", dealer=0, first_turn="free")
    assert (m.phase, m.to_act) == ("draw", 1)
    assert gin.legal_actions(m) == [STOCK, PILE]
    with pytest.raises(IllegalAction, match="only for the first-turn offer"):
        gin.apply_action(m, 1, PASS)


def test_draw_only_one_card_per_turn():
    m = play(start(LOOSE, KNOCKER, "9C", dealer=0, first_turn="free"), (1, STOCK))
    with pytest.raises(IllegalAction, match="drawn already"):
        gin.apply_action(m, 1, STOCK)


def test_out_of_turn_is_refused():
    m = start(LOOSE, KNOCKER, "9C", dealer=0)
    with pytest.raises(IllegalAction, match="seat 1's turn, not seat 0's"):
        gin.apply_action(m, 0, PASS)


def test_card_just_taken_from_the_pile_cannot_be_discarded():
    m = play(start(LOOSE, KNOCKER, "9C", dealer=0), (1, PILE))
    with pytest.raises(IllegalAction, match="just taken from the discard pile"):
        gin.apply_action(m, 1, discard("9C"))
    assert {"action": "discard", "card": "9C"} not in gin.legal_actions(m)


def test_card_just_taken_from_the_pile_cannot_be_knocked_with():
    # Seat 1 takes the 2C upcard; knocking with 2C would leave deadwood 1, but that card must stay.
    m = play(start(LOOSE, KNOCKER, "2C", dealer=0), (1, PILE))
    with pytest.raises(IllegalAction, match="just taken from the discard pile"):
        gin.apply_action(m, 1, knock("2C"))
    assert knock("AC") in gin.legal_actions(m)  # knocking with another card is fine (deadwood 2)


def test_card_drawn_from_stock_may_be_discarded_at_once():
    m = play(both_pass_then(start(LOOSE, KNOCKER, "9C", "JH", dealer=0)), (1, STOCK), (1, discard("JH")))
    assert m.round.discard[-1] == gin.ALL_CARDS.index("JH")


def test_knock_on_the_very_first_turn_is_allowed():
    m = play(start(LOOSE, KNOCKER, "2C", dealer=0), (1, PILE), (1, knock("AC")))
    s = m.round.summary
    assert (s["result"], s["knocker"], s["deadwood"][1]) == ("knock", 1, 2)


def test_knock_above_the_limit_is_refused_and_the_turn_goes_on():
    loose_knocker = "4H 5H 6H KC KD KS QC QD 2S AC"  # after drawing JH: best discard leaves 13
    m = play(both_pass_then(start(LOOSE, loose_knocker, "9C", "JH", dealer=0)), (1, STOCK))
    with pytest.raises(IllegalAction, match="knock limit is 10"):
        gin.apply_action(m, 1, knock("JH"))
    assert (m.phase, m.to_act) == ("discard", 1)
    m = gin.apply_action(m, 1, discard("JH"))
    assert m.to_act == 0


def test_knock_with_deadwood_zero_is_gin():
    gin_hand = "4H 5H 6H KC KD KS QC QD QS 7H"
    m = play(both_pass_then(start("8H 2D TC TD TH 3S 4S 5S 9D AD", gin_hand, "9C", "JH", dealer=0)),
             (1, STOCK), (1, knock("JH")))
    s = m.round.summary
    assert s["result"] == "gin" and s["points"] == (2 + 9 + 1 + 8) + 25  # no lay-off of 8H against gin
    assert s["layoffs"] == []


def test_big_gin_only_with_the_option():
    eleven = "4H 5H 6H KC KD KS QC QD QS 7H"
    m = both_pass_then(start("2C 2D TC TD TH 3S 4S 5S 9D AD", eleven, "9C", "8H", dealer=0))
    m = play(m, (1, STOCK))
    with pytest.raises(IllegalAction, match="big gin is not played"):
        gin.apply_action(m, 1, {"action": "big_gin"})


def test_big_gin_ends_the_round_without_a_discard_for_31():
    eleven = "4H 5H 6H KC KD KS QC QD QS 7H"
    m = both_pass_then(start("2C 2D TC TD TH 3S 4S 5S 9D AD", eleven, "9C", "8H", dealer=0, big_gin=True))
    m = play(m, (1, STOCK), (1, {"action": "big_gin"}))
    s = m.round.summary
    assert (s["result"], s["winner"], s["points"], s["discard"]) == ("big_gin", 1, 2 + 2 + 9 + 1 + 31, None)
    assert len(s["hands"][1]) == 11


def test_big_gin_needs_all_eleven_cards_melded():
    m = both_pass_then(start(LOOSE, KNOCKER, "9C", "JS", dealer=0, big_gin=True))
    m = play(m, (1, STOCK))
    with pytest.raises(IllegalAction, match="all 11 cards melded"):
        gin.apply_action(m, 1, {"action": "big_gin"})


def _stock_draws(m: gin.Match, count: int) -> gin.Match:
    """Both players draw from the stock and throw the card back, ``count`` draws in all."""
    for _ in range(count):
        seat = m.to_act
        m = gin.apply_action(m, seat, STOCK)
        m = gin.apply_action(m, seat, discard(gin.ALL_CARDS[m.round.stock[m.round.stock_pos - 1]]))
    return m


def test_dead_round_when_a_plain_discard_leaves_two_cards_in_the_stock():
    m = start(LOOSE, "4H 5H 6H KC KD KS QC QD 2S 9S", "9C", dealer=0, first_turn="free")
    m = _stock_draws(m, 28)
    assert m.round.stock_size == 3 and m.phase == "draw"
    m = _stock_draws(m, 1)
    s = m.round.summary
    assert (m.phase, s["result"], s["winner"], s["knocker"], s["deadwood"], s["points"]) == (
        "round_over", "dead", None, None, None, 0)
    assert m.totals == (0, 0) and m.boxes == (0, 0)


def test_dead_round_the_third_to_last_card_may_still_be_knocked_with():
    m = start(LOOSE, KNOCKER, "9C", dealer=0, first_turn="free")
    m = _stock_draws(m, 28)
    seat = m.to_act
    assert seat == 1
    m = gin.apply_action(m, 1, STOCK)
    assert m.round.stock_size == 2
    drawn = gin.ALL_CARDS[m.round.stock[m.round.stock_pos - 1]]
    m = gin.apply_action(m, 1, knock(drawn))
    assert m.round.summary["result"] in ("knock", "undercut")


def test_dead_round_after_200_draws():
    # Both players keep taking the other's discard: the stock never shrinks, the draw cap ends it.
    m = start(LOOSE, KNOCKER, "9C", dealer=0, first_turn="free")
    while m.phase != "round_over":
        seat = m.to_act
        m = gin.apply_action(m, seat, PILE)
        if m.round.draws < 200:
            keep = [a for a in gin.legal_actions(m) if a["action"] == "discard"]
            m = gin.apply_action(m, seat, keep[0])
            assert m.phase == "draw"
        else:
            m = gin.apply_action(m, seat, [a for a in gin.legal_actions(m) if a["action"] == "discard"][0])
    assert m.round.draws == 200
    assert m.round.summary["result"] == "dead" and m.round.summary["reason"] == "draw_cap"


def test_same_dealer_deals_again_after_a_dead_round():
    m = _stock_draws(start(LOOSE, "4H 5H 6H KC KD KS QC QD 2S 9S", "9C", dealer=0, first_turn="free"), 29)
    assert gin.next_dealer(m) == 0
    m2 = gin.deal_next_round(m, random.Random(3))
    assert (m2.round_number, m2.dealer, m2.to_act) == (2, 0, 1)


@pytest.mark.parametrize("rule, dealer_after", [("winner", 1), ("loser", 0), ("alternate", 1)])
def test_next_dealer_option_after_a_knock_won_by_the_non_dealer(rule, dealer_after):
    m = start(LOOSE, KNOCKER, "9C", "JH", dealer=0, next_dealer=rule)
    m = play(both_pass_then(m), (1, STOCK), (1, knock("JH")))
    assert m.round.summary["winner"] == 1
    assert gin.deal_next_round(m, random.Random(1)).dealer == dealer_after


@pytest.mark.parametrize("rule, dealer_after", [("winner", 1), ("loser", 0), ("alternate", 0)])
def test_next_dealer_option_when_the_dealer_loses_by_undercut(rule, dealer_after):
    # Seat 1 deals; seat 0 knocks with 8 and is undercut by seat 1's 8 (a tie): seat 1 wins the round.
    m = start("AH 2H 3H 9C 9D 9S KC KD KS 8D", "2S 6S QC QD QH 4C 5C 6C 7C 8C", "TH", "JH", dealer=1,
              next_dealer=rule)
    m = play(both_pass_then(m), (0, STOCK), (0, knock("JH")))
    assert m.round.summary["result"] == "undercut" and m.round.summary["winner"] == 1
    assert gin.deal_next_round(m, random.Random(1)).dealer == dealer_after


def test_deal_next_round_refused_while_the_round_is_played():
    with pytest.raises(IllegalAction, match="still being played"):
        gin.deal_next_round(start(LOOSE, KNOCKER, "9C"), random.Random(1))


def test_refused_action_changes_nothing():
    m = start(LOOSE, KNOCKER, "9C", dealer=0)
    before = m.to_json()
    for bad in (STOCK, discard("AC"), {"action": "fly"}, {"action": "draw", "from": "sky"}, "pass",
                {"action": "discard", "card": "ZZ"}, {"action": "pass", "extra": 1}):
        with pytest.raises(IllegalAction):
            gin.apply_action(m, 1, bad)
    assert m.to_json() == before


def test_apply_action_returns_a_new_match_and_leaves_the_old_one():
    m = start(LOOSE, KNOCKER, "9C", dealer=0)
    m2 = gin.apply_action(m, 1, PILE)
    assert m.phase == "first_turn" and m2.phase == "discard"
    assert m.round.hands != m2.round.hands


def test_a_card_not_in_hand_cannot_be_discarded():
    m = play(start(LOOSE, KNOCKER, "9C", dealer=0), (1, PILE))
    with pytest.raises(IllegalAction, match="not in your hand"):
        gin.apply_action(m, 1, discard("2D"))


# ---------------------------------------------------------------------------------------------- variants


def test_oklahoma_upcard_sets_the_knock_limit():
    # Upcard 3C: the limit is 3. Seat 1 with deadwood 1 may knock; with 4 it may not.
    m = start(LOOSE, KNOCKER, "3C", "JH", dealer=0, variant="oklahoma")
    assert m.knock_limit() == 3
    m = play(both_pass_then(m), (1, STOCK), (1, knock("JH")))
    assert m.round.summary["result"] == "knock" and m.round.summary["knock_limit"] == 3
    m = start(LOOSE, "4H 5H 6H KC KD KS QC QD QS 4C", "3C", "JH", dealer=0, variant="oklahoma")
    m = play(both_pass_then(m), (1, STOCK))
    with pytest.raises(IllegalAction, match="knock limit is 3"):
        gin.apply_action(m, 1, knock("JH"))


def test_oklahoma_face_card_upcard_means_limit_ten():
    assert start(LOOSE, KNOCKER, "JC", variant="oklahoma").knock_limit() == 10
    assert start(LOOSE, KNOCKER, "TS", variant="oklahoma").knock_limit() == 10
    assert start(LOOSE, KNOCKER, "9C", variant="oklahoma").knock_limit() == 9


def test_oklahoma_ace_upcard_means_gin_only():
    m = start(LOOSE, KNOCKER, "AD", "JH", dealer=0, variant="oklahoma")
    m = play(both_pass_then(m), (1, STOCK))
    with pytest.raises(IllegalAction, match="ace .*only gin"):
        gin.apply_action(m, 1, knock("JH"))  # deadwood 1 is not gin


def test_oklahoma_spade_upcard_doubles_deadwood_points_not_bonuses():
    # Upcard 9S: limit 9, doubled. Knock: 2 x (11 - 1) = 20.
    m = start(LOOSE, KNOCKER, "9S", "JH", dealer=0, variant="oklahoma")
    m = play(both_pass_then(m), (1, STOCK), (1, knock("JH")))
    assert (m.round.summary["points"], m.round.summary["doubled"]) == (20, True)
    # Gin with a spade upcard: 2 x 20 + 25.
    m = start("8H 2D TC TD TH 3S 4S 5S 9D AD", "4H 5H 6H KC KD KS QC QD QS 7H", "9S", "JH", dealer=0,
              variant="oklahoma")
    m = play(both_pass_then(m), (1, STOCK), (1, knock("JH")))
    assert m.round.summary["points"] == 2 * 20 + 25


def test_oklahoma_spade_undercut_doubles_the_difference_not_the_bonus():
    m = start("AH 2H 3H 9C 9D 9S KC KD KS 8D", "2S 4S QC QD QH 4C 5C 6C 7C 8C", "TS", "JH", dealer=1,
              variant="oklahoma")
    m = play(both_pass_then(m), (0, STOCK), (0, knock("JH")))
    assert m.round.summary["result"] == "undercut" and m.round.summary["points"] == 2 * (8 - 6) + 25


def test_straight_gin_no_knocking_only_gin():
    m = start(LOOSE, KNOCKER, "9C", "JH", dealer=0, variant="straight")
    m = play(both_pass_then(m), (1, STOCK))
    assert not [a for a in gin.legal_actions(m) if a["action"] == "knock"]
    with pytest.raises(IllegalAction, match="Straight Gin"):
        gin.apply_action(m, 1, knock("JH"))
    m = start("8H 2D TC TD TH 3S 4S 5S 9D AD", "4H 5H 6H KC KD KS QC QD QS 7H", "9C", "JH", dealer=0,
              variant="straight")
    m = play(both_pass_then(m), (1, STOCK), (1, knock("JH")))
    assert m.round.summary["result"] == "gin"


# ---------------------------------------------------------------------------------------------- timeouts


def test_timeout_on_the_first_turn_offer_passes():
    m = start(LOOSE, KNOCKER, "9C", dealer=0)
    assert gin.timeout_actions(m) == [PASS]
    m = play(m, (1, PASS))
    assert gin.timeout_actions(m) == [PASS]


def test_timeout_draws_from_stock_and_discards_the_card_leaving_least_deadwood():
    m = both_pass_then(start(LOOSE, "4H 5H 6H KC KD KS QC QD 2S 9S", "9C", "JH", dealer=0))
    assert gin.timeout_actions(m) == [STOCK, discard("JH")]


def test_timeout_never_discards_the_card_just_taken_from_the_pile():
    # Seat 1 took 9C: throwing it back would leave the least (13), but it must stay; of the two queens
    # (12 left either way) the server throws QD.
    m = play(start(LOOSE, "4H 5H 6H KC KD KS QC QD 2S AS", "9C", dealer=0), (1, PILE))
    assert gin.timeout_actions(m) == [discard("QD")]


def test_timeout_never_knocks_even_with_gin_in_hand():
    m = both_pass_then(start("8H 2D TC TD TH 3S 4S 5S 9D AD", "4H 5H 6H KC KD KS QC QD QS 7H", "9C", "JH",
                             dealer=0))
    assert gin.timeout_actions(m) == [STOCK, discard("JH")]
    m = play(m, *[(1, a) for a in gin.timeout_actions(m)])
    assert m.phase == "draw" and m.to_act == 0
