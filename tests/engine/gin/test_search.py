"""The expert's look-ahead (``games.engine.gin.search``): the hidden cards are dealt consistently with what the
seat saw, every legal action can be valued, and the values depend on the view, the rng and the budget alone."""

from __future__ import annotations

import dataclasses
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.gin import match as gin
from games.engine.gin.bots import choose_action
from games.engine.gin.melds import BIT, deadwood_of, mask_of
from games.engine.gin.search import action_values, determinise, knowledge_of, match_value
from tests.engine.gin.helpers import PASS, PILE, STOCK, both_pass_then, discard, play, start
from tests.engine.gin.test_bots_view import positions, with_hidden_cards_redealt


def test_the_opponent_is_dealt_the_cards_it_took_from_the_pile_and_kept():
    # Seat 1 takes the upcard 5H and throws KD; seat 0 throws 9C, seat 1 takes it and throws QS.
    m = start("2C 3C 4D 7D 8S 9S JH QH KH 9C", "5C 5D KD QS 2S 3S 4S TH TC TD", "5H", dealer=0)
    m = play(m, (1, PILE), (1, discard("KD")), (0, STOCK), (0, discard("9C")), (1, PILE), (1, discard("QS")))
    view = gin.view(m, 0)
    knowledge = knowledge_of(view)
    assert knowledge.opp_known == mask_of(["5H", "9C"])
    for seed in range(20):
        deal = determinise(knowledge, view["phase"], random.Random(seed))
        opponent = deal.hands[1]
        assert opponent & mask_of(["5H", "9C"]) == mask_of(["5H", "9C"])
        assert opponent.bit_count() == 10
        assert not opponent & mask_of(view["hand"])
        assert not opponent & mask_of(["KD", "QS"])  # in the pile
        assert len(deal.stock) == view["stock_size"]


def test_cards_near_what_the_opponent_threw_away_are_dealt_to_it_less_often():
    m = start("2C 3C 4D 7D 8S 9S JH QH KH 9C", "5C 5D KD QS 2S 3S 4S TH TC TD", "AH", dealer=0)
    m = play(m, (1, PILE), (1, discard("KD")), (0, STOCK), (0, discard("9C")), (1, STOCK), (1, discard("QS")))
    knowledge = knowledge_of(gin.view(m, 0))
    weight = dict(zip(knowledge.unseen, knowledge.weights, strict=True))
    assert weight[mask_of(["KC"]).bit_length() - 1] < weight[mask_of(["6C"]).bit_length() - 1]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), picks=st.integers(0, 30))
def test_every_deal_places_each_card_once_and_keeps_what_the_seat_sees(seed, picks):
    m = positions(seed=seed % 10_000, count=picks + 1)[-1]
    view = gin.view(m, m.to_act)
    knowledge = knowledge_of(view)
    deal = determinise(knowledge, view["phase"], random.Random(seed))
    me = view["seat"]
    assert deal.hands[me] == mask_of(view["hand"])
    everything = deal.hands[0] | deal.hands[1]
    for card in [*deal.stock, *deal.pile]:
        assert not everything & BIT[card]
        everything |= BIT[card]
    assert everything == (1 << 52) - 1
    assert deal.hands[1 - me].bit_count() == view["hand_counts"][1 - me]


def test_every_legal_action_gets_a_value_over_the_same_number_of_deals():
    m = play(both_pass_then(start("8H 2D TC TD TH 3S 4S 5S 9D AD", "4H 5H 6H KC KD KS QC QD 2C 7H", "9C", "JH",
                                  dealer=0)), (1, STOCK))
    view = gin.view(m, 1)
    values = action_values(view, random.Random(2), iterations=6, actions=view["legal_actions"])
    assert sorted(map(str, (v.action for v in values))) == sorted(map(str, view["legal_actions"]))
    assert all(v.samples == 6 for v in values)
    assert [v.value for v in values] == sorted((v.value for v in values), reverse=True)


def test_a_gin_knock_is_worth_its_bonus_and_the_opponents_deadwood_at_least():
    m = play(both_pass_then(start("8H 2D TC TD TH 3S 4S 5S 9D AD", "4H 5H 6H KC KD KS QC QD QS 7H", "9C", "JH",
                                  dealer=0)), (1, STOCK))
    view = gin.view(m, 1)
    gin_knock = {"action": "knock", "card": "JH"}
    values = {str(v.action): v for v in action_values(view, random.Random(2), iterations=8,
                                                      actions=[gin_knock, discard("JH")])}
    assert min(values[str(gin_knock)].results) >= 25
    assert values[str(gin_knock)].value > values[str(discard("JH"))].value


