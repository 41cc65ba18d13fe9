"""Computer players: they act from their own view only, and do what their level promises."""

from __future__ import annotations

import random

import pytest

from games.engine.romme import bots
from games.engine.romme import match as romme
from games.engine.romme.bots import choose_action
from games.engine.romme.round import DISCARD
from tests.engine.romme.helpers import position


def view_of(r, options=None):
    """A match around a prepared round, and the view of the seat to act."""
    m = romme.new_match(options or {"seats": r.seats}, rng=random.Random(1))
    m.round = r
    return m, romme.view(m, r.to_act)


@pytest.mark.parametrize("level", ["simple", "advanced", "expert"])
def test_bot_opens_as_soon_as_it_can(level):
    r = position(["TH JH QH 5C 5S 5D 2D 9S KC 3C 8D 4S 6H", "2S 3S 4D"], drawn="7C")
    m, v = view_of(r)
    action = choose_action(v, level, random.Random(1))
    assert action["action"] == "lay"
    romme.apply_action(m, 0, action, rng=random.Random(2))


@pytest.mark.parametrize("level", ["simple", "advanced", "expert"])
def test_bot_lays_off_what_it_can(level):
    r = position(["8H KC", "2S 3S 4D"], drawn="2D", melds=((1, "5H 6H 7H"),), opened=(0,))
    m, v = view_of(r)
    assert choose_action(v, level, random.Random(1)) == {"action": "lay_off", "card": "8H", "meld": 1}


def test_simple_discards_its_highest_card_in_no_meld_when_it_does_not_slip(monkeypatch):
    monkeypatch.setitem(bots.SLIPS, "simple", 0.0)
    r = position(["7C 7S 7D 2H 9S 4D", "2S 3S 4D"], drawn="KD")
    m, v = view_of(r)
    assert choose_action(v, "simple", random.Random(1)) == {"action": "discard", "card": "KD"}


@pytest.mark.parametrize("level", ["simple", "advanced"])
def test_a_lower_level_slips_its_share_of_discards_to_a_random_card_in_no_meld_never_a_joker(level, monkeypatch):
    # 7C 7S 7D is a meld; 2H 9S 4D KD are loose; the joker is in no meld here but a slip never throws it.
    r = position(["7C 7S 7D 2H 9S 4D JK", "2S 3S 4D"], drawn="KD")
    m, v = view_of(r)
    share = bots.SLIPS[level]
    assert share > 0
    cards = [choose_action(v, level, random.Random(seed))["card"] for seed in range(3000)]
    monkeypatch.setitem(bots.SLIPS, level, 0.0)
    heuristic = choose_action(v, level, random.Random(1))["card"]
    assert set(cards) <= {"2H", "9S", "4D", "KD"}
    other = sum(card != heuristic for card in cards) / len(cards)
    assert abs(other - share * 3 / 4) < 0.03, (other, share, heuristic)


def test_the_levels_slip_less_the_higher_they_are_and_the_expert_never():
    assert bots.SLIPS["simple"] > bots.SLIPS["advanced"] > bots.SLIPS["expert"] == 0


@pytest.mark.parametrize("level", ["simple", "advanced", "expert"])
def test_bot_goes_out_when_it_can(level):
    r = position(["2H 3H 4H 5C 5S 5D", "KS QS 2S"], drawn="9C")
    m, v = view_of(r)
    m = romme.apply_action(m, 0, choose_action(v, level, random.Random(1)), rng=random.Random(2))
    m = romme.apply_action(m, 0, choose_action(romme.view(m, 0), level, random.Random(1)), rng=random.Random(2))
    assert m.round.result["winner"] == 0 and m.round.result["hand_romme"]


def test_bot_never_discards_a_joker_it_may_not():
    r = position(["JK 5C", "2S 3S 4D"], drawn="9D")
    m, v = view_of(r)
    assert choose_action(v, "expert", random.Random(1))["card"] != "JK"


def test_bot_needs_a_view_where_it_is_to_act():
    m = romme.new_match({}, rng=random.Random(2))
    other = (m.to_act + 1) % 4
    with pytest.raises(ValueError, match="nothing to do"):
        choose_action(romme.view(m, other), "simple", random.Random(1))
    with pytest.raises(ValueError, match="level"):
        choose_action(romme.view(m, m.to_act), "genius", random.Random(1))


def test_bot_draws_the_open_card_only_when_it_helps():
    r = position(["7C 7S 2H 9S 4D KH", "2S 3S 4D"], upcard="7D")
    r.phase = "draw"
    m, v = view_of(r)
    assert choose_action(v, "simple", random.Random(1)) == {"action": "draw", "from": "discard"}
    r2 = position(["7C 7S 2H 9S 4D KH", "2S 3S 4D"], upcard="QD")
    m2, v2 = view_of(r2)
    assert choose_action(v2, "simple", random.Random(1)) == {"action": "draw", "from": "stock"}
    assert m.round.phase != DISCARD


