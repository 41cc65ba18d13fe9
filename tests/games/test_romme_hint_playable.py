"""A Rommé hint (the Tipp button) and the post-match analysis name the expert's move; the table page plays a move
from the seat's legal actions (its lay-off and swap buttons) or a lay from its meld builder. So the expert's swap
of a joker off the table into a new meld, or into its opening, must be among the legal actions the seat's view
carries, and the engine must accept it: positions written out card by card."""

from __future__ import annotations

import random

import pytest

from games import registry, thinking
from games.engine.errors import IllegalAction
from games.engine.romme import analysis
from tests.engine.romme.helpers import position

#: (hands, position keywords, the melds the swap's joker lays): seat 0 has drawn and is to lay or discard.
SWAPS_INTO_NEW_MELDS = {
    # Opened: the joker of 7D 8D JK TD stands for the 9D of the hand; freed, it makes 5C 5H JK.
    "opened": (["5H 5C 9D KS", "2S 3S 4D"], {"drawn": "2D", "melds": ((1, "7D 8D JK TD"),), "opened": (0,)},
               [["5C", "5H", "JK"]]),
    # Not opened: 30 in queens is short of 40; the joker freed by the 9D makes KC KS JK: 60, the opening.
    "opening": (["KC KS QH QS QD 2S 9D", "2S 3S 4D"], {"drawn": "3C", "melds": ((1, "7D 8D JK TD"),)},
                [["QD", "QH", "QS"], ["KC", "KS", "JK"]]),
}


def seat_view(hands, kwargs):
    entry = registry.get("romme")
    r = position(hands, **kwargs)
    m = entry.engine.new_match({"seats": r.seats}, rng=random.Random(1))
    m.round = r
    return entry, m, entry.view(m, 0)


@pytest.mark.parametrize("case", sorted(SWAPS_INTO_NEW_MELDS))
def test_the_hints_swap_into_new_melds_is_a_legal_action_the_page_can_send(case):
    hands, kwargs, melds = SWAPS_INTO_NEW_MELDS[case]
    entry, m, view = seat_view(hands, kwargs)
    # The hint's own path: the entry's bots module searched in the worker (here in this process, a long budget).
    hint = thinking.think(entry.bots.__name__, view, thinking.HINT_LEVEL, 7, 60.0)
    assert hint == {"action": "swap", "meld": 1, "card": "9D", "then": {"action": "lay", "melds": melds}}
    assert hint in view["legal_actions"]
    played = entry.engine.apply_action(m, 0, hint, rng=random.Random(2))
    assert list(played.round.melds[0].meld.cards) == ["7D", "8D", "9D", "TD"]
    assert [list(t.meld.cards) for t in played.round.melds[1:]] == melds
    assert played.round.opened[0]


@pytest.mark.parametrize("case", sorted(SWAPS_INTO_NEW_MELDS))
def test_the_analysis_best_move_is_the_hints_legal_swap(case):
    """The analysis weighs each decision against the expert's move: for these positions the same swap as the
    hint (played, it costs nothing and no playout runs: the written-out positions are not whole decks)."""
    hands, kwargs, melds = SWAPS_INTO_NEW_MELDS[case]
    _, _, view = seat_view(hands, kwargs)
    swap = {"action": "swap", "meld": 1, "card": "9D", "then": {"action": "lay", "melds": melds}}
    judged = analysis.analyse(view, swap, random.Random(3), playouts=1)
    assert judged["best"] == swap and judged["cost"] == 0.0 and judged["samples"] == 0
    assert judged["best"] in view["legal_actions"]


def test_every_listed_swap_into_new_melds_is_accepted_and_a_bad_one_changes_nothing():
    entry, m, view = seat_view(*SWAPS_INTO_NEW_MELDS["opened"][:2])
    swaps = [a for a in view["legal_actions"] if a["action"] == "swap"]
    assert {a["then"]["action"] for a in swaps} == {"lay_off", "lay"}  # both ways for the joker are offered
    for action in swaps:
        entry.engine.apply_action(m, 0, action, rng=random.Random(2))  # on a copy: the match is not changed
    bad = {"action": "swap", "meld": 1, "card": "9D", "then": {"action": "lay", "melds": [["5C", "KS", "JK"]]}}
    before = entry.engine.view(m, 0)
    with pytest.raises(IllegalAction, match="not a valid meld|meld"):
        entry.engine.apply_action(m, 0, bad, rng=random.Random(2))
    assert entry.engine.view(m, 0) == before


def test_the_hints_hand_romme_with_lay_offs_is_one_lay_the_page_builds():
    """Below the opening's minimum only a Hand-Rommé opens: melds and lay-offs in one action, which the page's
    builder sends (melds being built, and lay-offs kept for them: a lay with ``lay_offs``)."""
    entry, m, view = seat_view(["2C 3C 4C 5H 5S 5D 9H", "2S 3S 4D"], {"drawn": "KS", "melds": ((1, "6H 7H 8H"),)})
    hint = thinking.think(entry.bots.__name__, view, thinking.HINT_LEVEL, 7, 60.0)
    assert hint == {"action": "lay", "melds": [["2C", "3C", "4C"], ["5D", "5H", "5S"]],
                    "lay_offs": [{"card": "9H", "meld": 1}]}
    played = entry.engine.apply_action(m, 0, hint, rng=random.Random(2))
    assert played.round.hands[0] == ["KS"]
    # In two steps it is refused: 24 points do not open, and lay-offs come after the opening.
    with pytest.raises(IllegalAction, match="at least 40 points"):
        entry.engine.apply_action(m, 0, {"action": "lay", "melds": hint["melds"]}, rng=random.Random(2))


def page_can_send(action: dict, view: dict) -> bool:
    """Whether the table page (games/kinds/romme/static/romme/table.js) sends ``action`` from ``view``: a legal
    action from its buttons, a lay from its meld builder (its lay-offs kept for melds of the table), or a swap
    it composes for a card and meld the legal swaps offer, whose joker goes into the melds being built."""
    if action in view["legal_actions"]:
        return True
    on_table = {meld["number"] for meld in view["melds"]}
    lay = action.get("then") if action["action"] == "swap" else action
    if not isinstance(lay, dict) or lay.get("action") != "lay":
        return False
    if not all(item["meld"] in on_table for item in lay.get("lay_offs", [])):
        return False
    if action["action"] == "swap":
        offered = {(a["meld"], a["card"]) for a in view["legal_actions"] if a["action"] == "swap"}
        return (action["meld"], action["card"]) in offered
    return True


@pytest.mark.parametrize("seed", [0, 1])
def test_every_move_the_expert_chooses_in_a_whole_list_is_one_the_page_can_send(seed):
    """The hint and the analysis are the expert's move for the seat's view: in whole three-seat lists of
    experts every one of them, swaps into new melds and Hand-Rommés with lay-offs included, is one the page
    sends, and the engine accepts it."""
    entry = registry.get("romme")
    rng = random.Random(seed)
    m = entry.engine.new_match({"seats": 3}, rng=rng)
    kinds = set()
    for _ in range(3000):
        if m.over:
            break
        if m.round.over:
            m = entry.engine.deal_next_round(m, rng)
            continue
        seat = m.round.to_act
        view = entry.engine.view(m, seat)
        action = entry.bots.choose_action(view, thinking.HINT_LEVEL, rng)
        assert page_can_send(action, view), (action, view["legal_actions"])
        kinds.add((action["action"], (action.get("then") or {}).get("action")))
        m = entry.engine.apply_action(m, seat, action, rng=rng)
    assert m.over
    assert ("swap", "lay") in kinds  # the case this is about came up
