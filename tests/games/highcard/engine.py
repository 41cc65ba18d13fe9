"""The rules of high card, as a match module of ``games.engine.interface.MatchEngine``.

Each seat is dealt two cards from a shuffled 52-card deck. From the seat after the dealer, each seat plays one
card face up; once every seat has played, the highest rank wins the round (ace high; the same rank twice: a
tie, nobody wins). A match is ``rounds`` rounds (1 unless the options say), the deal passing to the left; the
most rounds won wins it. A seat that leaves ends the match and places last.

>>> import random
>>> m = new_match({}, rng=random.Random(1))
>>> m.phase, len(m.hands[0]), legal_actions(m)[0]["action"]
('play', 2, 'play')
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from games.engine.cards import gin_deck, rank_of
from games.engine.errors import IllegalAction

GAME = "highcard"
SEATS = (2, 2)
DEFAULTS = {"rounds": 1, "turn_seconds": 45}

JSON = dict[str, Any]


def normalize_options(options: JSON | None, *, seats: int | None = None) -> JSON:
    """Defaults filled in and checked: ``seats`` 2, ``rounds`` 1–9, ``turn_seconds`` 10–600."""
    given = dict(options or {})
    unknown = set(given) - {"seats", "rounds", "turn_seconds"}
    if unknown:
        raise ValueError(f"unknown option {sorted(unknown)[0]!r}")
    out = {**DEFAULTS, **given, "seats": seats if seats is not None else given.get("seats", 2)}
    if out["seats"] != 2:
        raise ValueError("high card is played by 2")
    for name, low, high in (("rounds", 1, 9), ("turn_seconds", 10, 600)):
        value = out[name]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"{name} must be a whole number from {low} to {high}")
    return out


def _strength(card: str) -> int:
    rank = rank_of(card)
    return 14 if rank == 1 else rank


@dataclass(frozen=True)
class Match:
    """A high-card match: the round in play, the finished rounds' records and results, who left."""

    options: JSON
    players: tuple | None
    round_number: int
    dealer: int
    deal: JSON
    hands: tuple[tuple[str, ...], ...]
    moves: tuple[JSON, ...] = ()
    records: tuple[JSON, ...] = ()
    results: tuple[JSON, ...] = ()
    left: tuple[bool, ...] = (False, False)

    @property
    def seats(self) -> int:
        return self.options["seats"]

    @property
    def over(self) -> bool:
        return any(self.left) or len(self.results) >= self.options["rounds"]

    @property
    def round_over(self) -> bool:
        return len(self.moves) == self.seats

    @property
    def to_act(self) -> int | None:
        if self.over or self.round_over:
            return None
        return (self.dealer + 1 + len(self.moves)) % self.seats

    @property
    def phase(self) -> str:
        if self.over:
            return "match_over"
        return "round_over" if self.round_over else "play"

    def to_json(self) -> JSON:
        return {"options": self.options, "players": list(self.players) if self.players is not None else None,
                "round_number": self.round_number, "dealer": self.dealer, "deal": self.deal,
                "hands": [list(h) for h in self.hands], "moves": list(self.moves), "records": list(self.records),
                "results": list(self.results), "left": list(self.left)}

    @classmethod
    def from_json(cls, data: JSON) -> Match:
        return cls(options=data["options"], players=tuple(data["players"]) if data["players"] is not None else None,
                   round_number=data["round_number"], dealer=data["dealer"], deal=data["deal"],
                   hands=tuple(tuple(h) for h in data["hands"]), moves=tuple(data["moves"]),
                   records=tuple(data["records"]), results=tuple(data["results"]), left=tuple(data["left"]))

    def record(self) -> JSON:
        return {"game": GAME, "options": self.options, "players": list(self.players or ()),
                "rounds": list(self.records)}

    def current_deal(self) -> JSON:
        return self.deal

    def facts(self) -> JSON:
        totals = [sum(1 for r in self.results if r["winner"] == seat) for seat in range(self.seats)]
        return {"game": GAME, "options": self.options, "seats": self.seats, "rounds": list(self.results),
                "totals": totals, "left": list(self.left), "over": self.over}


def _dealt(dealer: int, seats: int, rng: random.Random) -> tuple[JSON, tuple[tuple[str, ...], ...]]:
    deck = gin_deck()
    rng.shuffle(deck)
    hands = [sorted(deck[2 * seat: 2 * seat + 2]) for seat in range(seats)]
    deal = {"dealer": dealer, "hands": hands, "upcard": None, "stock": deck[2 * seats:]}
    return deal, tuple(tuple(h) for h in hands)


def match_from_deal(options: JSON, *, players: Sequence[str] | None, dealer: int, hands: list, upcard=None,
                    stock=()) -> Match:
    """A match whose first round is the given deal (for a replay)."""
    options = normalize_options(options)
    deal = {"dealer": dealer, "hands": [list(h) for h in hands], "upcard": upcard, "stock": list(stock)}
    return Match(options=options, players=tuple(players) if players is not None else None, round_number=1,
                 dealer=dealer, deal=deal, hands=tuple(tuple(h) for h in hands))


