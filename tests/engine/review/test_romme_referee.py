"""An independent referee's rule cases for the Rommé engine, from spec/romme.md, records.md and api.md.

Every case drives the public surface only: api.md's names, the match interface of docs/engine.md and
records replayed by ``games.engine.romme.replay.replay``. Deals are written out card by card; the stock
below the cards a case names is the rest of the 110 cards in deck order (nobody reaches it).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.cards import romme_deck
from games.engine.errors import IllegalAction, InvalidRecord
from games.engine.records import replay_record
from games.engine.romme import bots
from games.engine.romme import match as romme
from games.engine.romme.melds import InvalidMeld, validate_meld
from games.engine.romme.replay import replay as replay_facts
from games.engine.romme.scoring import hand_points
from tests import points as outcomes


def replay(record: dict) -> dict:
    """The summary ``manage.py replay`` prints: the engine's facts of the record, scored by Rommé's points (games.kinds.romme.points)."""
    return outcomes.summary(replay_facts(record))


def result_of(m: romme.Match) -> dict | None:
    return outcomes.outcome(m.facts())


def live_view(m: romme.Match, seat: int | None) -> dict:
    """A view as the live layer sends it: the engine's, with the points in it."""
    return outcomes.view_with_points(romme.view(m, seat))


FULL_DECK = Counter(romme_deck())
ROOT = Path(__file__).resolve().parents[3]


# -- building deals, records and matches ------------------------------------------------------------------


def full_deal(hands: list[str], upcard: str, stock_top: str = "") -> dict:
    """Hands (13 cards each, space-separated), the upcard and the stock's top cards, completed to 110 cards."""
    dealt = [h.split() for h in hands]
    assert all(len(h) == 13 for h in dealt), [len(h) for h in dealt]
    used = Counter(c for h in dealt for c in h) + Counter([upcard]) + Counter(stock_top.split())
    assert not used - FULL_DECK, f"more copies than two decks hold: {used - FULL_DECK}"
    rest = FULL_DECK - used
    stock = stock_top.split()
    for card in romme_deck():
        if rest[card]:
            rest[card] -= 1
            stock.append(card)
    assert len(stock) + 13 * len(hands) + 1 == 110
    return {"hands": dealt, "upcard": upcard, "stock": stock}


def draw(seat: int, source: str = "stock") -> dict:
    return {"seat": seat, "action": "draw", "from": source}


def lay(seat: int, *melds: str, lay_offs: list[dict] | None = None) -> dict:
    move = {"seat": seat, "action": "lay", "melds": [m.split() for m in melds]}
    if lay_offs is not None:
        move["lay_offs"] = lay_offs
    return move


def lay_off(seat: int, card: str, meld: int, end: str | None = None) -> dict:
    move = {"seat": seat, "action": "lay_off", "card": card, "meld": meld}
    if end is not None:
        move["end"] = end
    return move


def swap(seat: int, meld: int, card: str, then: dict) -> dict:
    return {"seat": seat, "action": "swap", "meld": meld, "card": card, "then": without_seat(then)}


def discard(seat: int, card: str) -> dict:
    return {"seat": seat, "action": "discard", "card": card}


def without_seat(move: dict) -> dict:
    return {k: v for k, v in move.items() if k != "seat"}


def record(deals: list[tuple[int, dict, list[dict]]], **options) -> dict:
    """A record of rounds given as (dealer, full_deal, moves)."""
    seats = len(deals[0][1]["hands"])
    return {
        "game": "romme",
        "options": {"seats": seats, **options},
        "rounds": [{"dealer": dealer, **deal, "moves": moves} for dealer, deal, moves in deals],
    }


def one_round(deal: dict, moves: list[dict], *, dealer: int | None = None, **options) -> dict:
    seats = len(deal["hands"])
    options.setdefault("rounds", 1)
    return record([(seats - 1 if dealer is None else dealer, deal, moves)], **options)


class RiggedDeck(random.Random):
    """A random source that deals a chosen deck and first dealer; reshuffles keep the pile's order."""

    def __init__(self, deck: list[str], dealer: int):
        super().__init__(0)
        self.deck, self.dealer = deck, dealer

    def randrange(self, *args, **kwargs):
        return self.dealer

    def shuffle(self, x, *args, **kwargs):
        if len(x) == 110:
            x[:] = self.deck


def start(deal: dict, *, dealer: int | None = None, **options) -> romme.Match:
    """A live match (docs/engine.md) dealt exactly ``deal``."""
    seats = len(deal["hands"])
    dealer = seats - 1 if dealer is None else dealer
    deck = [c for h in deal["hands"] for c in h] + [deal["upcard"]] + deal["stock"]
    m = romme.new_match(options, seats=seats, rng=RiggedDeck(deck, dealer))
    assert m.current_deal() == {"dealer": dealer, **deal}, "the rigged deal did not come through"
    return m


def act(m: romme.Match, *moves: dict) -> romme.Match:
    for move in moves:
        m = romme.apply_action(m, move["seat"], without_seat(move), rng=random.Random(5))
    return m


def refused(m: romme.Match, move: dict, match: str | None = None) -> None:
    """The move is refused with a clear reason and the match is left exactly as it was."""
    before = json.dumps(m.to_json(), sort_keys=True)
    with pytest.raises(IllegalAction, match=match) as info:
        romme.apply_action(m, move["seat"], without_seat(move), rng=random.Random(5))
    assert str(info.value).strip()
    assert json.dumps(m.to_json(), sort_keys=True) == before


def hand(m: romme.Match, seat: int) -> list[str]:
    return sorted(romme.view(m, seat)["hand"])


def melds_on_table(m: romme.Match) -> list[list[str]]:
    return [t["cards"] for t in romme.view(m, None)["melds"]]


# -- api.md's examples ------------------------------------------------------------------------------------


def test_api_example_run_with_joker_as_high_ace_is_worth_31():
    meld = validate_meld(["QH", "KH", "JK"])
    assert (meld.kind, meld.points) == ("run", 31)


def test_api_example_hand_points_joker_ace_king_five_is_46():
    assert hand_points(["JK", "AS", "KD", "5C"]) == 46


def test_api_example_no_wrap_around_king_ace_two_raises_invalid_meld():
    with pytest.raises(InvalidMeld, match=r"\S"):
        validate_meld(["KH", "AH", "2H"])
    assert issubclass(InvalidMeld, ValueError)


# -- cards and Augen --------------------------------------------------------------------------------------


def test_deck_is_two_52_card_decks_and_six_jokers():
    deck = romme_deck()
    assert len(deck) == 110 and deck.count("JK") == 6
    assert {n for c, n in Counter(deck).items() if c != "JK"} == {2} and len(set(deck)) == 53


@pytest.mark.parametrize(("cards", "augen"), [
    (["JK"], 20), (["AS"], 11), (["KC"], 10), (["QD"], 10), (["JH"], 10), (["TS"], 10),
    (["9C"], 9), (["2D"], 2), (["AS", "AS", "JK", "JK"], 62), ([], 0),
])
def test_augen_joker_20_ace_11_faces_and_ten_10_others_face_value(cards, augen):
    assert hand_points(cards) == augen


