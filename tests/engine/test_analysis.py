"""The post-match analysis's engine part (``games.engine.gin.analysis``, ``games.engine.romme.analysis``,
``games.analysis``): each decision is analysed from the deciding seat's own view, rebuilt by replaying the
record, and from nothing else; the expert's own move costs nothing; a Rommé deal of the hidden cards keeps
what the seat saw; the time per decision and per match is bounded."""

from __future__ import annotations

import copy
import itertools
import random
import time
from collections import Counter

import pytest

from games import analysis
from games.engine.cards import romme_deck
from games.engine.errors import IllegalAction, InvalidRecord
from games.engine.gin import analysis as gin_analysis
from games.engine.gin import bots as gin_bots
from games.engine.gin import match as gin
from games.engine.romme import analysis as romme_analysis
from games.engine.romme import bots as romme_bots
from games.engine.romme import match as romme

MODULES = {"gin": gin_analysis, "romme": romme_analysis}
#: The moves of a round the hidden-cards test replays.
PREFIX = 16


@pytest.fixture(autouse=True)
def _heuristic_bots_without_slips(monkeypatch):
    """The records here are played by the bots' heuristics alone: the lower levels' designed slips (``SLIPS``)
    would draw from the records' random numbers and change the deals and moves the tests were written for."""
    for module in (gin_bots, romme_bots):
        for level in module.SLIPS:
            monkeypatch.setitem(module.SLIPS, level, 0.0)


def _gin_record(seed: int, *, careless: int | None = None) -> dict:
    """One round of gin between two simple bots; ``careless``: that seat plays a random legal action half the time."""
    rng = random.Random(seed)
    m = gin.new_match({"target": 0}, rng=rng, players=["anna", "ben"])
    while not m.over and m.to_act is not None:
        seat = m.to_act
        view = gin.view(m, seat)
        if seat == careless and rng.random() < 0.5:
            action = rng.choice(view["legal_actions"])
        else:
            action = gin_bots.choose_action(view, "simple", rng)
        m = gin.apply_action(m, seat, action)
    return m.record()


def _romme_record(seed: int, *, careless: int | None = None) -> dict:
    rng = random.Random(seed)
    m = romme.new_match({"seats": 3, "rounds": 1}, rng=rng, players=["anna", "ben", "cem"])
    while not m.over and m.to_act is not None:
        seat = m.to_act
        view = romme.view(m, seat)
        if seat == careless and rng.random() < 0.3:
            action = rng.choice(view["legal_actions"])
        else:
            action = romme_bots.choose_action(view, "simple", rng)
        m = romme.apply_action(m, seat, action, rng=rng)
    return m.record()


def _cards_played(moves: list[dict]) -> set[str]:
    out: set[str] = set()
    for move in moves:
        for key in ("card",):
            if key in move:
                out.add(move[key])
        for meld in move.get("melds", []) or []:
            out.update(meld)
        for lay in move.get("lay_offs", []) or []:
            out.add(lay["card"])
        then = move.get("then")
        if isinstance(then, dict):
            out |= _cards_played([then])
    return out


def _hidden_swapped(record: dict, seat: int) -> dict:
    """The first round's first ``PREFIX`` moves, with one card of another seat's hand that it does not play in
    them swapped for the stock's bottom card (not drawn in them): everything ``seat`` could see stays the same,
    the hidden cards do not."""
    swapped = copy.deepcopy(record)
    rnd = swapped["rounds"][0]
    rnd["moves"] = rnd["moves"][:PREFIX]
    played = _cards_played(rnd["moves"])
    stock = rnd["stock"]
    for hand_seat, hand in enumerate(rnd["hands"]):
        if hand_seat == seat:
            continue
        for i, card in enumerate(hand):
            if card not in played and card != stock[-1] and stock[-1] not in hand:
                hand[i], stock[-1] = stock[-1], card
                swapped["rounds"] = [rnd]
                return swapped
    raise AssertionError("no card to swap")