def new_match(options: JSON | None, *, seats: int | None = None, rng: random.Random,
              players: Sequence[str] | None = None) -> Match:
    options = normalize_options(options, seats=seats)
    dealer = rng.randrange(options["seats"])
    deal, hands = _dealt(dealer, options["seats"], rng)
    return Match(options=options, players=tuple(players) if players is not None else None, round_number=1,
                 dealer=dealer, deal=deal, hands=hands)


def legal_actions(m: Match) -> list[JSON]:
    if m.to_act is None:
        return []
    return [{"action": "play", "card": card} for card in m.hands[m.to_act]]


def _round_result(m: Match) -> JSON:
    cards = [None] * m.seats
    for move in m.moves:
        cards[move["seat"]] = move["card"]
    best = max(_strength(c) for c in cards)
    first = [seat for seat, c in enumerate(cards) if _strength(c) == best]
    winner = first[0] if len(first) == 1 else None
    return {"round": m.round_number, "result": "high" if winner is not None else "tie", "winner": winner,
            "cards": cards}


def apply_action(m: Match, seat: int, action: JSON, *, rng: random.Random | None = None) -> Match:
    if m.to_act != seat:
        raise IllegalAction(f"seat {seat} is not to act")
    if not isinstance(action, dict) or action.get("action") != "play" or set(action) != {"action", "card"}:
        raise IllegalAction('the one action is {"action": "play", "card": ...}')
    card = action["card"]
    if card not in m.hands[seat]:
        raise IllegalAction(f"{card!r} is not in the hand")
    hands = list(m.hands)
    hands[seat] = tuple(c for c in hands[seat] if c != card)
    m = replace(m, hands=tuple(hands), moves=(*m.moves, {"seat": seat, "action": "play", "card": card}))
    if m.round_over:
        record = {**m.deal, "moves": list(m.moves)}
        m = replace(m, records=(*m.records, record), results=(*m.results, _round_result(m)))
    return m


def timeout_actions(m: Match) -> list[JSON]:
    """Out of time: the lowest card is played."""
    if m.to_act is None:
        return []
    return [{"action": "play", "card": min(m.hands[m.to_act], key=_strength)}]


def deal_next_round(m: Match, rng: random.Random) -> Match:
    if m.phase != "round_over":
        raise IllegalAction("the round is not over")
    dealer = (m.dealer + 1) % m.seats
    deal, hands = _dealt(dealer, m.seats, rng)
    return replace(m, round_number=m.round_number + 1, dealer=dealer, deal=deal, hands=hands, moves=())


def next_round_from_deal(m: Match, *, dealer: int, hands: list, upcard=None, stock=()) -> Match:
    deal = {"dealer": dealer, "hands": [list(h) for h in hands], "upcard": upcard, "stock": list(stock)}
    return replace(m, round_number=m.round_number + 1, dealer=dealer, deal=deal,
                   hands=tuple(tuple(h) for h in hands), moves=())


def resign(m: Match, seat: int, *, rng: random.Random | None = None) -> Match:
    if m.over:
        raise IllegalAction("the match is over")
    left = list(m.left)
    left[seat] = True
    return replace(m, left=tuple(left))


def view(m: Match, seat: int | None) -> JSON:
    """What ``seat`` may see: its own hand, the cards played this round, the facts so far."""
    out: JSON = {
        "game": GAME, "options": dict(m.options), "seat": seat, "seats": m.seats,
        "players": list(m.players) if m.players is not None else None, "round_number": m.round_number,
        "dealer": m.dealer, "to_act": m.to_act, "phase": m.phase, "hand_counts": [len(h) for h in m.hands],
        "history": [dict(move) for move in m.moves], "scores": m.facts(),
        "last_round": dict(m.results[-1]) if m.results else None, "over": m.over, "result": None,
    }
    if seat is not None:
        out["hand"] = list(m.hands[seat])
        out["legal_actions"] = legal_actions(m) if m.to_act == seat else []
    return out


def replay(record: JSON) -> JSON:
    """The facts of a record's match; ``InvalidRecord`` names the round and move that cannot be."""
    from games.engine.errors import InvalidRecord

    m = None
    for number, rnd in enumerate(record["rounds"], start=1):
        try:
            deal = {key: rnd[key] for key in ("dealer", "hands", "upcard", "stock")}
            m = (match_from_deal(record.get("options", {}), players=record.get("players"), **deal) if m is None
                 else next_round_from_deal(m, **deal))
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidRecord(f"round {number}: not a deal ({error})") from None
        for index, move in enumerate(rnd.get("moves", [])):
            try:
                m = apply_action(m, move["seat"], {k: v for k, v in move.items() if k != "seat"})
            except (KeyError, TypeError, ValueError) as error:
                raise InvalidRecord(f"round {number}, move {index + 1}: {error}") from None
    if m is None:
        return {"game": GAME, "options": normalize_options(record.get("options", {})), "seats": 2, "rounds": [],
                "totals": [0, 0], "left": [False, False], "over": False}
    resigned = record.get("resigned")
    if isinstance(resigned, int) and not m.over:
        m = resign(m, resigned)
    return m.facts()