@pytest.mark.parametrize("bad", [["1H"], ["KH", "XX"], ["kh"], [""], [None]])
def test_hand_points_refuses_a_bad_card_code(bad):
    with pytest.raises(ValueError, match=r"\S"):
        hand_points(bad)


# -- melds ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("cards", "kind", "points"), [
    ("AH 2H 3H", "run", 6),            # the low ace counts 1
    ("JK 2H 3H", "run", 6),            # the joker is the low ace
    ("QH KH AH", "run", 31),           # the high ace counts 11
    ("JK KH AH", "run", 31),           # the joker is the queen
    ("JK QH KH", "run", 30),           # the joker is the jack, not an ace
    ("7H JK 9H", "run", 24),           # the joker is the 8
    ("AH AS AD", "set", 33),           # aces in a set count 11
    ("AH AS JK", "set", 33),           # the joker is an ace: 11
    ("7H 7S JK", "set", 21),
    ("KH KS KD KC", "set", 40),
    ("7H 7S 7D JK", "set", 28),
    ("5H JK 7H JK 9H", "run", 35),     # two jokers, never side by side, fewer than the three naturals
    ("JK 3S 4S 5S JK", "run", 20),     # 2 3 4 5 6 of spades
    ("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", "run", 95),   # 2..A: the ace is high
    ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "run", 85),   # A..K: the ace is low
    ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", "run", 96),   # A..K A: an ace at each end
])
def test_meld_points_joker_counts_as_the_card_it_stands_for_ace_1_low_11_high(cards, kind, points):
    meld = validate_meld(cards.split())
    assert (meld.kind, meld.points) == (kind, points)


@pytest.mark.parametrize(("cards", "why"), [
    ("7H 8H", "fewer than 3 cards"),
    ("7H 7H 7S", "two copies of the same card in one set: suits must differ"),
    ("7H 7S 7D 7C 7H", "a set holds at most 4 cards"),
    ("7H 7S 7D 7C JK", "a set holds at most 4 cards, jokers included"),
    ("7H 8S 9H", "a run is one suit"),
    ("7H 8H TH", "a run is consecutive"),
    ("7H 8H 8H 9H", "a run cannot hold a rank twice"),
    ("KH AH 2H", "no wrap-around"),
    ("QH KH AH 2H", "no wrap-around"),
    ("JK AH 2H", "nothing below a low ace"),
    ("QH KH AH JK", "nothing above a high ace"),
    ("JK AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", "nothing below the low ace of A 2 … K A"),
    ("7H JK JK", "two jokers side by side; not fewer jokers than naturals"),
    ("7H JK JK 7S", "a set needs fewer jokers than natural cards"),
    ("7H 7S JK JK", "a set needs fewer jokers than natural cards"),
    ("JK 7H JK", "jokers must be fewer than natural cards"),
    ("5H JK JK 8H 9H", "two jokers may never lie next to each other in a run"),
    ("5H 6H 7H JK JK", "two jokers side by side at the end of a run"),
    ("JK JK 7H 8H 9H", "two jokers side by side at the start of a run"),
    ("JK JK JK", "no natural card"),
    ("7H 7S JK 8H", "neither a set nor a run"),
    ("XH 7S 7D", "not a card code"),
])
def test_invalid_meld_is_refused_with_a_reason(cards, why):
    with pytest.raises(InvalidMeld, match=r"\S"):
        validate_meld(cards.split())


def test_both_copies_of_a_card_are_equal_in_play():
    # Each of two players lays 7H 8H 9H from a different deck's copies; both runs are valid table melds.
    deal = full_deal(["7H 8H 9H TH JH QH 4C 6C 8C TC 3D 5D 2S",
                      "7H 8H 9H TH JH 5S 5C 5D 9C JC KC 2D 4D"], upcard="KS", stock_top="AS 3S 4S")
    m = start(deal)
    m = act(m, draw(0), lay(0, "7H 8H 9H TH JH QH"), discard(0, "AS"),
            draw(1), lay(1, "7H 8H 9H TH JH", "5S 5C 5D"), discard(1, "3S"))
    assert melds_on_table(m) == [["7H", "8H", "9H", "TH", "JH", "QH"], ["7H", "8H", "9H", "TH", "JH"],
                                 ["5S", "5C", "5D"]]


# -- seats, dealer, dealing -------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_two_to_six_seats_and_a_list_is_twice_the_seats_by_default(seats):
    options = romme.normalize_options({}, seats=seats)
    assert (options["seats"], options["rounds"], options["opening_points"]) == (seats, 2 * seats, 40)


def test_default_table_has_four_seats():
    assert romme.normalize_options({})["seats"] == 4


@pytest.mark.parametrize("bad", [{"seats": 1}, {"seats": 7}, {"seats": "4"}, {"opening_points": 35},
                                 {"opening_points": 50}, {"rounds": 0}, {"colour": "red"}])
def test_bad_table_options_are_refused(bad):
    with pytest.raises(ValueError, match=r"\S"):
        romme.normalize_options(bad)


@pytest.mark.parametrize("points", [40, 30, 0])
def test_opening_points_options_40_30_0(points):
    assert romme.normalize_options({"opening_points": points}, seats=2)["opening_points"] == points


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_thirteen_cards_each_upcard_and_the_rest_is_the_stock(seats):
    m = romme.new_match({}, seats=seats, rng=random.Random(seats))
    deal = m.current_deal()
    assert [len(h) for h in deal["hands"]] == [13] * seats
    assert len(deal["stock"]) == 110 - 13 * seats - 1
    assert Counter(c for h in deal["hands"] for c in h) + Counter([deal["upcard"]]) + Counter(
        deal["stock"]) == FULL_DECK
    assert m.to_act == (m.dealer + 1) % seats


def _dead_hands(seats: int) -> list[str]:
    # Hands that cannot open: nobody lays anything while the stock is drawn down.
    pool = ["2C 4C 6C 8C TC QC 3D 5D 7D 9D JD KD AS", "3C 5C 7C 9C JC KC 2D 4D 6D 8D TD QD AH",
            "2H 4H 6H 8H TH QH 3S 5S 7S 9S JS KS AC", "3H 5H 7H 9H JH KH 2S 4S 6S 8S TS QS AD",
            "2C 4C 6C 8C TC QC 3D 5D 7D 9D JD KD AS", "3C 5C 7C 9C JC KC 2D 4D 6D 8D TD QD AH"]
    return pool[:seats]


# Thirteen cards that go out at once as a Hand-Rommé worth 31 (below the 40 minimum).
QUICK = "AC 2C 3C 4C AD 2D 3D AH 2H 3H 2S 3S 4S"
QUICK_MELDS = ("AC 2C 3C 4C", "AD 2D 3D", "AH 2H 3H", "2S 3S 4S")


def quick_round(seats: int, dealer: int, others: list[str] | None = None) -> tuple[int, dict, list[dict]]:
    """A round the player after ``dealer`` wins on the first turn: draws KS, lays 13 cards, discards KS."""
    first = (dealer + 1) % seats
    loose = others or _dead_hands(seats)
    hands = [QUICK if seat == first else loose[seat] for seat in range(seats)]
    deal = full_deal(hands, upcard="9H", stock_top="KS")
    return dealer, deal, [draw(first), lay(first, *QUICK_MELDS), discard(first, "KS")]