def _paired(record: dict, other: dict, seat: int, module) -> list[tuple[tuple, tuple]]:
    """The seat's decisions in both records, pairwise, as far as the changed record replays."""
    first = list(module.decisions({**record, "rounds": [{**record["rounds"][0],
                                                          "moves": record["rounds"][0]["moves"][:PREFIX]}]}, {seat}))
    second = []
    try:
        for found in module.decisions(other, {seat}):
            second.append(found)
    except (IllegalAction, InvalidRecord):
        pass  # a knock or going out with the swapped card in the hand: the hidden hand decided it
    return list(zip(first, second, strict=False))


@pytest.mark.parametrize("game", ["gin", "romme"])
def test_a_decision_is_analysed_from_the_deciding_seat_s_view_only_whatever_the_hidden_cards(game):
    module = MODULES[game]
    record = _gin_record(11, careless=0) if game == "gin" else _romme_record(11, careless=0)
    changed = _hidden_swapped(record, seat=0)
    assert changed["rounds"][0]["stock"] != record["rounds"][0]["stock"]
    pairs = _paired(record, changed, 0, module)
    assert len(pairs) >= 3
    for (n1, i1, s1, view1, action1), (n2, i2, s2, view2, action2) in pairs[:6]:
        assert (n1, i1, s1, action1) == (n2, i2, s2, action2)
        assert view1 == view2, "the view rebuilt for the decision holds a card the seat could not see"
        kwargs = {"iterations": 6} if game == "gin" else {"playouts": 2}
        one = module.analyse(view1, action1, random.Random(3), **kwargs)
        two = module.analyse(view2, action2, random.Random(3), **kwargs)
        assert one == two
    # The views the decisions were rebuilt from are the engine's own views of that seat at that moment.
    engine = gin if game == "gin" else romme
    for _, _, seat, view, _ in itertools.islice(module.decisions(record, {0}), 3):
        assert view["seat"] == seat == 0
        assert set(view) >= {"hand", "legal_actions"}
        assert view["to_act"] == 0
        assert "hands" not in view and "stock" not in view
    assert game == engine.GAME


@pytest.mark.parametrize("game", ["gin", "romme"])
def test_the_expert_s_own_move_costs_nothing(game):
    module = MODULES[game]
    record = _gin_record(4) if game == "gin" else _romme_record(4)
    kwargs = {"iterations": 4} if game == "gin" else {"playouts": 2}
    for _, _, _, view, _ in itertools.islice(module.decisions(record, {0, 1}), 4):
        named = module.analyse(view, view["legal_actions"][-1], random.Random(9), **kwargs)["best"]
        again = module.analyse(view, named, random.Random(9), **kwargs)
        assert again["best"] == named
        assert again["cost"] == 0.0 and again["samples"] == 0


def test_a_careless_gin_player_loses_points_and_costs_are_never_negative():
    record = _gin_record(21, careless=0)
    costs = [gin_analysis.analyse(view, action, random.Random(1), iterations=24)["cost"]
             for _, _, _, view, action in gin_analysis.decisions(record, {0})]
    assert costs and min(costs) >= 0
    assert max(costs) > analysis.ACCURATE_COST


def test_only_the_seats_asked_for_and_only_real_choices_are_decisions():
    record = _gin_record(5)
    found = list(gin_analysis.decisions(record, {1}))
    assert found and {seat for _, _, seat, _, _ in found} == {1}
    assert all(len(view["legal_actions"]) > 1 for _, _, _, view, _ in found)
    moves = record["rounds"][0]["moves"]
    for number, index, seat, _, action in found:
        assert moves[index] == {"seat": seat, **action} and number == 1