@pytest.mark.parametrize("level", ["simple", "advanced", "expert"])
def test_bot_does_not_take_again_an_open_card_taken_before_in_the_round(level):
    # The 7D would help (7C 7S 7D), but seat 1 took it from the pile and put it straight back: taken again, it
    # could go to and fro for ever (the rules allow putting the open card straight back). The stock instead.
    r = position(["7C 7S 2H 9S 4D KH", "2S 3S 4D"], upcard="7D")
    r.moves = [{"seat": 1, "action": "draw", "from": "discard"}, {"seat": 1, "action": "discard", "card": "7D"}]
    m, v = view_of(r)
    assert v["history"][0] == {"seat": 1, "action": "draw", "from": "discard", "card": "7D"}
    assert choose_action(v, level, random.Random(1)) == {"action": "draw", "from": "stock"}
    fresh = position(["7C 7S 2H 9S 4D KH", "2S 3S 4D"], upcard="7D")
    assert choose_action(view_of(fresh)[1], level, random.Random(1)) == {"action": "draw", "from": "discard"}


@pytest.mark.parametrize(("level", "seed"), [("expert", 10), ("simple", 19)])
def test_two_bots_do_not_pass_one_card_to_and_fro_for_ever(level, seed):
    # Two seats that each took the open card and put it straight back, turn after turn (the ace of diamonds for
    # the experts, the joker for the simple ones): the list never ended, nor would a table of computer players.
    rng = random.Random(seed)
    m = romme.new_match({"rounds": 1, "tournament": seed % 2 == 1}, seats=2, rng=rng)
    for _ in range(2000):
        if m.over:
            break
        m = romme.apply_action(m, m.to_act, choose_action(romme.view(m, m.to_act), level, rng), rng=rng)
    assert m.over


def test_expert_counts_as_unseen_only_what_it_has_not_seen():
    """Unseen cards: the 110 less the seat's hand, the melds on the table and the discard pile it saw built."""
    from collections import Counter

    from games.engine.cards import romme_deck
    from games.engine.romme.bots import unseen_cards

    rng = random.Random(12)
    m = romme.new_match({}, rng=rng)
    for _ in range(40):
        m = romme.apply_action(m, m.to_act, choose_action(romme.view(m, m.to_act), "simple", rng), rng=rng)
    view = romme.view(m, m.to_act)
    r = m.round
    expected = (Counter(romme_deck()) - Counter(view["hand"]) - Counter(c for t in view["melds"] for c in t["cards"])
                - Counter(r.discard_pile))
    unseen = unseen_cards(view)
    assert r.discard_pile and len(r.stock) < 110 - 4 * 13 - 1  # the pile and the table are not empty
    assert not expected - unseen  # every unseen card is counted
    assert unseen - expected <= Counter({r.deal["upcard"]: 1})  # at most the covered upcard is counted too


def test_expert_counts_the_live_outs_of_a_loose_card():
    """A card's outs: the unseen cards that make a three-card meld with it and one more card of the hand."""
    from collections import Counter

    from games.engine.romme.bots import _outs

    unseen = Counter({"7C": 2, "7D": 1, "6H": 2, "9H": 1, "JK": 1, "KS": 2})
    assert _outs("7H", ["7H", "7S", "2C"], unseen) == 2 + 1 + 1  # 7C, 7D and a joker for the set
    assert _outs("7H", ["7H", "8H", "2C"], unseen) == 2 + 1 + 1  # 6H, 9H and a joker for the run
    assert _outs("2C", ["7H", "8H", "2C"], unseen) == 0  # nothing to make a meld with
    assert _outs("KH", ["KH", "QH"], unseen) == 1  # J H is gone, A H unseen nowhere: the joker only


def test_expert_looks_ahead_for_the_discard_that_best_opens_with_the_next_card():
    """Before opening, of its best discards the expert keeps the cards that the most unseen cards complete."""
    from collections import Counter

    from games.engine.romme.bots import _look_ahead

    hand = ["KC", "KS", "KH", "QH", "JH", "9C", "9S", "3D", "2C"]  # 30 + 30 laid: an open 9C 9S needs a 9
    view = {"seat": 0, "opened": [False, False], "options": {"opening_points": 40}, "melds": []}
    unseen = Counter({"9D": 2, "9H": 2, "4D": 1, "5C": 1})
    # The heuristic would drop a 9 first: keeping both 9s opens with any of the four unseen 9s.
    assert _look_ahead(view, hand, ["9C", "3D", "2C"], unseen) in ("3D", "2C")
    # Nothing unseen completes anything: no reason to leave the heuristic's choice.
    assert _look_ahead(view, hand, ["9C", "3D", "2C"], Counter({"5C": 3})) is None