def test_dealer_moves_one_seat_each_round_and_the_player_after_the_dealer_starts():
    good = record([quick_round(3, 2), quick_round(3, 0), quick_round(3, 1)], rounds=3)
    summary = replay(good)
    assert [r["winner"] for r in summary["rounds"]] == [0, 1, 2] and summary["over"]
    stuck = record([quick_round(3, 2), quick_round(3, 2)], rounds=3)  # the dealer did not move on
    with pytest.raises(InvalidRecord, match="round 2"):
        replay(stuck)
    skipped = record([quick_round(3, 2), quick_round(3, 1)], rounds=3)  # moved two seats
    with pytest.raises(InvalidRecord, match="round 2"):
        replay(skipped)


def test_live_list_deals_the_next_round_with_the_next_dealer():
    dealer, deal, moves = quick_round(3, 1)
    m = act(start(deal, dealer=dealer, rounds=3), *moves)
    assert m.phase == "round_over" and not m.over
    m2 = romme.deal_next_round(m, random.Random(3))
    assert (m2.dealer, m2.to_act, m2.round_number) == (2, 0, 2)


def test_record_first_move_by_the_dealer_is_refused():
    deal = full_deal(_dead_hands(2), upcard="9H", stock_top="KH")
    bad = one_round(deal, [draw(1), discard(1, "KH")], dealer=1)  # seat 1 deals, so seat 0 starts
    with pytest.raises(InvalidRecord, match=r"move 0"):
        replay(bad)


def test_record_with_a_hand_of_twelve_or_a_card_short_is_refused():
    deal = full_deal(_dead_hands(2), upcard="9H", stock_top="KH")
    short = json.loads(json.dumps(deal))
    short["hands"][0] = short["hands"][0][:12]  # 109 cards
    with pytest.raises(InvalidRecord, match="round 1"):
        replay(one_round(short, []))
    swapped = json.loads(json.dumps(deal))
    swapped["stock"][-1] = "KH"  # a third KH instead of a joker
    with pytest.raises(InvalidRecord, match="110"):
        replay(one_round(swapped, []))
    extra = json.loads(json.dumps(deal))
    extra["stock"].append("JK")  # a seventh joker: 111 cards
    with pytest.raises(InvalidRecord, match="round 1"):
        replay(one_round(extra, []))


# -- the opening ------------------------------------------------------------------------------------------

LOOSE_12 = "2C 4C 6C 8C 3D 5D 7D 9D 4S 6S 8S"  # eleven cards that make no meld with anything here


def _opener(cards: str, *, upcard: str = "KS", stock_top: str = "2S", **options) -> romme.Match:
    """Seat 0 (to act first) holds ``cards`` padded with loose cards to 13; seat 1 cannot open."""
    own = cards.split()
    pad = LOOSE_12.split()[: 13 - len(own)]
    deal = full_deal([" ".join(own + pad), _dead_hands(2)[1]], upcard=upcard, stock_top=stock_top)
    return start(deal, **options)


def test_opening_worth_exactly_40_in_one_action_is_accepted():
    m = act(_opener("TH JH QH KH"), draw(0))
    m = act(m, lay(0, "TH JH QH KH"))
    assert melds_on_table(m) == [["TH", "JH", "QH", "KH"]] and romme.view(m, 0)["opened"][0]


def test_opening_worth_39_is_refused_and_nothing_moves():
    m = act(_opener("9H TH JH QH"), draw(0))
    refused(m, lay(0, "9H TH JH QH"), match="40")
    assert melds_on_table(m) == [] and len(hand(m, 0)) == 14


def test_opening_counts_the_joker_as_the_high_ace_it_stands_for():
    m = act(_opener("QH KH JK 3C 3S 3D"), draw(0))
    m = act(m, lay(0, "QH KH JK", "3C 3S 3D"))  # 31 + 9 = 40
    assert len(melds_on_table(m)) == 2


def test_opening_joker_standing_for_a_low_ace_counts_1():
    m = act(_opener("JK 2H 3H KC KS KD"), draw(0))
    refused(m, lay(0, "JK 2H 3H", "KC KS KD"), match="40")  # 6 + 30 = 36


def test_opening_may_use_the_card_just_taken_from_the_discard_pile():
    m = act(_opener("TH JH QH", upcard="KH"), draw(0, "discard"))
    m = act(m, lay(0, "TH JH QH KH"))
    assert melds_on_table(m) == [["TH", "JH", "QH", "KH"]]


def test_opening_must_be_one_action_not_two_smaller_lays():
    m = act(_opener("TH JH QH 5C 5S 5D"), draw(0))
    refused(m, lay(0, "TH JH QH"), match="40")  # 30 now and 15 later is no opening
    m = act(m, lay(0, "TH JH QH", "5C 5S 5D"))  # 45 at once
    assert len(melds_on_table(m)) == 2


def test_opening_points_option_30():
    m = act(_opener("TH JH QH", opening_points=30), draw(0))
    m = act(m, lay(0, "TH JH QH"))  # exactly 30
    assert len(melds_on_table(m)) == 1
    m = act(_opener("9H TH JH", opening_points=30), draw(0))
    refused(m, lay(0, "9H TH JH"), match="30")  # 29


def test_opening_points_option_0_any_meld_opens():
    m = act(_opener("2H 3H 4H", opening_points=0), draw(0))
    m = act(m, lay(0, "2H 3H 4H"))
    assert romme.view(m, 0)["opened"][0]


def test_lay_out_only_after_drawing():
    m = _opener("TH JH QH KH")
    refused(m, lay(0, "TH JH QH KH"))


def test_lay_of_cards_not_in_the_hand_is_refused():
    m = act(_opener("TH JH QH KH"), draw(0))
    refused(m, lay(0, "TH JH QH KH", "AS AC AH"), match=r"\S")


def test_out_of_turn_action_is_refused():
    m = _opener("TH JH QH KH")
    refused(m, draw(1))


# -- after opening: more melds, lay-offs, joker swaps -----------------------------------------------------

# Seat 1 starts (dealer 0): takes the open 5H, opens with 79 and lays the 5H off on its set.
TABLE = full_deal(
    ["QS KS AS 7C 7S 7D 4D 5D 6D 8H 9C 2H 3S",
     "7H JK 9H 5C 5S 5D TD JD QD KD 2S 3C 8C"],
    upcard="5H", stock_top="9D KC 4C 6S 2D AD",
)
SEAT_1_OPENS = [draw(1, "discard"), lay(1, "7H JK 9H", "5C 5S 5D", "TD JD QD KD"), lay_off(1, "5H", 2),
                discard(1, "8C")]


def _table() -> romme.Match:
    m = act(start(TABLE, dealer=0), *SEAT_1_OPENS)
    return act(m, draw(0))  # seat 0 drew the 9D