def test_a_romme_deal_of_the_hidden_cards_keeps_what_the_seat_saw():
    record = _romme_record(8, careless=1)
    rng = random.Random(2)
    checked = 0
    for _, _, seat, view, action in romme_analysis.decisions(record, {0, 1, 2}):
        m = romme_analysis.determinise(view, rng)
        r = m.round
        assert sorted(r.hands[seat]) == sorted(view["hand"])
        assert [len(h) for h in r.hands] == view["hand_counts"]
        assert len(r.stock) == view["stock_size"] and len(r.discard_pile) == view["discard_size"]
        assert (r.discard_pile[-1] if r.discard_pile else None) == view["discard_top"]
        assert [t.to_json()["cards"] for t in r.melds] == [t["cards"] for t in view["melds"]]
        everything = Counter(c for h in r.hands for c in h) + Counter(r.stock) + Counter(r.discard_pile)
        everything += Counter(c for t in r.melds for c in t.meld.cards)
        assert everything == Counter(romme_deck())
        _, held = romme_analysis.read_history(view)
        for other, cards in enumerate(held):
            if other != seat:
                assert not Counter(cards) - Counter(r.hands[other])
        romme.apply_action(m, seat, action, rng=rng)  # the move made is a legal move of the dealt state
        checked += 1
    assert checked > 20


def test_summary_counts_accurate_decisions_and_names_the_three_costliest():
    decisions = [{"round": 1, "move": i, "seat": i % 2, "action": {}, "best": {}, "cost": cost, "samples": 1}
                 for i, cost in enumerate([0.0, 5.0, 3.0, 12.5, 0.0, 7.0, 3.1])]
    data = analysis.summarise(decisions, [0, 1])
    assert data["top"] == [3, 5, 1]
    assert data["threshold"] == analysis.ACCURATE_COST == 3.0
    # seat 0: costs 0, 3, 0, 3.1 -> 3 of 4 within 3 points; seat 1: 5, 12.5, 7 -> none
    assert data["seats"]["0"] == {"decisions": 4, "accurate": 3, "accuracy": 75, "lost": 6.1}
    assert data["seats"]["1"]["accuracy"] == 0 and data["seats"]["1"]["lost"] == 24.5
    assert analysis.summarise([], [0])["seats"]["0"]["accuracy"] is None


class FakeClock:
    """Every reading is a second later: a decision's deadline passes after its first deal."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.mark.parametrize("game", ["gin", "romme"])
def test_each_decision_stops_at_its_deadline(game):
    record = _gin_record(21, careless=0) if game == "gin" else _romme_record(8, careless=1)
    data = analysis.analyse_record(MODULES[game].__name__, record, [0], seconds=0.5, clock=FakeClock())
    played = [d for d in data["decisions"] if d["samples"]]
    assert played, "some decision differs from the expert's"
    assert all(d["samples"] == 1 for d in played)
    assert data["decisions"] and all(d["seat"] == 0 for d in data["decisions"])


def test_the_analyst_works_in_a_worker_process_of_its_own():
    record = _gin_record(21, careless=0)
    analyst = analysis.Analyst()  # the real thing: a spawned, niced worker process
    try:
        analyst.start(7, module="games.engine.gin.analysis", record=record, seats=[0], seconds=0.01)
        assert analyst.busy()
        with pytest.raises(RuntimeError):
            analyst.start(8, module="games.engine.gin.analysis", record=record, seats=[0], seconds=0.01)
        deadline = time.monotonic() + 120
        finished = None
        while finished is None and time.monotonic() < deadline:
            time.sleep(0.1)
            finished = analyst.done()
        assert finished is not None
        match_id, data = finished
        assert match_id == 7 and isinstance(data, dict)
        assert data["decisions"] and {d["seat"] for d in data["decisions"]} == {0}
        assert not analyst.busy()
        # A failure comes back as the exception, for the clock to store.
        analyst.start(9, module="games.engine.gin.analysis", record={"rounds": [{}]}, seats=[0], seconds=0.01)
        while (finished := analyst.done()) is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert finished is not None and finished[0] == 9 and isinstance(finished[1], BaseException)
    finally:
        analyst.shutdown()


def test_stopping_the_analyst_ends_its_worker_at_once():
    analyst = analysis.Analyst()
    analyst.start(1, module="games.engine.gin.analysis", record=_gin_record(21, careless=0), seats=[0, 1],
                  seconds=5.0)
    process = analyst._job[1]
    started = time.monotonic()
    analyst.shutdown()
    assert time.monotonic() - started < 6
    assert not process.is_alive() and not analyst.busy() and analyst.done() is None
