"""A Rommé list (Liste) as the live layer sees it: the match interface of ``docs/engine.md``.

A match is a list of rounds for 2–6 seats. Seats that leave (resign, or three timeouts counted by the live
layer) stay at the table as server-played seats: whenever such a seat is to act, the engine plays its
timeout move itself inside ``apply_action``, ``resign`` and ``deal_next_round``, so ``to_act`` never names a
seat that has left. When fewer than two players are left, the list ends.

>>> import random
>>> m = new_match({}, seats=4, rng=random.Random(7))
>>> m.phase, len(m.round.hands[m.to_act])
('draw', 13)
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from games.engine.cards import romme_deck, shuffled
from games.engine.errors import IllegalAction, RecordsLeftOut
from games.engine.romme.hints import going_out
from games.engine.romme.melds import best_opening, hand_augen, meld_codes_sorted
from games.engine.romme.round import (
    DISCARD,
    DRAW,
    HAND_SIZE,
    OVER,
    Round,
    layoff_ends,
    plain_copy,
    upgraded_result,
)

GAME = "romme"
OPENING_POINTS = (40, 30, 0)
TURN_SECONDS = (30, 45, 60, 90, 600)
MAX_ROUNDS = 60
#: How a list is scored: ``casual`` (minus points, romme.md) or ``masters`` (Wertungspunkte, the Rommé Masters
#: tournament rules). The engine reports the same facts either way; ``games.kinds.romme.points`` scores them.
SCORING = ("casual", "masters")
_DEFAULTS = {"seats": 4, "opening_points": 40, "turn_seconds": 45, "scoring": "casual"}
#: The option's old name: ``tournament: true`` meant ``scoring: "masters"``. Stored tables and records carry it.
_LEGACY_TOURNAMENT = "tournament"


def _int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"option {name} must be a whole number, not {value!r}")
    return value


def scoring_mode(options: dict) -> str:
    """The scoring of a table's options, ``"casual"`` or ``"masters"``, reading the old ``tournament`` flag too.

    For options as stored (a table's, a match's, a record's), before or after :func:`normalize_options`.

    >>> scoring_mode({"scoring": "masters"}), scoring_mode({"tournament": True}), scoring_mode({})
    ('masters', 'masters', 'casual')
    """
    if "scoring" in options:
        return options["scoring"]
    return "masters" if options.get(_LEGACY_TOURNAMENT) is True else "casual"


def _without_legacy(options: dict) -> dict:
    """``options`` with the old ``tournament`` flag read as ``scoring``; where both are given (a preset stored
    with the old name, a choice made with the new one) the new name decides."""
    if _LEGACY_TOURNAMENT not in options:
        return options
    flag = options[_LEGACY_TOURNAMENT]
    if not isinstance(flag, bool):
        raise ValueError(f"option tournament (the old name of scoring) must be true or false, not {flag!r}")
    rest = {name: value for name, value in options.items() if name != _LEGACY_TOURNAMENT}
    rest.setdefault("scoring", "masters" if flag else "casual")
    return rest


def normalize_options(options: dict | None, *, seats: int | None = None) -> dict:
    """Fill in defaults and check every option; a ``ValueError`` names the bad one.

    Options: ``seats`` 2–6 (4), ``opening_points`` 40 | 30 | 0 (40), ``rounds`` (twice the seats),
    ``turn_seconds`` 30 | 45 | 60 | 90 | 600 (45), ``scoring`` ``"casual"`` | ``"masters"`` (``"casual"``).
    The old ``tournament: true | false`` (stored tables and records) is read as ``scoring``.

    >>> normalize_options({}, seats=3)["rounds"]
    6
    >>> normalize_options({"tournament": True}, seats=2)["scoring"]
    'masters'
    """
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise ValueError(f"options must be an object, not {options!r}")
    unknown = set(options) - set(_DEFAULTS) - {"rounds", _LEGACY_TOURNAMENT}
    if unknown:
        raise ValueError(f"unknown option(s): {', '.join(sorted(map(str, unknown)))}")
    options = _without_legacy(options)
    result = dict(_DEFAULTS)
    result.update(options)
    if seats is not None:
        if "seats" in options and _int("seats", options["seats"]) != seats:
            raise ValueError(f"option seats is {options['seats']} but the table has {seats} seats")
        result["seats"] = seats
    n = _int("seats", result["seats"])
    if not 2 <= n <= 6:
        raise ValueError(f"option seats must be 2 to 6, not {n}")
    if _int("opening_points", result["opening_points"]) not in OPENING_POINTS:
        raise ValueError(f"option opening_points must be 40, 30 or 0, not {result['opening_points']}")
    if _int("turn_seconds", result["turn_seconds"]) not in TURN_SECONDS:
        raise ValueError(f"option turn_seconds must be one of 30, 45, 60, 90, 600, not {result['turn_seconds']}")
    if not isinstance(result["scoring"], str) or result["scoring"] not in SCORING:
        raise ValueError(f"option scoring must be \"casual\" or \"masters\", not {result['scoring']!r}")
    rounds = _int("rounds", result.get("rounds", 2 * n))
    if rounds < 1 or rounds > MAX_ROUNDS:
        raise ValueError(f"option rounds must be 1 to {MAX_ROUNDS}, not {rounds}")
    result["rounds"] = rounds
    return result


def deal_round(*, seats: int, dealer: int, deck: Sequence[str], opening_points: int) -> Round:
    """Deal a round from a shuffled deck: 13 cards each, then the upcard, the rest is the stock."""
    hands = [list(deck[i * HAND_SIZE:(i + 1) * HAND_SIZE]) for i in range(seats)]
    upcard = deck[seats * HAND_SIZE]
    stock = list(deck[seats * HAND_SIZE + 1:])
    return Round(seats=seats, dealer=dealer, hands=hands, upcard=upcard, stock=stock,
                 opening_points=opening_points)


class Match:
    """The whole state of a list: options, seats, finished rounds, the round in play, who has left."""

    def __init__(self, *, options: dict, players: list | None, round_: Round):
        self.options = options
        self.seats: int = options["seats"]
        self.players = list(players) if players is not None else None
        self.round = round_
        # records.md round records of finished rounds; a state stored with ``to_json(keep_records=n)`` keeps only
        # the last n (the older ones are None: ``summaries`` is all the list needs to go on).
        self.finished: list[dict | None] = []
        self.summaries: list[dict] = []  # the result of each finished round
        self.left = [False] * self.seats
        self.over = False
        self.round_logged = False  # the finished round in play is in ``finished`` already

    # -- the state the live layer reads ------------------------------------------------------------------

    @property
    def round_number(self) -> int:
        return len(self.finished) + (0 if self.round_logged else 1)

    @property
    def dealer(self) -> int:
        return self.round.dealer

    @property
    def to_act(self) -> int | None:
        if self.over or self.round.over:
            return None
        return self.round.to_act

    @property
    def phase(self) -> str:
        """``draw``, ``discard`` (drawn: lay out, lay off, swap or discard), ``round_over`` or ``match_over``."""
        if self.over:
            return "match_over"
        if self.round.over:
            return "round_over"
        return self.round.phase

    def clone(self) -> Match:
        other = Match.__new__(Match)
        other.__dict__.update(self.__dict__)
        other.round = self.round.clone()
        other.finished = list(self.finished)
        other.summaries = list(self.summaries)
        other.left = list(self.left)
        return other

    def to_json(self, keep_records: int | None = None) -> dict:
        """The whole state, hidden cards included: for the database only, never for a client.

        ``keep_records``: keep the records of only the last that many finished rounds (the summaries all stay);
        ``from_json`` reads such a state, whose :meth:`record` then raises. None keeps them all."""
        older = len(self.finished) - keep_records if keep_records is not None else 0
        finished = [rec if i >= older else None for i, rec in enumerate(self.finished)]
        return plain_copy({
            "game": GAME, "options": self.options, "players": self.players, "round": self.round.to_json(),
            "finished": finished, "summaries": self.summaries, "left": self.left, "over": self.over,
            "round_logged": self.round_logged,
        })

    @classmethod
    def from_json(cls, data: dict) -> Match:
        d = plain_copy(data)
        m = cls(options=normalize_options(d["options"]), players=d["players"], round_=Round.from_json(d["round"]))
        m.finished, m.left, m.over = d["finished"], d["left"], d["over"]
        # States stored before the rounds reported who laid off on others' melds: found again from the moves.
        # Those states kept every record; a round whose record was left out was stored upgraded already.
        m.summaries = [s if record is None else upgraded_result(s, record["moves"], m.seats)
                       for s, record in zip(d["summaries"], m.finished, strict=True)]
        m.round_logged = d["round_logged"]
        return m

    def record(self) -> dict:
        """The records.md record of every completed round.

        Raises :class:`RecordsLeftOut` if the state was stored without older rounds' records."""
        if any(rec is None for rec in self.finished):
            raise RecordsLeftOut(f"this state keeps the records of {sum(r is not None for r in self.finished)} of "
                                 f"its {len(self.finished)} finished rounds: its whole record is in the site's "
                                 "Round rows")
        record = {"game": GAME, "options": dict(self.options), "rounds": plain_copy(self.finished)}
        if self.players is not None:
            record["players"] = list(self.players)
        return record

    def round_record(self, number: int) -> dict | None:
        """The records.md record of finished round ``number`` (1-based), None if that round has not finished.

        Raises :class:`RecordsLeftOut` if the state was stored without that round's record."""
        if not 1 <= number <= len(self.finished):
            return None
        rec = self.finished[number - 1]
        if rec is None:
            raise RecordsLeftOut(f"this state was stored without the record of round {number}")
        return plain_copy(rec)

    def with_round_record(self, number: int, record: dict) -> Match:
        """This state with the record of finished round ``number`` (1-based) put back, as ``round_record`` gave
        it: a state stored without it (``to_json(keep_records=0)``) that must add to it (a seat resigning
        between rounds: :func:`resign` notes it at the end of that record)."""
        if not 1 <= number <= len(self.finished):
            raise ValueError(f"round {number} has not finished")
        other = self.clone()
        other.finished[number - 1] = plain_copy(record)
        return other

    def current_deal(self) -> dict:
        """The deal of the round in play (or the last one): dealer, hands, upcard, stock (top first)."""
        return plain_copy(self.round.deal)

    def totals(self) -> dict:
        """Per seat: casual minus points, Augen (rounds without a winner count none) and rounds won so far."""
        minus = [0] * self.seats
        augen = [0] * self.seats
        won = [0] * self.seats
        for s in self.summaries:
            counted = s["winner"] is not None
            for i in range(self.seats):
                minus[i] += s["minus"][i]
                if counted:
                    augen[i] += s["augen"][i]
            if counted:
                won[s["winner"]] += 1
        return {"minus": minus, "augen": augen, "rounds_won": won}

    def facts(self) -> dict:
        """What happened in the list so far, JSON-ready: no Wertungspunkte, results or places.

        ``rounds``: per finished round ``result`` (``romme``, ``hand_romme``, ``dead``, ``abandoned``),
        ``winner`` (the seat that went out, or None), ``hand_romme``, ``augen`` (per seat, the hand's points),
        ``minus`` (the casual minus points of romme.md), ``opened`` and ``laid_off`` (laid off on, or swapped a
        joker out of, another player's meld) per seat, the ``hands`` and the ``melds`` at the end; ``totals``
        (:meth:`totals`), ``left`` (per seat: left the list, an Abbruch) and ``over``. ``games.kinds.romme.points``
        turns these into the score sheet and the result (casual or Masters, by ``options["scoring"]``).

        Nested parts are shared with the match: serialise them, do not change them.
        """
        return {"game": GAME, "options": self.options, "seats": self.seats, "rounds": list(self.summaries),
                "totals": self.totals(), "left": list(self.left), "over": self.over}

    # -- inside changes (on a clone) ---------------------------------------------------------------------

    def _round_finished(self) -> None:
        r = self.round
        assert r.result is not None, "a finished round has its result"
        self.finished.append({**plain_copy(r.deal), "moves": plain_copy(r.moves)})
        self.summaries.append(dict(r.result))
        self.round_logged = True
        if len(self.summaries) >= self.options["rounds"] or self.left.count(False) < 2:
            self.over = True

    def _autoplay(self, rng: random.Random | None) -> None:
        """Play the timeout move for seats that have left, until a player who stayed is to act.

        A draw from an empty stock reshuffles with ``rng``; without one it is refused (IllegalAction).
        """
        while not self.over and not self.round.over:
            seat = self.round.to_act
            assert seat is not None, "a running round has a seat to act"
            if not self.left[seat]:
                break
            for action in self.round.timeout_actions():
                self.round.apply(seat, action, rng)
                if self.round.over or self.round.to_act != seat:
                    break


def new_match(options: dict | None, *, seats: int | None = None, rng: random.Random,
              players: Sequence[str] | None = None) -> Match:
    """A new list with round 1 dealt; the first dealer is drawn with ``rng``."""
    opts = normalize_options(options, seats=seats)
    if players is not None and len(players) != opts["seats"]:
        raise ValueError(f"players must name {opts['seats']} seats, not {len(players)}")
    dealer = rng.randrange(opts["seats"])
    deck = shuffled(romme_deck(), rng)
    r = deal_round(seats=opts["seats"], dealer=dealer, deck=deck, opening_points=opts["opening_points"])
    return Match(options=opts, players=list(players) if players is not None else None, round_=r)


def _after_change(m: Match, rng: random.Random | None) -> None:
    m._autoplay(rng)
    if m.round.over and not m.round_logged:
        m._round_finished()


def apply_action(m: Match, seat: int, action: dict, *, rng: random.Random) -> Match:
    """Apply one action of ``seat``; returns a new match and leaves ``m`` unchanged.

    Raises :class:`IllegalAction` (a ``ValueError``) with the reason when the action is not allowed now.
    ``rng`` reshuffles the discard pile when the stock is empty (and plays the turns of seats that left).
    """
    if m.over:
        raise IllegalAction("the list is over")
    if m.round.over:
        raise IllegalAction("the round is over: the next round has not been dealt yet")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < m.seats:
        raise IllegalAction(f"no seat {seat!r} at this table")
    if m.left[seat]:
        raise IllegalAction(f"seat {seat} has left the list")
    new = m.clone()
    new.round.apply(seat, action, rng)
    _after_change(new, rng)
    return new


def legal_actions(m: Match) -> list[dict]:
    """The actions the seat to act may send now (every draw, discard and lay-off; suggested lays and swaps)."""
    if m.over or m.round.over:
        return []
    return m.round.legal_actions()


def timeout_actions(m: Match) -> list[dict]:
    """The server's move when the turn time runs out, to apply in order with ``apply_action``.

    Draw from the stock if not drawn yet, then discard the drawn card (a joker drawn: the highest other
    card). When the stock is empty the drawn card is known only after the reshuffle, so the list then ends
    with ``{"action": "timeout_discard"}``, which ``apply_action`` plays as that discard (and records as a
    plain ``discard`` of the card).
    """
    if m.over or m.round.over:
        return []
    return m.round.timeout_actions()


def deal_next_round(m: Match, rng: random.Random) -> Match:
    """Deal the next round of the list: the dealer moves one seat on."""
    if m.over:
        raise IllegalAction("the list is over")
    if not m.round.over:
        raise IllegalAction("the round is still being played")
    new = m.clone()
    deck = shuffled(romme_deck(), rng)
    new.round = deal_round(seats=m.seats, dealer=(m.round.dealer + 1) % m.seats, deck=deck,
                           opening_points=m.options["opening_points"])
    new.round_logged = False
    _after_change(new, rng)
    return new


def resign(m: Match, seat: int, *, rng: random.Random | None = None) -> Match:
    """Leaving (resigning, or three timeouts in a row): an Abbruch.

    The seat is marked as left (scored −700 in a Masters list, last place in a casual one); the others play
    on with the left seat's turns played by the server; with fewer than two players left the list ends.
    ``rng`` reshuffles if the turn the server then plays for the leaver draws from an empty stock; without
    one such a resign is refused (IllegalAction): the engine never shuffles with a generator of its own.
    """
    if m.over:
        raise IllegalAction("the list is over")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < m.seats:
        raise IllegalAction(f"no seat {seat!r} at this table")
    if m.left[seat]:
        raise IllegalAction(f"seat {seat} has left already")
    new = m.clone()
    new.left[seat] = True
    if new.round.over:
        # Between rounds: the move goes at the end of the finished round's record.
        last = new.finished[-1]
        if last is None:  # a state stored with keep_records=0
            raise RecordsLeftOut("this state was stored without the record of the round just finished")
        new.finished[-1] = {**last, "moves": last["moves"] + [{"seat": seat, "action": "resign"}]}
        new.round.resign_move(seat)
        if new.left.count(False) < 2:
            new.over = True
        return new
    new.round.resign_move(seat)
    if new.left.count(False) < 2:
        new.round.abandon()
    _after_change(new, rng)
    return new


def _public_move(move: dict) -> dict:
    if move["action"] == "reshuffle":
        return {"seat": move["seat"], "action": "reshuffle", "stock_size": len(move["stock"])}
    return dict(move)


def view(m: Match, seat: int | None) -> dict:
    """What ``seat`` may see (``None``: a spectator), JSON-ready. Never another hand, never the stock order.

    Besides the fields of docs/engine.md: ``melds`` (every meld on the table: number, owner, kind, cards,
    ``stands_for`` and ``jokers`` — what each joker stands for), ``opened`` and ``left`` per seat,
    ``opening_points``; for a seated player ``hand`` (sorted Kreuz, Pik, Herz, Karo), ``hand_augen`` and
    ``best_opening`` (value, melds, reaches); for the seat to act also ``drawn``/``drawn_from`` and
    ``going_out`` (actions that end the round this turn, or null), and ``lay_off_both_ends``: before it has
    opened, after drawing, ``{"card", "meld"}`` for each card of the hand that fits both ends of a run on the
    table (a lay-off staged with the opening lay must then say its ``end``), else empty. ``scores`` holds the list's facts
    (:meth:`Match.facts`) and ``result`` is None: points are not the engine's. The game's entry
    (``GameEntry.view``) gives the view with both turned into points (the score sheet and the result) by
    ``games.kinds.romme.points``.

    Nested parts (history moves, the last round) are shared with the match, not copied, because views are
    built for every seat after every move: serialise a view, do not change it in place.
    """
    r = m.round
    history = []
    pile_before = [r.deal["upcard"]]  # replays the public pile, to name cards taken from it
    for move in r.moves:
        public = _public_move(move)
        if move["action"] == "draw" and move["from"] == "discard" and pile_before:
            public["card"] = pile_before.pop()
        elif move["action"] == "discard":
            pile_before.append(move["card"])
        elif move["action"] == "reshuffle":
            pile_before = pile_before[-1:]
        history.append(public)
    last_round = None
    if m.summaries:
        last = m.summaries[-1]
        last_round = {"round": len(m.summaries), **last}
    v = {
        "game": GAME,
        "options": dict(m.options),
        "seat": seat,
        "seats": m.seats,
        "players": list(m.players) if m.players is not None else None,
        "round_number": m.round_number,
        "dealer": r.dealer,
        "to_act": m.to_act,
        "phase": m.phase,
        "hand_counts": [len(h) for h in r.hands],
        "discard_top": r.discard_pile[-1] if r.discard_pile else None,
        "discard_size": len(r.discard_pile),
        "stock_size": len(r.stock),
        "melds": [t.to_json() for t in r.melds],
        "opened": list(r.opened),
        "left": list(m.left),
        "history": history,
        "scores": m.facts(),
        "last_round": last_round,
        "over": m.over,
        "result": None,
        "opening_points": m.options["opening_points"],
    }
    if seat is not None:
        hand = meld_codes_sorted(r.hands[seat])
        v["hand"] = hand
        v["hand_augen"] = sum(hand_augen(c) for c in hand)
        v["best_opening"] = best_opening(hand, opening_points=m.options["opening_points"]).to_json()
        if m.to_act == seat:
            v["legal_actions"] = legal_actions(m)
            v["drawn"] = r.drawn_card if r.phase == DISCARD else None
            v["drawn_from"] = r.drawn_from if r.phase == DISCARD else None
            # The hint "you can go out now": the actions that end the round this turn, or null.
            v["going_out"] = going_out(hand, [(t.number, t.owner, t.meld) for t in r.melds],
                                       opened=r.opened[seat]) if r.phase == DISCARD and len(hand) > 1 else None
            # Lay-offs before opening go with the opening lay, which must say at which end of a run a card that
            # fits both goes: the page asks the player when one of these is staged (empty once opened).
            v["lay_off_both_ends"] = [
                {"card": card, "meld": t.number} for card in meld_codes_sorted(set(hand)) for t in r.melds
                if len(layoff_ends(t.meld, card)) > 1
            ] if r.phase == DISCARD and not r.opened[seat] and len(hand) > 1 else []
    return v


__all__ = [
    "DISCARD", "DRAW", "GAME", "OVER", "SCORING", "Match", "apply_action", "deal_next_round", "legal_actions",
    "new_match", "normalize_options", "resign", "scoring_mode", "timeout_actions", "view",
]