def test_set_takes_lay_offs_up_to_four_different_suits():
    m = act(start(TABLE, dealer=0), draw(1, "discard"), lay(1, "7H JK 9H", "5C 5S 5D", "TD JD QD KD"),
            discard(1, "8C"), draw(0), lay(0, "QS KS AS", "7C 7S 7D"))
    refused(m, lay_off(0, "5D", 2))  # the other deck's 5D: a set needs different suits
    m = act(m, discard(0, "9C"), draw(1), lay_off(1, "5H", 2))
    assert melds_on_table(m)[1] == ["5C", "5S", "5D", "5H"]
    m = act(m, discard(1, "KC"), draw(0))
    refused(m, lay_off(0, "5D", 2))  # a fifth card: a set has at most 4


def test_lay_off_before_opening_is_refused():
    refused(_table(), lay_off(0, "9D", 3), match="open")


def test_joker_swap_before_opening_is_refused():
    m = _table()
    refused(m, swap(0, 1, "8H", lay(0, "4D 5D 6D JK")), match="open")


def test_after_opening_same_turn_melds_of_any_value_and_lay_offs_on_anybodys_melds():
    m = act(_table(), lay(0, "QS KS AS", "7C 7S 7D"))
    m = act(m, lay_off(0, "9D", 3))  # on seat 1's run, at its low end
    m = act(m, lay(0, "4D 5D 6D"))  # 15 points: any value once opened
    assert melds_on_table(m)[2] == ["9D", "TD", "JD", "QD", "KD"]
    assert melds_on_table(m)[5] == ["4D", "5D", "6D"]


def test_joker_swap_in_a_run_and_the_freed_joker_laid_in_the_same_action():
    m = act(_table(), lay(0, "QS KS AS", "7C 7S 7D"))
    m = act(m, swap(0, 1, "8H", lay(0, "4D 5D 6D JK")))
    table = melds_on_table(m)
    assert table[0] == ["7H", "8H", "9H"] and table[5] == ["4D", "5D", "6D", "JK"]
    assert "JK" not in hand(m, 0) and "8H" not in hand(m, 0)


def test_freed_joker_laid_off_in_the_same_action_with_an_end_where_both_fit():
    m = act(_table(), lay(0, "QS KS AS", "7C 7S 7D", "4D 5D 6D"))
    refused(m, swap(0, 1, "8H", lay_off(0, "JK", 6)))  # the joker fits below 4D and above 6D: say which
    m = act(m, swap(0, 1, "8H", lay_off(0, "JK", 6, "high")))
    assert melds_on_table(m)[5] == ["4D", "5D", "6D", "JK"]


def test_swap_whose_freed_joker_is_not_laid_in_the_same_action_is_refused():
    m = act(_table(), lay(0, "QS KS AS", "7C 7S 7D"))
    refused(m, swap(0, 1, "8H", lay(0, "4D 5D 6D")), match="joker")


def test_swap_with_a_card_the_joker_does_not_stand_for_is_refused():
    m = act(_table(), lay(0, "QS KS AS", "7C 7S 7D"))
    refused(m, swap(0, 1, "9C", lay(0, "4D 5D 6D JK")))
    refused(m, swap(0, 2, "8H", lay(0, "4D 5D 6D JK")))  # meld 2 holds no joker


def test_joker_swap_in_a_set_of_three_is_refused_in_a_set_of_four_allowed():
    deal = full_deal(["QS KS AS 9C 4D 5D 6D 8H 2H 3S 7D 7C JC",
                      "7H 7S JK TD JD QD KD 5C 5S 5D 2S 3C 8C"], upcard="KC", stock_top="4C 6S 2D AD")
    m = act(start(deal, dealer=0), draw(1), lay(1, "7H 7S JK", "TD JD QD KD"), discard(1, "8C"), draw(0))
    m = act(m, lay(0, "QS KS AS", "4D 5D 6D"))
    refused(m, swap(0, 1, "7D", lay_off(0, "JK", 2, "low")), match="4")
    refused(m, swap(0, 1, "7C", lay_off(0, "JK", 2, "low")), match="4")
    # Laying off the 7D makes it 7H 7S JK 7D: now the joker is certainly the 7C.
    m = act(m, lay_off(0, "7D", 1))
    refused(m, swap(0, 1, "8H", lay_off(0, "JK", 2, "low")))  # not the card it stands for
    m = act(m, swap(0, 1, "7C", lay_off(0, "JK", 2, "low")))
    assert sorted(melds_on_table(m)[0]) == ["7C", "7D", "7H", "7S"]
    assert melds_on_table(m)[1] == ["JK", "TD", "JD", "QD", "KD"]


def test_joker_may_not_be_discarded_while_other_cards_are_held():
    m = act(start(TABLE, dealer=0), draw(1, "discard"))
    refused(m, discard(1, "JK"), match="joker")


def test_no_action_may_empty_the_hand_before_the_discard():
    deal = full_deal([QUICK, _dead_hands(2)[1]], upcard="9H", stock_top="5S")
    m = act(start(deal), draw(0))  # 5S fits: all fourteen cards could be laid
    refused(m, lay(0, "AC 2C 3C 4C", "AD 2D 3D", "AH 2H 3H", "2S 3S 4S 5S"), match="card")
    refused(m, lay(0, *QUICK_MELDS, lay_offs=[{"card": "5S", "meld": 4}]), match="card")


# -- one card left, going out, Hand-Rommé -----------------------------------------------------------------


def _one_card_left(kept: str, seat_0_discards: str) -> romme.Match:
    """Seat 1 opens with 12 cards and keeps ``kept``; seat 0 then discards ``seat_0_discards``."""
    deal = full_deal(["JH 2C 4C 6C 8C 3D 5D 7D 9C JS KS 2H 4H",
                      f"7H 8H 9H TH TD JD QD KD 5C 5S 5D 5H {kept}"], upcard="QS", stock_top="9S 3S 6H")
    m = act(start(deal, dealer=0, rounds=1), draw(1), lay(1, "7H 8H 9H TH", "TD JD QD KD", "5C 5S 5D 5H"),
            discard(1, "9S"), draw(0), discard(0, seat_0_discards))
    assert hand(m, 1) == [kept]
    return m


def test_one_card_rule_forbids_taking_a_discard_that_could_be_laid_off():
    m = _one_card_left("QC", "JH")  # the JH fits on 7H 8H 9H TH
    refused(m, draw(1, "discard"), match="one-card")
    assert {"action": "draw", "from": "discard"} not in romme.legal_actions(m)
    act(m, draw(1))  # the stock stays open


def test_one_card_rule_forbids_taking_the_discard_when_the_held_card_fits():
    m = _one_card_left("JH", "2C")  # the held JH fits, the 2C does not
    refused(m, draw(1, "discard"), match="one-card")


def test_one_card_rule_allows_the_discard_when_neither_card_could_be_laid_off():
    m = _one_card_left("QC", "2C")
    assert {"action": "draw", "from": "discard"} in romme.legal_actions(m)
    m = act(m, draw(1, "discard"))
    assert hand(m, 1) == ["2C", "QC"]


