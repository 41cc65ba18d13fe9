"""The Rommé round state machine: one deal from the first draw to the winning discard (or a dead end).

A :class:`Round` is changed in place by :meth:`Round.apply`; callers that need the old state keep a
:meth:`Round.clone` (``match.apply_action`` always works on a clone, so a refused action changes nothing).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.engine.cards import ALL_CARDS, JOKER, RANKS, check_card, shuffled
from games.engine.errors import IllegalAction, InvalidCard
from games.engine.romme.melds import (
    RUN,
    SET,
    InvalidMeld,
    Meld,
    best_layout,
    best_opening,
    hand_augen,
    meld_codes_sorted,
    most_cards_layout,
    validate_meld,
)
from games.engine.romme.scoring import casual_minus

HAND_SIZE = 13
DRAW, DISCARD, OVER = "draw", "discard", "over"
ENDS = ("low", "high")

_FIELDS = {
    "draw": {"action", "from"},
    "lay": {"action", "melds", "lay_offs"},
    "lay_off": {"action", "card", "meld", "end"},
    "swap": {"action", "meld", "card", "then"},
    "discard": {"action", "card"},
    "timeout_discard": {"action"},
}


def plain_copy(value: Any) -> Any:
    """A copy of JSON-like data (dicts, lists, scalars): much quicker than ``copy.deepcopy``."""
    if isinstance(value, dict):
        return {k: plain_copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_copy(v) for v in value]
    return value


@dataclass(frozen=True)
class TableMeld:
    """A meld on the table: its number (1-based, in the order laid), who laid it, and the meld itself."""

    number: int
    owner: int
    meld: Meld

    def to_json(self) -> dict:
        return {
            "number": self.number,
            "owner": self.owner,
            "kind": self.meld.kind,
            "cards": list(self.meld.cards),
            "stands_for": list(self.meld.stands_for),
            "jokers": self.meld.joker_meanings(),
            "points": self.meld.points,
        }


def extended(meld: Meld, card: str, end: str | None) -> Meld | None:
    """The meld with ``card`` laid off on it (at ``end`` of a run), or None if it does not fit there."""
    if meld.kind == SET:
        if end is not None:
            return None
        candidates = [list(meld.cards) + [card]]
    else:
        candidates = []
        if end in (None, "low"):
            candidates.append([card] + list(meld.cards))
        if end in (None, "high"):
            candidates.append(list(meld.cards) + [card])
    for cards in candidates:
        try:
            return validate_meld(cards)
        except InvalidMeld:
            continue
    return None


def layoff_ends(meld: Meld, card: str) -> list[str | None]:
    """Where ``card`` could be laid off on ``meld``: ``[None]`` for a set, the fitting ends for a run.

    The same answer as trying ``extended`` (a property test checks that), without building melds: views,
    legal actions and bots ask this for every card and meld.
    """
    cards = meld.cards
    n = len(cards)
    jokers = cards.count(JOKER)
    naturals = n - jokers
    if card == JOKER:
        if jokers + 1 >= naturals:
            return []
        if meld.kind == SET:
            return [None] if n < 4 else []
        low = meld.low
        assert low is not None, "a run has its lowest position"
        high = low + n - 1
        ends: list[str | None] = []
        if low > 1 and cards[0] != JOKER:
            ends.append("low")
        if high < 14 and cards[-1] != JOKER:
            ends.append("high")
        return ends
    if meld.kind == SET:
        if n >= 4 or RANKS.index(card[0]) + 1 != meld.rank:
            return []
        if any(c == card for c in cards) or card[1] not in meld.open_suits:
            return []
        return [None]
    if card[1] != meld.suit:
        return []
    low = meld.low
    assert low is not None, "a run has its lowest position"
    high = low + n - 1
    rank = RANKS.index(card[0]) + 1
    # An ace fits below a 2 and above a king, also when the other end holds an ace already (A 2 … K A).
    ends = []
    if low > 1 and rank == low - 1:
        ends.append("low")
    if high < 14 and (rank == high + 1 or (rank == 1 and high == 13)):
        ends.append("high")
    return ends


def swappable(table: Sequence[tuple[int, int, Meld]]) -> list[tuple[int, str]]:
    """(meld number, card) of every joker on the table ((number, owner, meld) each) that may be swapped for that
    natural card: a joker of a set only from a set of four (the rules)."""
    return [(number, meaning) for number, _, meld in table if not (meld.kind == SET and len(meld.cards) < 4)
            for card, meaning in zip(meld.cards, meld.stands_for, strict=True) if card == JOKER and meaning]


def swap_lays(hand: Sequence[str], table: Sequence[tuple[int, int, Meld]], opening_points: int | None = None
              ) -> list[tuple[int, dict]]:
    """Per joker of the table whose card the hand holds, the swap whose freed joker makes new melds with the hand
    (the solver's layout of the hand with the joker instead of the card, keeping a card to discard), with the Augen
    it leaves: (augen, action). With ``opening_points`` (a seat that has not opened) only a swap whose lay opens,
    its Augen the opening's value negated (the most valuable opening first). The expert's swap is the first of
    these with the fewest Augen; the legal actions list them all, so the table page offers each."""
    found: list[tuple[int, dict]] = []
    for number, meaning in swappable(table):
        if meaning not in hand:
            continue
        rest = list(hand)
        rest.remove(meaning)
        rest.append(JOKER)
        if opening_points is None:
            melds, augen = best_layout(rest)
        else:
            opening = best_opening(rest, opening_points=opening_points)
            melds, augen = (opening.melds, -opening.value) if opening.reaches else ((), 0)
        if melds:
            found.append((augen, {"action": "swap", "meld": number, "card": meaning,
                                  "then": {"action": "lay", "melds": [list(m) for m in melds]}}))
    return found


def laid_off_on_others(moves: Sequence[dict], seats: int) -> list[bool]:
    """Per seat: whether it laid off a card on, or swapped a joker out of, another player's meld in ``moves``
    (a whole round's moves as recorded, so meld numbers count the melds in the order they were laid). For
    states and results stored before rounds kept this themselves.

    >>> laid_off_on_others([
    ...     {"seat": 0, "action": "lay", "melds": [["5C", "5S", "5D"]]},
    ...     {"seat": 1, "action": "lay", "melds": [["7H", "8H", "9H"]], "lay_offs": [{"card": "5H", "meld": 1}]},
    ...     {"seat": 0, "action": "lay_off", "card": "TH", "meld": 2, "end": "high"}], seats=3)
    [True, True, False]
    """
    owners: list[int] = []
    laid_off = [False] * seats

    def walk(seat: int, action: dict) -> None:
        kind = action.get("action")
        if kind == "lay":
            owners.extend([seat] * len(action["melds"]))
            for item in action.get("lay_offs", []):
                laid_off[seat] |= owners[item["meld"] - 1] != seat
        elif kind == "lay_off":
            laid_off[seat] |= owners[action["meld"] - 1] != seat
        elif kind == "swap":
            laid_off[seat] |= owners[action["meld"] - 1] != seat
            walk(seat, action["then"])

    for move in moves:
        walk(move["seat"], move)
    return laid_off


#: The facts of a finished round, in this order (``Round.result``).
RESULT_KEYS = ("result", "winner", "hand_romme", "augen", "minus", "opened", "laid_off", "hands", "melds")


def upgraded_result(result: dict, moves: Sequence[dict], seats: int) -> dict:
    """A round result as stored before rounds reported who laid off on others' melds (they stored the
    Wertungspunkte instead): the facts of today, ``laid_off`` found again from the round's moves."""
    if "laid_off" in result:
        return result
    facts = {**result, "laid_off": laid_off_on_others(moves, seats)}
    return {key: facts[key] for key in RESULT_KEYS}


class Round:
    """One round of Rommé for 2–6 seats."""

    def __init__(self, *, seats: int, dealer: int, hands: list[list[str]], upcard: str, stock: list[str],
                 opening_points: int):
        self.seats = seats
        self.dealer = dealer
        self.opening_points = opening_points
        self.deal = {"dealer": dealer, "hands": [list(h) for h in hands], "upcard": upcard, "stock": list(stock)}
        self.hands = [list(h) for h in hands]
        self.stock = list(stock)  # top first
        self.discard_pile = [upcard]  # top last
        self.melds: list[TableMeld] = []
        self.opened = [False] * seats
        # Per seat: has laid off on, or swapped a joker out of, another player's meld this round (Masters WP).
        self.laid_off = [False] * seats
        self.to_act: int | None = (dealer + 1) % seats
        self.phase = DRAW
        self.moves: list[dict] = []
        self.result: dict | None = None
        self._new_turn()

    # -- state -------------------------------------------------------------------------------------------

    def _new_turn(self) -> None:
        self.drawn_from: str | None = None
        self.drawn_card: str | None = None
        self.laid_this_turn = False
        self.opened_before_turn = self.opened[self.to_act] if self.to_act is not None else False

    def clone(self) -> Round:
        other = Round.__new__(Round)
        other.__dict__.update(self.__dict__)
        other.hands = [list(h) for h in self.hands]
        other.stock = list(self.stock)
        other.discard_pile = list(self.discard_pile)
        other.melds = list(self.melds)
        other.opened = list(self.opened)
        other.laid_off = list(self.laid_off)
        other.moves = list(self.moves)
        return other

    def to_json(self) -> dict:
        return {
            "seats": self.seats, "dealer": self.dealer, "opening_points": self.opening_points,
            "deal": self.deal, "hands": self.hands, "stock": self.stock, "discard_pile": self.discard_pile,
            "melds": [{"number": t.number, "owner": t.owner, "cards": list(t.meld.cards)} for t in self.melds],
            "opened": self.opened, "laid_off": self.laid_off, "to_act": self.to_act, "phase": self.phase,
            "moves": self.moves, "result": self.result, "drawn_from": self.drawn_from, "drawn_card": self.drawn_card,
            "laid_this_turn": self.laid_this_turn, "opened_before_turn": self.opened_before_turn,
        }

    @classmethod
    def from_json(cls, d: dict) -> Round:
        r = cls.__new__(cls)
        r.seats, r.dealer, r.opening_points = d["seats"], d["dealer"], d["opening_points"]
        r.deal = d["deal"]
        r.hands = [list(h) for h in d["hands"]]
        r.stock, r.discard_pile = list(d["stock"]), list(d["discard_pile"])
        r.melds = [TableMeld(t["number"], t["owner"], validate_meld(t["cards"])) for t in d["melds"]]
        r.opened, r.to_act, r.phase = list(d["opened"]), d["to_act"], d["phase"]
        r.moves = list(d["moves"])
        # Rounds stored before they kept who laid off on others' melds: found again from the moves.
        r.laid_off = list(d["laid_off"]) if "laid_off" in d else laid_off_on_others(r.moves, r.seats)
        r.result = upgraded_result(d["result"], r.moves, r.seats) if d["result"] is not None else None
        r.drawn_from, r.drawn_card = d["drawn_from"], d["drawn_card"]
        r.laid_this_turn = d["laid_this_turn"]
        r.opened_before_turn = d["opened_before_turn"]
        return r

    @property
    def over(self) -> bool:
        return self.phase == OVER

    def meld(self, number: object) -> TableMeld:
        if isinstance(number, bool) or not isinstance(number, int):
            raise IllegalAction(f"meld must be a meld number (1–{len(self.melds)}), not {number!r}")
        if not 1 <= number <= len(self.melds):
            raise IllegalAction(f"there is no meld {number} on the table ({len(self.melds)} melds)")
        return self.melds[number - 1]

    # -- actions -----------------------------------------------------------------------------------------

    def apply(self, seat: int, action: object, rng: random.Random | None = None) -> None:
        """Apply one player action; raise :class:`IllegalAction` saying why it is refused.

        ``rng`` reshuffles the discard pile into a new stock when a player draws from an empty stock; without
        one that draw is refused (a replay plays the recorded ``reshuffle`` move instead).
        """
        if self.phase == OVER:
            raise IllegalAction("the round is over")
        if seat != self.to_act:
            raise IllegalAction(f"it is seat {self.to_act}'s turn, not seat {seat}'s")
        kind = self._check_shape(action)
        assert isinstance(action, dict)
        if kind == "draw":
            self._draw(seat, action.get("from"), rng)
            return
        if self.phase != DISCARD:
            raise IllegalAction(f"draw first: {kind} comes after drawing a card")
        if kind == "discard":
            self._discard(seat, action.get("card"))
            return
        if kind == "timeout_discard":
            # The server's discard after a timeout whose draw needed a reshuffle (recorded as a discard).
            self._discard(seat, self.timeout_discard(seat))
            return
        jokers_before = self.hands[seat].count(JOKER)
        self._lay_action(seat, action, jokers_before)
        self.moves.append({"seat": seat, **plain_copy(action)})

    def _check_shape(self, action: object) -> str:
        if not isinstance(action, dict):
            raise IllegalAction(f"an action is an object like {{'action': 'draw', 'from': 'stock'}}, not {action!r}")
        kind = action.get("action")
        if not isinstance(kind, str):
            raise IllegalAction(f"an action needs 'action': draw, lay, lay_off, swap or discard (not {kind!r})")
        if kind == "reshuffle":
            raise IllegalAction("reshuffle is a system move: the server reshuffles when the stock is empty")
        if kind not in _FIELDS:
            raise IllegalAction(f"unknown action {kind!r} (draw, lay, lay_off, swap, discard)")
        unknown = set(action) - _FIELDS[kind]
        if unknown:
            raise IllegalAction(f"unknown field(s) for {kind}: {', '.join(sorted(map(str, unknown)))}")
        return kind

    def _card(self, seat: int, card: object, *, what: str = "card") -> str:
        try:
            code = check_card(card, allow_joker=True)
        except InvalidCard as exc:
            raise IllegalAction(f"{what}: {exc}") from None
        if code not in self.hands[seat]:
            raise IllegalAction(f"{code} is not in your hand")
        return code

    def _draw(self, seat: int, source: object, rng: random.Random | None) -> None:
        if self.phase != DRAW:
            raise IllegalAction("you have drawn already: lay out or discard")
        if source == "stock":
            if not self.stock:
                if len(self.discard_pile) < 2:
                    # Nothing to shuffle: the round ends without a winner.
                    self.moves.append({"seat": seat, "action": "draw", "from": "stock"})
                    self._finish(winner=None, result="dead")
                    return
                if rng is None:
                    raise IllegalAction("the stock is empty: it must be reshuffled first (a reshuffle move)")
                self.reshuffle(seat, shuffled(self.discard_pile[:-1], rng))
            card = self.stock.pop(0)
        elif source == "discard":
            if not self.discard_pile:
                raise IllegalAction("the discard pile is empty: draw from the stock")
            card = self.discard_pile[-1]
            if len(self.hands[seat]) == 1 and self.one_card_rule_forbids(seat):
                raise IllegalAction(
                    "one-card rule: holding a single card you may not take the discard when with it you could "
                    "end the round"
                )
            self.discard_pile.pop()
        else:
            raise IllegalAction(f"draw from 'stock' or 'discard', not {source!r}")
        self.hands[seat].append(card)
        self.drawn_from, self.drawn_card = str(source), card  # source is "stock" or "discard" here
        self.phase = DISCARD
        self.moves.append({"seat": seat, "action": "draw", "from": source})

    def reshuffle(self, seat: int, stock: Sequence[str]) -> None:
        """Turn the discard pile except its top card into the new stock, in the order given (top first)."""
        if self.phase != DRAW or seat != self.to_act:
            raise IllegalAction("a reshuffle happens only when the player to draw finds the stock empty")
        if self.stock:
            raise IllegalAction("the stock is not empty: nothing to reshuffle")
        if not isinstance(stock, list | tuple) or not all(isinstance(c, str) for c in stock) \
                or Counter(stock) != Counter(self.discard_pile[:-1]):
            raise IllegalAction("the new stock must be exactly the discard pile without its top card")
        if not stock:
            raise IllegalAction("nothing to reshuffle")
        self.stock = list(stock)
        self.discard_pile = self.discard_pile[-1:]
        self.moves.append({"seat": seat, "action": "reshuffle", "stock": list(stock)})

    def one_card_rule_forbids(self, seat: int) -> bool:
        """True if a player holding one card could end the round with the open card (so may not take it)."""
        if not self.discard_pile or len(self.hands[seat]) != 1:
            return False
        cards = (self.hands[seat][0], self.discard_pile[-1])
        return any(layoff_ends(t.meld, card) for card in cards for t in self.melds)

    def _discard(self, seat: int, card: object) -> None:
        code = self._card(seat, card)
        hand = self.hands[seat]
        if code == JOKER:
            straight_back = self.drawn_from == "discard" and self.drawn_card == JOKER and not self.laid_this_turn
            if len(hand) > 1 and not straight_back and any(c != JOKER for c in hand):
                raise IllegalAction("a joker may not be discarded, except as the last card when that discard wins")
        hand.remove(code)
        self.discard_pile.append(code)
        self.moves.append({"seat": seat, "action": "discard", "card": code})
        if not hand:
            self._finish(winner=seat, result="hand_romme" if not self.opened_before_turn else "romme")
            return
        if self.cannot_be_won():
            # As when there is nothing to shuffle: the round ends without a winner and no points.
            self._finish(winner=None, result="dead")
            return
        self.to_act = (seat + 1) % self.seats
        self.phase = DRAW
        self._new_turn()

    def cannot_be_won(self) -> bool:
        """True when nobody can ever go out: every player holds a single card and no card of the deck fits any
        meld on the table. A turn then holds two cards at most: too few to lay a meld and keep one to discard;
        nothing can be laid off, and a joker taken by a swap could be laid nowhere; a joker may not be
        discarded while another card is held. So every turn is a draw and a discard, for ever (the stock is
        reshuffled from the discard pile). Read as the rule for an empty stock with nothing to shuffle: no
        winner, no points. (Only this provable case: with a player holding more cards the round plays on.)"""
        if any(len(hand) != 1 for hand in self.hands):
            return False
        return not any(layoff_ends(t.meld, card) for t in self.melds for card in (*ALL_CARDS, JOKER))

    def _lay_action(self, seat: int, action: dict, jokers_before: int) -> None:
        kind = action["action"]
        if kind == "lay":
            self._lay(seat, action.get("melds"), action.get("lay_offs", []))
        elif kind == "lay_off":
            if not self.opened[seat]:
                raise IllegalAction("lay off only after opening (your first melds come first)")
            self._lay_off(seat, action.get("card"), action.get("meld"), action.get("end"))
        else:
            self._swap(seat, action)
        if not self.hands[seat]:
            raise IllegalAction("you must keep a card to discard: no action may empty your hand")
        if kind == "swap" and self.hands[seat].count(JOKER) > jokers_before:
            raise IllegalAction("the joker taken in a swap must be laid out or laid off in the same action")
        self.laid_this_turn = True

    def _lay(self, seat: int, melds: object, lay_offs: object) -> None:
        if not isinstance(melds, list) or not melds:
            raise IllegalAction("lay needs 'melds': a list of one or more melds, each a list of cards")
        if not isinstance(lay_offs, list):
            raise IllegalAction("lay_offs must be a list of {'card', 'meld'(, 'end')} objects")
        checked: list[Meld] = []
        for i, cards in enumerate(melds, start=1):
            try:
                checked.append(validate_meld(cards))
            except InvalidMeld as exc:
                raise IllegalAction(f"meld {i} of {len(melds)}: {exc}") from None
        need = Counter(c for m in checked for c in m.cards)
        for item in lay_offs:
            if isinstance(item, dict) and isinstance(item.get("card"), str):
                need[item["card"]] += 1
        missing = need - Counter(self.hands[seat])
        if missing:
            raise IllegalAction(f"not in your hand: {' '.join(sorted(missing.elements()))}")
        value = sum(m.points for m in checked)
        opening = not self.opened[seat]
        laid = sum(need.values())
        if opening and value < self.opening_points and len(self.hands[seat]) - laid != 1:
            raise IllegalAction(
                f"an opening must be worth at least {self.opening_points} points in one action; these melds are "
                f"worth {value} (below that only a Hand-Rommé may open: laying out all cards but the discard)"
            )
        for meld in checked:
            for card in meld.cards:
                self.hands[seat].remove(card)
            self.melds.append(TableMeld(len(self.melds) + 1, seat, meld))
        self.opened[seat] = True
        for item in lay_offs:
            if not isinstance(item, dict) or set(item) - {"card", "meld", "end"}:
                raise IllegalAction("each lay-off is an object {'card', 'meld'} with an optional 'end'")
            self._lay_off(seat, item.get("card"), item.get("meld"), item.get("end"))

    def _lay_off(self, seat: int, card: object, number: object, end: object) -> None:
        code = self._card(seat, card)
        table = self.meld(number)
        if end is not None and end not in ENDS:
            raise IllegalAction(f"end must be 'low' or 'high', not {end!r}")
        if table.meld.kind == SET and end is not None:
            raise IllegalAction(f"meld {table.number} is a set: it has no ends")
        where = f" at the {end} end" if end else ""
        if end is None and table.meld.kind == RUN:
            ends = layoff_ends(table.meld, code)
            if len(ends) > 1:
                raise IllegalAction(f"{code} fits at both ends of meld {table.number}: say 'end': 'low' or 'high'")
            end = ends[0] if ends else "high"
        new = extended(table.meld, code, end if end is None else str(end))
        if new is None:
            raise IllegalAction(f"{code} does not fit on meld {table.number}{where} ({' '.join(table.meld.cards)})")
        self.hands[seat].remove(code)
        self.melds[table.number - 1] = TableMeld(table.number, table.owner, new)
        if table.owner != seat:
            self.laid_off[seat] = True

    def _swap(self, seat: int, action: dict) -> None:
        then = action.get("then")
        if not self.opened[seat] and not (isinstance(then, dict) and then.get("action") in ("lay", "swap")):
            # Before opening, a swap can only be part of the opening itself: its 'then' is the opening lay
            # (which must reach the minimum, or lay out everything but the discard for a Hand-Rommé).
            raise IllegalAction("a joker swap is allowed only after opening, or as part of the opening lay")
        table = self.meld(action.get("meld"))
        card = action.get("card")
        code = self._card(seat, card)
        if code == JOKER:
            raise IllegalAction("swap a joker for the natural card it stands for, not for another joker")
        meld = table.meld
        if meld.kind == SET and len(meld.cards) < 4:
            raise IllegalAction("a joker in a set may be swapped only when the set holds 4 cards")
        positions = [i for i, (c, s) in enumerate(zip(meld.cards, meld.stands_for, strict=True))
                     if c == JOKER and s == code]
        if not positions:
            if JOKER not in meld.cards:
                raise IllegalAction(f"meld {table.number} holds no joker")
            meanings = ", ".join(s for c, s in zip(meld.cards, meld.stands_for, strict=True) if c == JOKER and s)
            raise IllegalAction(f"no joker in meld {table.number} stands for {code} (it stands for {meanings})")
        if not isinstance(then, dict) or then.get("action") not in ("lay", "lay_off", "swap"):
            raise IllegalAction("a swap needs 'then': the lay or lay_off that lays the freed joker")
        cards = list(meld.cards)
        cards[positions[0]] = code
        self.melds[table.number - 1] = TableMeld(table.number, table.owner, validate_meld(cards))
        self.hands[seat].remove(code)
        self.hands[seat].append(JOKER)
        if table.owner != seat:
            self.laid_off[seat] = True
        self._check_shape(then)
        self._lay_action(seat, then, self.hands[seat].count(JOKER))

    def resign_move(self, seat: int) -> None:
        self.moves.append({"seat": seat, "action": "resign"})

    def abandon(self) -> None:
        """End the round without a winner because fewer than two players are left."""
        if self.phase != OVER:
            self._finish(winner=None, result="abandoned")

    def _finish(self, *, winner: int | None, result: str) -> None:
        self.phase = OVER
        hand_romme = result == "hand_romme"
        augen = [sum(hand_augen(c) for c in hand) for hand in self.hands]
        self.result = {
            "result": result,
            "winner": winner,
            "hand_romme": hand_romme,
            "augen": augen,
            "minus": casual_minus(augen=augen, winner=winner, hand_romme=hand_romme),
            "opened": list(self.opened),
            "laid_off": list(self.laid_off),
            "hands": [meld_codes_sorted(h) for h in self.hands],
            "melds": [t.to_json() for t in self.melds],
        }
        self.to_act = None

    # -- what may be done --------------------------------------------------------------------------------

    def legal_actions(self) -> list[dict]:
        """Every draw, discard and lay-off the seat to act may send now, plus the solver's lays and swaps (a swap
        whose freed joker is laid off, and one whose joker goes into new melds or, before opening, the opening).

        Lays cannot all be listed (any meld of the hand may be laid): the list holds the best opening or
        lay-out the solver finds; the server accepts every legal lay, listed or not.
        """
        if self.phase == OVER or self.to_act is None:
            return []
        seat = self.to_act
        hand = self.hands[seat]
        if self.phase == DRAW:
            draws: list[dict] = [{"action": "draw", "from": "stock"}]
            if self.discard_pile and not (len(hand) == 1 and self.one_card_rule_forbids(seat)):
                draws.append({"action": "draw", "from": "discard"})
            return draws
        actions: list[dict] = []
        distinct = meld_codes_sorted(set(hand))
        for card in distinct:
            if card != JOKER or self._joker_discard_allowed(seat):
                actions.append({"action": "discard", "card": card})
        if len(hand) >= 2:
            if self.opened[seat]:
                for card in distinct:
                    for t in self.melds:
                        ends = layoff_ends(t.meld, card)
                        for end in ends:
                            action: dict = {"action": "lay_off", "card": card, "meld": t.number}
                            if len(ends) > 1:
                                action["end"] = end
                            actions.append(action)
                actions.extend(self._swap_suggestions(seat))
            else:
                actions.extend(self._swap_lay_suggestions(seat))  # a swap into the opening
            lay = self._lay_suggestion(seat)
            if lay:
                actions.append(lay)
        return actions

    def _joker_discard_allowed(self, seat: int) -> bool:
        hand = self.hands[seat]
        straight_back = self.drawn_from == "discard" and self.drawn_card == JOKER and not self.laid_this_turn
        return len(hand) == 1 or straight_back or all(c == JOKER for c in hand)

    def _lay_suggestion(self, seat: int) -> dict | None:
        hand = self.hands[seat]
        if self.opened[seat]:
            melds = most_cards_layout(hand)
            return {"action": "lay", "melds": [list(m) for m in melds]} if melds else None
        opening = best_opening(hand, opening_points=self.opening_points)
        if opening.reaches:
            return {"action": "lay", "melds": [list(m) for m in opening.melds]}
        melds = most_cards_layout(hand)
        if melds and sum(len(m) for m in melds) == len(hand) - 1:
            return {"action": "lay", "melds": [list(m) for m in melds]}  # a Hand-Rommé below the minimum
        return None

    def _swap_suggestions(self, seat: int) -> list[dict]:
        hand = self.hands[seat]
        suggestions = []
        for t in self.melds:
            meld = t.meld
            if meld.kind == SET and len(meld.cards) < 4:
                continue
            for card, meaning in zip(meld.cards, meld.stands_for, strict=True):
                if card != JOKER or meaning not in hand or len(hand) < 3:
                    continue
                trial = self.clone()
                cards = list(meld.cards)
                cards[next(i for i, (c, s) in enumerate(zip(meld.cards, meld.stands_for, strict=True))
                           if c == JOKER and s == meaning)] = meaning
                trial.melds[t.number - 1] = TableMeld(t.number, t.owner, validate_meld(cards))
                for other in trial.melds:
                    ends = layoff_ends(other.meld, JOKER)
                    if ends:
                        then = {"action": "lay_off", "card": JOKER, "meld": other.number}
                        if len(ends) > 1:
                            then["end"] = ends[0]
                        suggestions.append({"action": "swap", "meld": t.number, "card": meaning, "then": then})
                        break
        return suggestions + self._swap_lay_suggestions(seat)

    def _swap_lay_suggestions(self, seat: int) -> list[dict]:
        """The swaps whose freed joker goes into new melds (``swap_lays``; before opening, into the opening),
        each one the engine accepts here."""
        hand = self.hands[seat]
        if len(hand) < 3:
            return []
        table = [(t.number, t.owner, t.meld) for t in self.melds]
        limit = None if self.opened[seat] else self.opening_points
        accepted = []
        for _, action in swap_lays(hand, table, opening_points=limit):
            try:
                self.clone().apply(seat, action)
            except IllegalAction:
                continue
            accepted.append(action)
        return accepted

    def timeout_discard(self, seat: int) -> str:
        """The card the server discards for a player whose time ran out after drawing."""
        hand = self.hands[seat]
        if self.drawn_card in hand and self.drawn_card != JOKER:
            return self.drawn_card
        naturals = [c for c in hand if c != JOKER]
        if not naturals:
            return JOKER
        return max(meld_codes_sorted(naturals), key=hand_augen)

    def timeout_actions(self) -> list[dict]:
        """The server's move when the turn time runs out (see ``match.timeout_actions``)."""
        if self.phase == OVER or self.to_act is None:
            return []
        seat = self.to_act
        if self.phase == DRAW:
            draw = {"action": "draw", "from": "stock"}
            if not self.stock and len(self.discard_pile) < 2:
                return [draw]  # nothing to reshuffle: this draw ends the round
            if not self.stock:
                return [draw, {"action": "timeout_discard"}]  # the drawn card is known after the reshuffle
            trial = self.clone()
            trial.apply(seat, draw)
            return [draw, {"action": "discard", "card": trial.timeout_discard(seat)}]
        return [{"action": "discard", "card": self.timeout_discard(seat)}]