def test_a_stop_that_says_so_ends_the_search_after_one_deal():
    m = positions(seed=3, count=1)[0]  # the first-turn offer: pass or take
    values = action_values(gin.view(m, m.to_act), random.Random(1), iterations=50, stop=lambda: True)
    assert len(values) == 2 and {v.samples for v in values} == {1}


def test_the_values_are_the_same_whatever_the_hidden_cards_are():
    redeal = random.Random(8)
    for m in positions(seed=21, count=12):
        view = gin.view(m, m.to_act)
        other = with_hidden_cards_redealt(m, redeal)
        legal = view["legal_actions"]
        first = action_values(view, random.Random(5), iterations=4, actions=legal)
        again = action_values(gin.view(other, other.to_act), random.Random(5), iterations=4, actions=legal)
        assert [(v.action, v.results) for v in first] == [(v.action, v.results) for v in again]


def _knock_for_eight(totals: tuple[int, int]) -> dict:
    """Seat 0 to discard with 3C-6C and three sevens melded, 2D AS 5H loose and KS just drawn: it may knock
    with 8 (discarding KS) long before the stock runs low, at the match score ``totals``."""
    m = start("3C 4C 5C 6C 7H 7D 7S 2D AS 5H", "2H 6S 8C TD JC QD KH 4S 9S JD", "8D", "9H KS", dealer=0,
              target=100)
    m = play(m, (1, PASS), (0, PASS), (1, STOCK), (1, discard("KH")), (0, STOCK))
    return gin.view(dataclasses.replace(m, totals=totals), 0)


def test_the_match_value_of_a_round_is_the_chance_of_winning_the_match_after_it():
    view = _knock_for_eight((95, 60))
    worth = match_value(view)
    assert worth is not None
    assert worth(5) == worth(40) == 100.0  # either reaches the target
    assert worth(-40) == 0.0  # so does the opponent
    assert 50 < worth(0) < 100 and worth(-10) < worth(0) < worth(1)
    assert match_value(gin.view(positions(seed=3, count=1)[0], 0)) is None  # one round decides: round points


def test_a_knock_that_wins_the_match_on_every_deal_is_worth_all_of_it_and_the_expert_takes_it():
    # At 95 to 95 any scored round decides the match: the knock with 8 wins it on every deal dealt (the
    # opponent holds high cards, no undercut), while discarding lets the opponent knock first on some.
    view = _knock_for_eight((95, 95))
    knock_ks = {"action": "knock", "card": "KS"}
    values = action_values(view, random.Random(1), iterations=32, match=True)
    assert values[0].action == knock_ks and set(values[0].results) == {100.0}
    assert all(v.value < 100 for v in values[1:])
    assert knowledge_of(view).opp_draws == 1  # its one draw replayed on the dealt hand: still a random hand
    # Round points alone do not see the score: the same values at 95 to 95 as at 0 to 0.
    plain = [(v.action, v.results) for v in action_values(view, random.Random(1), iterations=32)]
    assert plain == [(v.action, v.results) for v in action_values(_knock_for_eight((0, 0)), random.Random(1),
                                                                  iterations=32)]
    assert choose_action(view, "expert", random.Random(1)) == knock_ks


def test_the_playouts_knock_for_the_searching_seat_as_the_experts_heuristic_does():
    from games.engine.gin import bots, search

    assert search.PLAYOUT_KNOCK[0] == bots.EXPERT_KNOCK
    assert search.PLAYOUT_KNOCK[1] == ((10, 31),)  # the opponent: at once


def test_the_opponents_draws_from_the_stock_are_replayed_on_the_hand_dealt_to_it(monkeypatch):
    # Seat 1 drew three times from the stock (and took 7C from the pile): a hand it kept the best of, with less
    # deadwood than ten cards dealt at random.
    from games.engine.gin import search
    from tests.engine.gin.test_bots import _eight_deadwood_early

    view = gin.view(_eight_deadwood_early(), 0)
    knowledge = knowledge_of(view)
    assert knowledge.opp_draws == 3

    def mean_deadwood() -> float:
        deals = [determinise(knowledge, view["phase"], random.Random(seed)) for seed in range(200)]
        assert all(deal.hands[1] & mask_of(["7C"]) for deal in deals)  # the card it took stays
        return sum(deadwood_of(deal.hands[1]) for deal in deals) / len(deals)

    replayed = mean_deadwood()
    monkeypatch.setattr(search, "REPLAY_DRAWS", 0)
    assert replayed < mean_deadwood() - 8