def test_going_out_by_laying_off_and_discarding_the_last_card_wins_a_romme():
    m = act(_one_card_left("QC", "2C"), draw(1))  # the 6H
    m = act(m, lay_off(1, "6H", 1))
    assert melds_on_table(m)[0] == ["6H", "7H", "8H", "9H", "TH"] and m.to_act == 1
    m = act(m, discard(1, "QC"))
    assert m.phase in ("round_over", "match_over") and m.to_act is None
    summary = replay(m.record())
    (rnd,) = summary["rounds"]
    seat_0_augen = hand_points(["JH", "4C", "6C", "8C", "3D", "5D", "7D", "9C", "JS", "KS", "2H", "4H", "3S"])
    assert (rnd["result"], rnd["winner"], rnd["hand_romme"]) == ("romme", 1, False)
    assert rnd["augen"] == [seat_0_augen, 0] and rnd["minus"] == [seat_0_augen, 0]
    assert rnd["hands"][1] == [] and summary["winner"] == 1 and summary["over"]


def test_no_action_may_lay_off_the_last_card_before_the_discard():
    m = act(_one_card_left("JH", "2C"), draw(1))  # holds JH and the 6H, both fit on meld 1
    m = act(m, lay_off(1, "JH", 1))
    assert hand(m, 1) == ["6H"]
    refused(m, lay_off(1, "6H", 1), match="card")  # would leave nothing to discard


# Seat 1 (95 Augen, cannot open) watches seat 0 go out at once.
WATCHER = "KC QS JD TH 9C 8S 7D 6H 5C 4H 3C 2D AS"


def test_hand_romme_below_the_minimum_wins_and_doubles_the_casual_minus_points():
    summary = replay(record([quick_round(2, 1, ["", WATCHER])], rounds=1))
    (rnd,) = summary["rounds"]
    assert (rnd["result"], rnd["winner"], rnd["hand_romme"]) == ("hand_romme", 0, True)
    assert rnd["augen"] == [0, 95] and rnd["minus"] == [0, 190]
    assert summary["totals"] == summary["final"] == [0, 190] and summary["places"] == [1, 2]


def test_a_lay_below_the_minimum_that_does_not_go_out_is_refused():
    deal = full_deal([QUICK, WATCHER], upcard="9H", stock_top="KS")
    m = act(start(deal), draw(0))
    refused(m, lay(0, "AC 2C 3C", "AD 2D 3D", "AH 2H 3H", "2S 3S 4S"), match="40")  # 27, keeps 4C and KS


def test_hand_romme_may_open_with_40_and_lay_the_rest_in_further_actions_of_the_same_turn():
    deal = full_deal(["TH JH QH KH 2C 3C 4C 5S 6S 7S 8D 9D TD", WATCHER], upcard="9H", stock_top="2H")
    m = act(start(deal, rounds=1), draw(0), lay(0, "TH JH QH KH"), lay(0, "2C 3C 4C"), lay(0, "5S 6S 7S"),
            lay(0, "8D 9D TD"), discard(0, "2H"))
    (rnd,) = replay(m.record())["rounds"]
    assert (rnd["result"], rnd["hand_romme"], rnd["minus"]) == ("hand_romme", True, [0, 190])


# A Hand-Rommé below the minimum whose freed joker comes from a swap (the swap's `then` is the opening lay).
SWAP_HAND_ROMME = full_deal(
    ["8H AC 2C 3C 4C AD 2D 3D 2S 3S 4S AH 2H",
     "7H JK 9H 5C 5S 5D TD JD QD KD 2S 3C 8C"],
    upcard="QS", stock_top="9D KS",
)
SWAP_HAND_ROMME_SEAT_1 = [draw(1), lay(1, "7H JK 9H", "5C 5S 5D", "TD JD QD KD"), discard(1, "8C")]


def test_hand_romme_below_the_minimum_with_a_joker_swap_on_another_players_meld():
    # Seat 0 lays AC-4C, AD-3D, 2S-4S (25), swaps the 8H for seat 1's joker, lays AH 2H JK (6) and goes
    # out with the KS: everything laid in one turn, 31 points, so the 40 minimum does not apply.
    m = act(start(SWAP_HAND_ROMME, dealer=0, rounds=1, tournament=True), *SWAP_HAND_ROMME_SEAT_1, draw(0))
    tries = [
        [lay(0, "AC 2C 3C 4C", "AD 2D 3D", "2S 3S 4S"), swap(0, 1, "8H", lay(0, "AH 2H JK")), discard(0, "KS")],
        [swap(0, 1, "8H", lay(0, "AC 2C 3C 4C", "AD 2D 3D", "2S 3S 4S", "AH 2H JK")), discard(0, "KS")],
    ]
    for moves in tries:
        try:
            done = act(m, *moves)
        except IllegalAction:
            continue
        (rnd,) = replay(done.record())["rounds"]
        assert (rnd["result"], rnd["winner"], rnd["wertungspunkte"]) == ("hand_romme", 0, [8, 2])
        return
    pytest.fail("no way to play this legal Hand-Rommé")


# -- the stock runs out -----------------------------------------------------------------------------------

# All six jokers in the hands: every card drawn from the stock can go straight onto the discard pile.
JOKER_HANDS = full_deal(["JK JK JK 2C 4C 6C 8C TC QC 3D 5D 7D 9D", "JK JK JK 3C 5C 7C 9C JC KC 2D 4D 6D 8D"],
                        upcard="AS")


def _draw_down_the_stock() -> tuple[list[dict], list[str]]:
    """Seats 0 and 1 draw the whole stock, each discarding the card drawn; returns the moves and the pile."""
    moves, pile = [], [JOKER_HANDS["upcard"]]
    for i, card in enumerate(JOKER_HANDS["stock"]):
        moves += [draw(i % 2), discard(i % 2, card)]
        pile.append(card)
    return moves, pile


def test_empty_stock_the_discard_pile_except_its_top_card_becomes_the_new_stock():
    moves, pile = _draw_down_the_stock()
    assert len(moves) == 166  # 83 draws: seat 1 is to draw next
    new_stock = list(reversed(pile[:-1]))
    done = moves + [{"seat": 1, "action": "reshuffle", "stock": new_stock}, draw(1), discard(1, new_stock[0]),
                    {"seat": 0, "action": "resign"}]
    summary = replay(one_round(JOKER_HANDS, done, dealer=1))
    assert summary["rounds"][0]["result"] == "abandoned" and summary["left"] == [True, False]
    with_top = moves + [{"seat": 1, "action": "reshuffle", "stock": list(reversed(pile))}, draw(1)]
    with pytest.raises(InvalidRecord, match="move 166"):
        replay(one_round(JOKER_HANDS, with_top, dealer=1))
    unshuffled = moves + [draw(1)]
    with pytest.raises(InvalidRecord, match="move 166"):
        replay(one_round(JOKER_HANDS, unshuffled, dealer=1))
    early = moves[:2] + [{"seat": 1, "action": "reshuffle", "stock": [pile[0]]}]
    with pytest.raises(InvalidRecord, match="move 2"):
        replay(one_round(JOKER_HANDS, early, dealer=1))