def test_expert_takes_the_open_card_when_it_can_lay_it_off_this_turn():
    """A card that fits a meld on the table is shed for sure once the seat has opened (or opens with it)."""
    opened = position(["KC 2S 9D", "2S 3S 4D"], upcard="8H", melds=((1, "5H 6H 7H"),), opened=(0,))
    m, v = view_of(opened)
    assert choose_action(v, "expert", random.Random(1)) == {"action": "draw", "from": "discard"}
    assert choose_action(v, "simple", random.Random(1)) == {"action": "draw", "from": "stock"}  # in no meld of its hand
    # Not opened: the card fits the table, but the seat cannot open this turn, so it cannot lay it off.
    closed = position(["KC 2S 9D 4C", "2S 3S 4D"], upcard="8H", melds=((1, "5H 6H 7H"),))
    m, v = view_of(closed)
    assert choose_action(v, "expert", random.Random(1)) == {"action": "draw", "from": "stock"}
    # Not opened, but the hand opens (40 in the hearts and the kings): the card is laid off with the opening.
    opening = position(["TD JD QD KC KS KH 2S 9D", "2S 3S 4D"], upcard="8H", melds=((1, "5H 6H 7H"),))
    m, v = view_of(opening)
    assert choose_action(v, "expert", random.Random(1)) == {"action": "draw", "from": "discard"}


def test_expert_swaps_a_joker_off_the_table_when_it_makes_a_new_meld_with_the_hand():
    """The joker of 7D 8D JK TD stands for the 9D of the hand: swapped, it lays 5H 5C JK, shedding three cards."""
    r = position(["5H 5C 9D KS", "2S 3S 4D"], drawn="2D", melds=((1, "7D 8D JK TD"),), opened=(0,))
    m, v = view_of(r)
    action = choose_action(v, "expert", random.Random(1))
    assert action["action"] == "swap" and action["card"] == "9D" and action["then"]["action"] == "lay"
    m = romme.apply_action(m, 0, action, rng=random.Random(2))
    assert sorted(m.round.hands[0]) == ["2D", "KS"]
    assert [list(t.meld.cards) for t in m.round.melds] == [["7D", "8D", "9D", "TD"], ["5C", "5H", "JK"]]
    # Nothing for the joker to make a meld with: at most the plain swap that lays the joker off again.
    r = position(["5H 4C 9D KS", "2S 3S 4D"], drawn="2D", melds=((1, "7D 8D JK TD"),), opened=(0,))
    m, v = view_of(r)
    assert choose_action(v, "expert", random.Random(1)).get("then", {}).get("action") != "lay"


def test_expert_swaps_a_joker_off_the_table_into_its_opening():
    """30 in queens is short of 40; the 9D swapped for the joker of 7D 8D JK TD makes KC KS JK: 60, it opens."""
    r = position(["KC KS QH QS QD 2S 9D", "2S 3S 4D"], drawn="3C", melds=((1, "7D 8D JK TD"),))
    m, v = view_of(r)
    action = choose_action(v, "expert", random.Random(1))
    assert action["action"] == "swap" and action["card"] == "9D" and action["then"]["action"] == "lay"
    m = romme.apply_action(m, 0, action, rng=random.Random(2))
    assert m.round.opened[0] and sorted(m.round.hands[0]) == ["2S", "3C"]
    assert list(m.round.melds[0].meld.cards) == ["7D", "8D", "9D", "TD"]


def test_expert_takes_the_open_card_it_can_swap_for_a_joker_of_the_table():
    r = position(["KC 2S 5H", "2S 3S 4D"], upcard="9D", melds=((1, "7D 8D JK TD"),), opened=(0,))
    m, v = view_of(r)
    assert choose_action(v, "expert", random.Random(1)) == {"action": "draw", "from": "discard"}


def test_expert_keeps_the_card_a_joker_of_the_table_stands_for():
    """KD is worth more Augen than 9S, but the joker of JD QD JK AD stands for it: a joker to come, kept."""
    r = position(["2C 3C 4C KD", "2S 3S 4D"], drawn="9S", melds=((1, "JD QD JK AD"),))
    m, v = view_of(r)
    assert choose_action(v, "expert", random.Random(1)) == {"action": "discard", "card": "9S"}
    r = position(["2C 3C 4C KD", "2S 3S 4D"], drawn="9S", melds=((1, "JD QD KD AD"),))
    m, v = view_of(r)
    assert choose_action(v, "expert", random.Random(1)) == {"action": "discard", "card": "KD"}