def test_live_draw_from_an_empty_stock_reshuffles_and_the_view_hides_the_new_order():
    moves, pile = _draw_down_the_stock()
    m = act(start(JOKER_HANDS, dealer=1), *moves)
    assert romme.view(m, 1)["stock_size"] == 0 and romme.view(m, 1)["discard_size"] == 84
    m = romme.apply_action(m, 1, {"action": "draw", "from": "stock"}, rng=random.Random(9))
    v = romme.view(m, 0)
    assert v["stock_size"] == 82 and v["discard_size"] == 1 and v["discard_top"] == pile[-1]
    reshuffle = [h for h in v["history"] if h["action"] == "reshuffle"]
    assert len(reshuffle) == 1 and "stock" not in reshuffle[0]
    m = romme.resign(m, 0)
    rnd = m.record()["rounds"][0]
    (shuffle_move,) = [mv for mv in rnd["moves"] if mv["action"] == "reshuffle"]
    assert Counter(shuffle_move["stock"]) == Counter(pile[:-1])
    assert replay(m.record())["rounds"][0]["result"] == "abandoned"


# -- timeouts and leaving ---------------------------------------------------------------------------------

TIMEOUT_HAND = "2C 4C 6C 8C 3D 5D 7D 9D 2H 4H 6H 8H KD"  # the KD is its one highest card


def test_timeout_draws_from_the_stock_and_discards_the_drawn_card():
    m = start(full_deal([TIMEOUT_HAND, WATCHER], upcard="9H", stock_top="5S"))
    assert romme.timeout_actions(m) == [{"action": "draw", "from": "stock"}, {"action": "discard", "card": "5S"}]
    m = act(m, *[{"seat": 0, **a} for a in romme.timeout_actions(m)])
    assert m.to_act == 1 and romme.view(m, 1)["discard_top"] == "5S" and "5S" not in hand(m, 0)


def test_timeout_after_drawing_a_joker_discards_the_highest_other_card():
    m = start(full_deal([TIMEOUT_HAND, WATCHER], upcard="9H", stock_top="JK"))
    assert romme.timeout_actions(m) == [{"action": "draw", "from": "stock"}, {"action": "discard", "card": "KD"}]
    m = act(m, draw(0))
    assert romme.timeout_actions(m) == [{"action": "discard", "card": "KD"}]


def test_timeout_after_taking_the_open_card_puts_it_back():
    m = act(start(full_deal([TIMEOUT_HAND, WATCHER], upcard="9H", stock_top="5S")), draw(0, "discard"))
    assert romme.timeout_actions(m) == [{"action": "discard", "card": "9H"}]


def _leaver_round(**options) -> romme.Match:
    """Three seats; seat 0 leaves before its first draw, the server plays it, seat 1 goes out at once."""
    deal = full_deal([_dead_hands(3)[0], QUICK, _dead_hands(3)[2]], upcard="9H", stock_top="5H KS")
    m = romme.resign(start(deal, dealer=2, rounds=1, **options), 0)
    assert m.to_act == 1 and romme.view(m, 1)["discard_top"] == "5H"  # the server drew and discarded the 5H
    return act(m, draw(1), lay(1, *QUICK_MELDS), discard(1, "KS"))


def test_a_seat_that_left_is_played_by_the_timeout_move_and_replay_checks_it():
    m = _leaver_round(tournament=True)
    rec = m.record()
    summary = replay(rec)
    assert summary["left"] == [True, False, False] and summary["results"][0] == -700
    assert summary["places"][0] == 3 and summary["winner"] == 1
    moves = rec["rounds"][0]["moves"]
    seat_0 = [mv for mv in moves if mv["seat"] == 0]
    assert seat_0 == [{"seat": 0, "action": "resign"}, draw(0), discard(0, "5H")]
    tampered = json.loads(json.dumps(rec))
    for mv in tampered["rounds"][0]["moves"]:
        if mv == discard(0, "5H"):
            mv["card"] = "2C"  # seat 0 holds a 2C, but its move is the server's: the drawn card
    with pytest.raises(InvalidRecord, match="round 1"):
        replay(tampered)


def test_resign_with_two_seats_ends_the_list_abbruch_minus_700_at_a_tournament_table():
    m = romme.resign(start(TABLE, dealer=0, tournament=True), 1)
    assert m.over and m.to_act is None
    result = result_of(m)
    assert result["final"][1] == -700 and result["winner"] == 0 and result["places"] == [1, 2]
    summary = replay(m.record())
    assert summary["results"][1] == -700 and summary["rounds"][0]["result"] == "abandoned"


def test_resign_in_a_casual_list_puts_the_leaver_last():
    m = _leaver_round()
    assert m.over and result_of(m)["places"] == [3, 1, 2]
    assert result_of(m)["final"] == [190, 0, 190]  # seats 0 and 2 are equal on points: the leaver comes last


# -- records: the documented example and the replay contract ----------------------------------------------


def _documented_example() -> tuple[dict, dict]:
    """The complete record and its summary, exactly as docs/records-romme.md shows them."""
    text = (ROOT / "docs" / "records-romme.md").read_text()
    blocks = [b.split("```", 1)[0] for b in text.split("```json")[1:]]
    return json.loads(blocks[0]), json.loads(blocks[1])


def test_documented_example_record_replays_to_the_documented_summary():
    example, summary = _documented_example()
    assert replay(example) == summary


def test_a_move_after_the_round_was_won_is_refused():
    example, _ = _documented_example()
    example["rounds"][0]["moves"].append(draw(0))
    with pytest.raises(InvalidRecord, match="move 17"):
        replay(example)


def test_a_round_after_the_list_was_over_is_refused():
    rec = record([quick_round(2, 1), quick_round(2, 0)], rounds=1)
    with pytest.raises(InvalidRecord, match="round 2"):
        replay(rec)


def test_an_unfinished_round_is_refused():
    example, _ = _documented_example()
    example["rounds"][0]["moves"].pop()
    with pytest.raises(InvalidRecord, match="round 1"):
        replay(example)


@pytest.mark.parametrize("bad_move", [
    {"seat": 1, "action": "draw", "from": "stock", "extra": 1},
    {"seat": 1, "action": "fly"},
    {"seat": 1, "action": "draw", "from": "top"},
    {"seat": 0, "action": "draw", "from": "stock"},
    {"seat": 7, "action": "draw", "from": "stock"},
    {"action": "draw", "from": "stock"},
    {"seat": 1, "action": "timeout_discard"},
])
def test_a_bad_first_move_is_refused_naming_round_and_move(bad_move):
    example, _ = _documented_example()
    example["rounds"][0]["moves"][0] = bad_move
    with pytest.raises(InvalidRecord, match="round 1.*move 0"):
        replay(example)


REPLAY_COMMAND = [sys.executable, str(ROOT / "manage.py"), "replay", "-"]


def test_manage_py_replay_prints_the_summary_and_exits_0():
    example, summary = _documented_example()
    done = subprocess.run(REPLAY_COMMAND, input=json.dumps(example), capture_output=True, text=True, cwd=ROOT,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == summary and len(done.stdout.strip().splitlines()) == 1


def test_manage_py_replay_of_an_illegal_record_one_stderr_line_nothing_on_stdout():
    example, _ = _documented_example()
    example["rounds"][0]["moves"][1]["melds"][0] = ["7H", "JK", "JK"]  # round 1, move 1: not a meld
    done = subprocess.run(REPLAY_COMMAND, input=json.dumps(example), capture_output=True, text=True, cwd=ROOT,
                          timeout=60)
    assert done.returncode != 0 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert "1" in line and "move" in line.lower()


def test_records_module_replays_romme_records():
    example, documented = _documented_example()
    assert outcomes.summary(replay_record(example)) == documented


# -- hidden information -----------------------------------------------------------------------------------

# Two deals alike in everything seat 0 may know (its hand, the upcard, seat 1's public moves) and
# different in everything it may not (seat 1's other cards, the stock order).
SEEN = "QS KS AS 7C 7S 7D 4D 5D 6D 8H 9C 2H 3S"
HIDDEN_A = full_deal([SEEN, "3C 5C 7C 9C JC KC 2D 4D 6D 8D TD QD AH"], upcard="5H", stock_top="9D KC 4C")
HIDDEN_B = full_deal([SEEN, "2C 2C 3C 4C 5C JK JK JK 8S 8S TH TH AH"], upcard="5H", stock_top="6S 2D AD")
PUBLIC_MOVES = [draw(1), discard(1, "AH"), draw(0, "discard"), discard(0, "AH"), draw(1, "discard"),
                discard(1, "AH")]


def _views(m: romme.Match) -> list[dict]:
    return [romme.view(m, seat) for seat in (0, None)]


def test_views_of_seat_0_and_a_spectator_do_not_depend_on_hidden_cards():
    a, b = start(HIDDEN_A, dealer=0), start(HIDDEN_B, dealer=0)
    assert _views(a) == _views(b)
    for move in PUBLIC_MOVES:
        a, b = act(a, move), act(b, move)
        assert _views(a) == _views(b), move
    assert romme.view(a, 1) != romme.view(b, 1)  # seat 1's own view does show its hand


def test_views_show_no_hand_of_another_seat_no_stock_no_deal():
    m = act(start(HIDDEN_B, dealer=0), *PUBLIC_MOVES[:2])
    for seat in (0, 1, None):
        v = romme.view(m, seat)
        text = json.dumps(v)
        assert not {"hands", "stock", "deal", "seed"} & set(v)
        assert ("hand" in v) == (seat is not None)
        if seat != 1:
            assert "JK" not in text and "8S" not in text  # seat 1's jokers and 8s are nowhere in sight
        if seat == 0:
            assert sorted(v["hand"]) == sorted(SEEN.split())


def test_only_the_seat_to_act_gets_legal_actions():
    m = start(HIDDEN_A, dealer=0)
    for mv in [None, *PUBLIC_MOVES]:
        if mv is not None:
            m = act(m, mv)
        for seat in (0, 1, None):
            v = romme.view(m, seat)
            assert ("legal_actions" in v) == (seat == m.to_act), (seat, m.to_act)
            if seat == m.to_act:
                assert v["legal_actions"] == romme.legal_actions(m)


def test_drawn_stock_card_shows_only_in_the_drawers_view():
    m = act(start(HIDDEN_A, dealer=0), draw(1))  # seat 1 drew the 9D
    assert "9D" in romme.view(m, 1)["hand"]
    for seat in (0, None):
        assert "9D" not in json.dumps(romme.view(m, seat))


# -- bad input gets a clear error and changes nothing -----------------------------------------------------


def test_a_draw_without_from_is_refused_with_a_clear_error():
    refused(start(TABLE, dealer=0), {"seat": 1, "action": "draw"}, match="from")


def test_an_action_name_that_is_not_a_string_is_refused_with_a_clear_error():
    refused(start(TABLE, dealer=0), {"seat": 1, "action": ["draw"], "from": "stock"})


def test_record_with_a_draw_without_from_is_refused_naming_round_and_move():
    example, _ = _documented_example()
    del example["rounds"][0]["moves"][4]["from"]
    with pytest.raises(InvalidRecord, match="round 1.*move 4"):
        replay(example)


def test_record_with_a_list_as_action_is_refused_naming_round_and_move():
    example, _ = _documented_example()
    example["rounds"][0]["moves"][7]["action"] = []
    with pytest.raises(InvalidRecord, match="round 1.*move 7"):
        replay(example)


def test_manage_py_replay_of_a_draw_without_from_fails_with_one_clear_line(tmp_path):
    from django.core.management import call_command
    from django.core.management.base import CommandError

    example, _ = _documented_example()
    del example["rounds"][0]["moves"][4]["from"]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(example))
    with pytest.raises(CommandError, match="round 1, move 4"):
        call_command("replay", str(path))


@pytest.mark.parametrize("bad", [
    "draw", None, 7, {}, {"action": "lay"}, {"action": "lay", "melds": "7H 8H 9H"},
    {"action": "lay", "melds": [["7H", "JK", "9H"]], "lay_offs": "5H"},
    {"action": "lay_off", "card": "5H", "meld": True}, {"action": "lay_off", "card": "5H", "meld": "2"},
    {"action": "lay_off", "card": "5H", "meld": 99}, {"action": "lay_off", "card": "5H", "meld": 2, "end": "top"},
    {"action": "swap", "meld": 1, "card": "8H"}, {"action": "swap", "meld": 1, "card": "8H", "then": "lay"},
    {"action": "discard"}, {"action": "discard", "card": "ZZ"}, {"action": "discard", "card": ["5H"]},
    {"action": "reshuffle", "stock": []}, {"action": "resign"}, {"action": "knock", "card": "5H"},
])
def test_malformed_actions_are_refused_and_change_nothing(bad):
    m = act(start(TABLE, dealer=0), draw(1, "discard"))
    before = json.dumps(m.to_json(), sort_keys=True)
    with pytest.raises(ValueError, match=r"\S"):
        romme.apply_action(m, 1, bad, rng=random.Random(0))
    assert json.dumps(m.to_json(), sort_keys=True) == before


# -- whole lists played by the computer players, checked from the outside ---------------------------------


def _strings(value) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


def _assert_no_secret_card(m: romme.Match, seat: int | None) -> None:
    """No card that only other hands or the stock hold shows anywhere in ``seat``'s view of the round."""
    v = romme.view(m, seat)
    public = set(_strings(v["melds"])) | set(_strings(v["history"])) | {v["discard_top"]}
    own = set(v.get("hand", []))
    deal = m.current_deal()
    hidden = {c for s, h in enumerate(deal["hands"]) if s != seat for c in h} | set(deal["stock"])
    secret = hidden - own - public
    shown = set(_strings({k: x for k, x in v.items() if k != "last_round"}))
    assert not shown & secret, (seat, shown & secret)


@settings(max_examples=12)
@given(seed=st.integers(0, 10**6), seats=st.integers(2, 6), level=st.sampled_from(["simple", "expert"]))
def test_bot_lists_keep_110_cards_every_listed_action_is_legal_and_the_record_replays(seed, seats, level):
    rng = random.Random(seed)
    m = romme.new_match({"rounds": 1, "tournament": seed % 2 == 1}, seats=seats, rng=rng)
    for _ in range(2000):
        if m.over:
            break
        seat = m.to_act
        v = romme.view(m, seat)
        for watcher in {seat, (seat + 1) % seats, None}:
            _assert_no_secret_card(m, watcher)
        on_table = sum(len(t["cards"]) for t in v["melds"])
        assert sum(v["hand_counts"]) + on_table + v["discard_size"] + v["stock_size"] == 110
        for action in v["legal_actions"]:
            romme.apply_action(m, seat, action, rng=random.Random(0))  # every listed action is accepted
        m = romme.apply_action(m, seat, bots.choose_action(v, level, rng), rng=rng)
    assert m.over
    summary = replay(m.record())
    assert summary["final"] == result_of(m)["final"] and summary["places"] == result_of(m)["places"]
    assert [r["result"] for r in summary["rounds"]] == [s["result"] for s in romme.view(m, None)["scores"]["rounds"]]


# -- more rule cases --------------------------------------------------------------------------------------


def _meld_by_the_rulebook(cards: list[str]) -> tuple[str, int] | None:
    """romme.md's meld rules written out independently: (kind, points) or None for no meld."""
    ranks = "A23456789TJQK"
    naturals = [c for c in cards if c != "JK"]
    if len(cards) < 3 or len(cards) - len(naturals) >= len(naturals):
        return None
    suits = [c[1] for c in naturals]
    if len({c[0] for c in naturals}) == 1:
        if len(set(suits)) != len(suits) or len(cards) > 4:
            return None
        rank = ranks.index(naturals[0][0]) + 1
        return "set", (11 if rank == 1 else min(rank, 10)) * len(cards)
    if len(set(suits)) != 1 or any(a == b == "JK" for a, b in zip(cards, cards[1:], strict=False)):
        return None
    for low in range(1, 15 - len(cards) + 1):
        high = low + len(cards) - 1
        if all(c == "JK" or ranks.index(c[0]) + 1 == (1 if low + i == 14 else low + i) for i, c in enumerate(cards)):
            return "run", sum(1 if p == 1 else 11 if p == 14 else min(p, 10) for p in range(low, high + 1))
    return None


MELD_POOL = ["AH", "2H", "3H", "4H", "TH", "JH", "QH", "KH", "AS", "2S", "KS", "AD", "KD", "7H", "7S", "7D",
             "7C", "8H", "9H", "JK", "JK"]


@settings(max_examples=400)
@given(st.lists(st.sampled_from(MELD_POOL), min_size=2, max_size=6))
def test_validate_meld_agrees_with_the_rulebook_on_any_cards(cards):
    try:
        meld = validate_meld(cards)
        got = (meld.kind, meld.points)
    except InvalidMeld:
        got = None
    assert got == _meld_by_the_rulebook(cards)


@settings(max_examples=200)
@given(low=st.integers(1, 14), size=st.integers(3, 14), jokers=st.sets(st.integers(0, 13), max_size=5))
def test_validate_meld_agrees_with_the_rulebook_on_long_runs_with_jokers(low, size, jokers):
    cards = ["JK" if i in jokers else "A23456789TJQK"[(low + i - 1) % 13] + "S" for i in range(size)]
    try:
        meld = validate_meld(cards)
        got = (meld.kind, meld.points)
    except InvalidMeld:
        got = None
    assert got == _meld_by_the_rulebook(cards)


def test_ace_lays_off_below_a_two_or_above_a_king_and_must_say_which_end():
    deal = full_deal(["2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", WATCHER], upcard="9C", stock_top="5D")
    m = act(start(deal), draw(0), lay(0, "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"))
    refused(m, lay_off(0, "AH", 1), match="end")
    assert melds_on_table(act(m, lay_off(0, "AH", 1, "low")))[0][0] == "AH"
    assert melds_on_table(act(m, lay_off(0, "AH", 1, "high")))[0][-1] == "AH"


def test_a_joker_may_be_discarded_as_the_last_card_when_that_discard_wins():
    deal = full_deal(["JK 2C 3C 4C AD 2D 3D AH 2H 3H 2S 3S 4S", WATCHER], upcard="9H", stock_top="5S")
    m = act(start(deal, rounds=1), draw(0), lay(0, "2C 3C 4C", "AD 2D 3D", "AH 2H 3H", "2S 3S 4S 5S"))
    assert hand(m, 0) == ["JK"]
    m = act(m, discard(0, "JK"))
    (rnd,) = replay(m.record())["rounds"]
    assert (rnd["result"], rnd["winner"], rnd["minus"]) == ("hand_romme", 0, [0, 190])


def test_a_list_is_twice_the_seats_long_by_default():
    rounds = [quick_round(2, dealer) for dealer in (1, 0, 1, 0)]
    rec = {"game": "romme", "options": {}, "rounds": [{"dealer": d, **deal, "moves": mv} for d, deal, mv in rounds]}
    assert replay(json.loads(json.dumps(rec)))["over"]
    three = json.loads(json.dumps(rec))
    three["rounds"].pop()
    assert not replay(three)["over"] and replay(three)["winner"] is None
    rec["rounds"].append({"dealer": 1, **quick_round(2, 1)[1], "moves": quick_round(2, 1)[2]})
    with pytest.raises(InvalidRecord, match="round 5"):
        replay(rec)


def test_nothing_to_reshuffle_ends_the_round_with_no_winner_and_no_points():
    # Unreachable by legal play (every stock draw adds a discard), so the state is built from a saved match.
    state = start(TABLE, dealer=0, tournament=True).to_json()
    state["round"]["stock"], state["round"]["discard_pile"] = [], ["5H"]
    m = romme.Match.from_json(state)
    assert romme.timeout_actions(m) == [{"action": "draw", "from": "stock"}]
    m = act(m, draw(1))
    last = live_view(m, 0)["last_round"]
    assert m.phase == "round_over" and last["result"] == "dead" and last["winner"] is None
    assert last["minus"] == [0, 0] and last["wertungspunkte"] == [0, 0]
    assert live_view(m, 0)["scores"]["augen"] == [0, 0]


def test_a_view_has_every_field_engine_md_names():
    m = act(start(TABLE, dealer=0), draw(1, "discard"))
    common = {"game", "options", "seat", "seats", "players", "round_number", "dealer", "to_act", "phase",
              "hand_counts", "discard_top", "discard_size", "stock_size", "history", "scores", "last_round",
              "over", "result", "melds", "opened"}
    spectator, waiting, acting = romme.view(m, None), romme.view(m, 0), romme.view(m, 1)
    assert common <= set(spectator) and "hand" not in spectator and "legal_actions" not in spectator
    assert common | {"hand"} <= set(waiting) and "legal_actions" not in waiting
    assert common | {"hand", "legal_actions"} <= set(acting)
    assert acting["history"] == [{"seat": 1, "action": "draw", "from": "discard", "card": "5H"}]
    assert acting["phase"] == "discard" and spectator["round_number"] == 1
