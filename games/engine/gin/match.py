"""The gin match as the live layer sees it (docs/engine.md): options, deals, actions, views, records, facts.

A :class:`Match` is a value: :func:`apply_action` returns a new one and a refused action raises
:class:`~games.engine.errors.IllegalAction` with the reason, leaving the old one as it was. The engine scores
rounds (gin.md's table) and ends the match when the rules say; the match bonuses, the final scores and the
winner of a Hollywood match (decided on finals that include them) are ``games.kinds.gin.points``' to work out from
:meth:`Match.facts`.

>>> import random
>>> m = new_match(normalize_options({"target": 0}, seats=2), seats=2, rng=random.Random(7))
>>> m.phase, m.to_act == 1 - m.dealer
('first_turn', True)
>>> m2 = apply_action(m, m.to_act, {"action": "pass"}, rng=random.Random(1))
>>> m.phase, m2.to_act == m.dealer
('first_turn', True)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from games.engine.cards import ALL_CARDS, gin_deck, shuffled
from games.engine.errors import IllegalAction, RecordsLeftOut
from games.engine.gin.melds import BIT, VALUE, arrange, cards_of, deadwood_of, indexes_of, mask_of
from games.engine.gin.settle import Scoring, Settlement, settle_big_gin, settle_knock

GAME = "gin"
SEATS = 2
HAND_SIZE = 10
#: A plain discard that leaves this many cards or fewer in the stock ends the round dead.
DEAD_STOCK = 2
#: A plain discard once the round has had this many draws ends it dead (two players swapping discards).
DRAW_CAP = 200
STANDARD_KNOCK_LIMIT = 10

#: Every table option of gin.md: allowed values, the default first.
OPTION_CHOICES: dict[str, tuple[Any, ...]] = {
    "target": (100, 0, 50, 150, 200),
    "first_turn": ("pass", "free"),
    "next_dealer": ("winner", "loser", "alternate"),
    "big_gin": (False, True),
    "variant": ("standard", "oklahoma", "straight"),
    "undercut_bonus": (25, 20, 10),
    "gin_bonus": (25, 20),
    "big_gin_bonus": (31,),
    "match_bonuses": (True, False),
    "game_bonus": (100,),
    "box_bonus": (25,),
    "hollywood": (False, True),
    "turn_seconds": (45, 30, 60, 90, 600),
}
DEFAULT_OPTIONS: dict[str, Any] = {name: values[0] for name, values in OPTION_CHOICES.items()}


def normalize_options(options: dict[str, Any] | None = None, *, seats: int = SEATS) -> dict[str, Any]:
    """Fill in defaults and validate; a ValueError names the unknown option or the bad value."""
    if seats != SEATS:
        raise ValueError(f"gin is played by exactly 2 players, not {seats!r}")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise ValueError(f"options must be an object of option names and values, not {type(options).__name__}")
    result = dict(DEFAULT_OPTIONS)
    for name, value in options.items():
        if name not in OPTION_CHOICES:
            raise ValueError(f"unknown gin option {name!r} (known: {', '.join(OPTION_CHOICES)})")
        allowed = OPTION_CHOICES[name]
        # bool is an int in Python: compare types too, so True is not accepted as 1 nor 1 as True.
        if not any(type(value) is type(choice) and value == choice for choice in allowed):
            shown = ", ".join(repr(v).lower() if isinstance(v, bool) else repr(v) for v in sorted(allowed, key=str))
            raise ValueError(f"option {name!r} cannot be {value!r} (allowed: {shown})")
        result[name] = value
    if result["hollywood"] and result["target"] == 0:
        raise ValueError("option 'hollywood' needs a 'target' above 0")
    return result


def _evolve(value: Any, **changes: Any) -> Any:
    """A copy of a frozen dataclass value with some fields changed (``dataclasses.replace`` without
    re-running ``__init__``, which is most of the cost of a move in self-play)."""
    new = object.__new__(type(value))
    new.__dict__.update(value.__dict__)
    new.__dict__.update(changes)
    return new


# --------------------------------------------------------------------------------------------------
# The round


@dataclass(frozen=True)
class Round:
    """One deal and everything played on it. Hands are card masks; ``stock`` is top first."""

    number: int
    dealer: int
    deal_hands: tuple[int, int]
    upcard: int
    stock: tuple[int, ...]
    hands: tuple[int, int]
    discard: tuple[int, ...]  # bottom first; the top is the last
    stock_pos: int = 0
    phase: str = "first_turn"  # first_turn | draw | discard | round_over
    to_act: int | None = None
    passes: int = 0
    must_draw_stock: bool = False  # both passed the upcard: the non-dealer draws from the stock
    taken: int = -1  # the card just taken from the discard pile this turn, not to be discarded
    draws: int = 0
    moves: tuple[dict[str, Any], ...] = ()
    summary: dict[str, Any] | None = None
    public: tuple[dict[str, Any], ...] = ()  # the moves as both seats saw them (see _public_history)

    @property
    def stock_size(self) -> int:
        return len(self.stock) - self.stock_pos

    @property
    def non_dealer(self) -> int:
        return 1 - self.dealer

    def deal_json(self) -> dict[str, Any]:
        return {
            "dealer": self.dealer,
            "hands": [cards_of(h) for h in self.deal_hands],
            "upcard": ALL_CARDS[self.upcard],
            "stock": [ALL_CARDS[i] for i in self.stock],
        }

    def record(self) -> dict[str, Any]:
        return {**self.deal_json(), "moves": [dict(m) for m in self.moves]}


def knock_limit(options: dict[str, Any], upcard: int) -> int:
    """The round's knock limit: 10; Oklahoma: the first upcard's value (an ace: gin only); Straight: gin only."""
    if options["variant"] == "straight":
        return 0
    if options["variant"] == "oklahoma":
        value = VALUE[upcard]
        return 0 if value == 1 else value
    return STANDARD_KNOCK_LIMIT


def is_doubled(options: dict[str, Any], upcard: int) -> bool:
    """Oklahoma with a spade upcard: the round's deadwood points count double."""
    return options["variant"] == "oklahoma" and upcard // 13 == 3


def scoring_of(options: dict[str, Any], upcard: int) -> Scoring:
    return Scoring(undercut_bonus=options["undercut_bonus"], gin_bonus=options["gin_bonus"],
                   big_gin_bonus=options["big_gin_bonus"], double=is_doubled(options, upcard))


def start_round(options: dict[str, Any], *, number: int, dealer: int, hands: list[list[str]] | tuple,
                upcard: str, stock: list[str]) -> Round:
    """A round from a known deal (codes already checked to be the 52 cards)."""
    first_turn = options["first_turn"] == "pass"
    return Round(
        number=number,
        dealer=dealer,
        deal_hands=(mask_of(hands[0]), mask_of(hands[1])),
        upcard=ALL_CARDS.index(upcard),
        stock=tuple(ALL_CARDS.index(c) for c in stock),
        hands=(mask_of(hands[0]), mask_of(hands[1])),
        discard=(ALL_CARDS.index(upcard),),
        phase="first_turn" if first_turn else "draw",
        to_act=1 - dealer,
    )


def deal_cards(rng: random.Random) -> tuple[list[list[str]], str, list[str]]:
    """Shuffle with the generator given and deal: 10 cards each, the upcard, 31 in the stock (top first)."""
    cards = shuffled(gin_deck(), rng)
    return [cards[0:10], cards[10:20]], cards[20], cards[21:]


# --------------------------------------------------------------------------------------------------
# Hollywood columns


@dataclass(frozen=True)
class Column:
    """One of Hollywood's three games: its round points and rounds entered, and who won it once finished
    (reached the target, or stayed when the other player left). Its bonuses are ``games.kinds.gin.points``'."""

    scores: tuple[int, int] = (0, 0)
    boxes: tuple[int, int] = (0, 0)
    finished: bool = False
    winner: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "boxes": list(self.boxes), "finished": self.finished,
                "winner": self.winner}


def _finish_column(column: Column, winner: int) -> Column:
    return _evolve(column, finished=True, winner=winner)


# --------------------------------------------------------------------------------------------------
# The match


@dataclass(frozen=True)
class Match:
    """A whole gin match: the options, the finished rounds and the round in play."""

    options: dict[str, Any]
    players: tuple[str | None, ...]
    round: Round
    # (record round, summary) per finished round; a state stored with ``to_json(keep_records=n)`` keeps only the
    # last n records (the older ones are None: their summaries are all the match needs to go on).
    finished: tuple[tuple[dict[str, Any] | None, dict[str, Any]], ...] = ()
    totals: tuple[int, int] = (0, 0)
    boxes: tuple[int, int] = (0, 0)
    columns: tuple[Column, ...] = ()
    over: bool = False
    # Who won by the rules of play: reached the target, or stayed when the other left. None while the match
    # runs, and for a Hollywood match that ended normally: the final scores (with bonuses) decide that one.
    winner: int | None = None
    resigned: int | None = None
    wins: tuple[int, int] = field(default=(0, 0))  # rounds won, for Hollywood's column entries

    # The names docs/engine.md promises.
    @property
    def to_act(self) -> int | None:
        if self.over or self.round.phase == "round_over":
            return None
        return self.round.to_act

    @property
    def phase(self) -> str:
        return "match_over" if self.over else self.round.phase

    @property
    def round_number(self) -> int:
        return self.round.number

    @property
    def dealer(self) -> int:
        return self.round.dealer

    @property
    def started_play(self) -> bool:
        """True once any move has been made in the match (after that it cannot be aborted)."""
        return bool(self.finished) or bool(self.round.moves)

    def knock_limit(self) -> int:
        return knock_limit(self.options, self.round.upcard)

    def record(self) -> dict[str, Any]:
        """The records.md record of every completed round (a resignation is noted as ``resigned``).

        Raises :class:`RecordsLeftOut` if the state was stored without older rounds' records."""
        kept = [r for r, _ in self.finished if r is not None]
        if len(kept) < len(self.finished):
            raise RecordsLeftOut(f"this state keeps the records of {len(kept)} of its {len(self.finished)} "
                                 "finished rounds: its whole record is in the site's Round rows")
        record: dict[str, Any] = {
            "game": GAME,
            "options": dict(self.options),
            "players": list(self.players),
            "rounds": [dict(r) for r in kept],
        }
        if self.resigned is not None:
            record["resigned"] = self.resigned
        return record

    def round_record(self, number: int) -> dict[str, Any] | None:
        """The records.md record of finished round ``number`` (1-based), None if that round has not finished.

        Raises :class:`RecordsLeftOut` if the state was stored without that round's record."""
        if not 1 <= number <= len(self.finished):
            return None
        rec = self.finished[number - 1][0]
        if rec is None:
            raise RecordsLeftOut(f"this state was stored without the record of round {number}")
        return dict(rec)

    def with_round_record(self, number: int, record: dict[str, Any]) -> Match:
        """This state with the record of finished round ``number`` (1-based) put back, as ``round_record`` gave
        it: a state stored without it (``to_json(keep_records=0)``) that must add to it."""
        if not 1 <= number <= len(self.finished):
            raise ValueError(f"round {number} has not finished")
        finished = list(self.finished)
        finished[number - 1] = (dict(record), finished[number - 1][1])
        return _evolve(self, finished=tuple(finished))

    def current_deal(self) -> dict[str, Any]:
        return self.round.deal_json()

    def facts(self) -> dict[str, Any]:
        """What happened in the match so far, JSON-ready: no match bonuses, no final scores.

        ``rounds``: the summary of every finished round (result, knocker, winner, round points, deadwood,
        melds, lay-offs, hands, ...); ``totals`` (round points) and ``boxes`` (rounds won) per seat;
        ``columns`` (Hollywood, else empty): per column ``scores``, ``boxes``, ``finished`` and ``winner``;
        ``over``; ``winner`` (see :class:`Match`); ``resigned`` (the seat that left, or None).
        ``games.kinds.gin.points`` adds the bonuses, the finals and the result.
        """
        return {
            "game": GAME,
            "options": self.options,
            "rounds": [s for _, s in self.finished],
            "totals": list(self.totals),
            "boxes": list(self.boxes),
            "columns": [c.to_json() for c in self.columns],
            "over": self.over,
            "winner": self.winner,
            "resigned": self.resigned,
        }

    def to_json(self, keep_records: int | None = None) -> dict[str, Any]:
        """The whole state, hidden cards included: for the database only, never for a client.

        ``keep_records``: keep the records of only the last that many finished rounds (their summaries all
        stay); ``from_json`` reads such a state, whose :meth:`record` then raises. None keeps them all."""
        r = self.round
        older = len(self.finished) - keep_records if keep_records is not None else 0
        return {
            "game": GAME,
            "options": dict(self.options),
            "players": list(self.players),
            "finished": [[rec if i >= older else None, summ] for i, (rec, summ) in enumerate(self.finished)],
            "totals": list(self.totals),
            "boxes": list(self.boxes),
            "wins": list(self.wins),
            "columns": [c.to_json() for c in self.columns],
            "over": self.over,
            "winner": self.winner,
            "resigned": self.resigned,
            "round": {
                "number": r.number,
                **r.deal_json(),
                "stock_pos": r.stock_pos,
                "hands_now": [cards_of(h) for h in r.hands],
                "discard": [ALL_CARDS[i] for i in r.discard],
                "phase": r.phase,
                "to_act": r.to_act,
                "passes": r.passes,
                "must_draw_stock": r.must_draw_stock,
                "taken": ALL_CARDS[r.taken] if r.taken >= 0 else None,
                "draws": r.draws,
                "moves": [dict(m) for m in r.moves],
                "summary": r.summary,
            },
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Match:
        rd = data["round"]
        rnd = Round(
            number=rd["number"],
            dealer=rd["dealer"],
            deal_hands=(mask_of(rd["hands"][0]), mask_of(rd["hands"][1])),
            upcard=ALL_CARDS.index(rd["upcard"]),
            stock=tuple(ALL_CARDS.index(c) for c in rd["stock"]),
            hands=(mask_of(rd["hands_now"][0]), mask_of(rd["hands_now"][1])),
            discard=tuple(ALL_CARDS.index(c) for c in rd["discard"]),
            stock_pos=rd["stock_pos"],
            phase=rd["phase"],
            to_act=rd["to_act"],
            passes=rd["passes"],
            must_draw_stock=rd["must_draw_stock"],
            taken=ALL_CARDS.index(rd["taken"]) if rd["taken"] else -1,
            draws=rd["draws"],
            moves=tuple(dict(m) for m in rd["moves"]),
            summary=rd["summary"],
        )
        rnd = _evolve(rnd, public=_public_history(rnd))
        # States stored before issue 9 also hold bonuses and finals (ignored: they are games.kinds.gin.points' now),
        # and a Hollywood match that ended normally holds the winner its finals gave.
        columns = tuple(
            Column(scores=tuple(c["scores"]), boxes=tuple(c["boxes"]), finished=c["finished"], winner=c["winner"])
            for c in data["columns"]
        )
        options = normalize_options(data["options"])
        winner = data["winner"]
        if options["hollywood"] and data["resigned"] is None:
            winner = None
        return cls(
            options=options,
            players=tuple(data["players"]),
            round=rnd,
            finished=tuple((rec, summ) for rec, summ in data["finished"]),
            totals=tuple(data["totals"]),
            boxes=tuple(data["boxes"]),
            columns=columns,
            over=data["over"],
            winner=winner,
            resigned=data["resigned"],
            wins=tuple(data["wins"]),
        )


def new_match(options: dict[str, Any], *, seats: int = SEATS, rng: random.Random,
              players: list[str] | None = None) -> Match:
    """A match with round 1 dealt; the first dealer is drawn with ``rng``."""
    options = normalize_options(options, seats=seats)
    if players is not None and len(players) != SEATS:
        raise ValueError("players must name exactly 2 seats")
    dealer = rng.randrange(SEATS)
    hands, upcard, stock = deal_cards(rng)
    return match_from_deal(options, players=players, dealer=dealer, hands=hands, upcard=upcard, stock=stock)


def match_from_deal(options: dict[str, Any], *, players: list[str] | None, dealer: int,
                    hands: list[list[str]], upcard: str, stock: list[str]) -> Match:
    """A match whose first round is the deal given (replay, tests)."""
    options = normalize_options(options)
    columns = tuple(Column() for _ in range(3)) if options["hollywood"] else ()
    return Match(
        options=options,
        players=tuple(players) if players is not None else (None, None),
        round=start_round(options, number=1, dealer=dealer, hands=hands, upcard=upcard, stock=stock),
        columns=columns,
    )


def next_dealer(m: Match) -> int:
    """Who deals the next round: the same dealer after a dead round, else by option ``next_dealer``."""
    summary = m.round.summary
    if summary is None:
        raise IllegalAction("the round is still being played")
    if summary["result"] == "dead":
        return m.round.dealer
    rule = m.options["next_dealer"]
    if rule == "winner":
        return summary["winner"]
    if rule == "loser":
        return 1 - summary["winner"]
    return 1 - m.round.dealer


def deal_next_round(m: Match, rng: random.Random) -> Match:
    """Deal the next round with ``rng`` (only once the round is over and the match is not)."""
    hands, upcard, stock = deal_cards(rng)
    return next_round_from_deal(m, dealer=next_dealer(m), hands=hands, upcard=upcard, stock=stock)


def next_round_from_deal(m: Match, *, dealer: int, hands: list[list[str]], upcard: str,
                         stock: list[str]) -> Match:
    if m.over:
        raise IllegalAction("the match is over")
    if m.round.phase != "round_over":
        raise IllegalAction("the round is still being played")
    expected = next_dealer(m)
    if dealer != expected:
        raise IllegalAction(f"seat {expected} deals round {m.round.number + 1}, not seat {dealer}")
    rnd = start_round(m.options, number=m.round.number + 1, dealer=dealer, hands=hands, upcard=upcard,
                      stock=stock)
    return _evolve(m, round=rnd)


# --------------------------------------------------------------------------------------------------
# Actions

_ACTION_KEYS = {
    "pass": {"action"},
    "draw": {"action", "from"},
    "discard": {"action", "card"},
    "knock": {"action", "card"},
    "big_gin": {"action"},
}


def _check_shape(action: object) -> tuple[str, dict[str, Any]]:
    if not isinstance(action, dict):
        raise IllegalAction(f"an action is an object like {{'action': 'draw', 'from': 'stock'}}, not {action!r}")
    name = action.get("action")
    if not isinstance(name, str) or name not in _ACTION_KEYS:
        raise IllegalAction(f"unknown action {name!r} (gin knows: {', '.join(_ACTION_KEYS)})")
    extra = set(action) - _ACTION_KEYS[name]
    if extra:
        raise IllegalAction(f"unexpected field(s) for {name!r}: {', '.join(sorted(map(str, extra)))}")
    missing = _ACTION_KEYS[name] - set(action)
    if missing:
        raise IllegalAction(f"{name!r} needs the field(s): {', '.join(sorted(missing))}")
    return name, action


def _card_in_hand(rnd: Round, seat: int, code: object) -> int:
    if not isinstance(code, str) or code not in _CARD_INDEX:
        raise IllegalAction(f"not a card code: {code!r}")
    index = _CARD_INDEX[code]
    if not rnd.hands[seat] & BIT[index]:
        raise IllegalAction(f"{code} is not in your hand")
    if index == rnd.taken:
        raise IllegalAction(f"{code} was just taken from the discard pile: it cannot be discarded or knocked "
                            f"with this turn")
    return index


_CARD_INDEX = {code: i for i, code in enumerate(ALL_CARDS)}


def _is_seat(seat: object) -> bool:
    """A seat is the int 0 or 1 (not True, not 1.0: records carry list indexes)."""
    return type(seat) is int and seat in (0, 1)


def apply_action(m: Match, seat: int, action: dict[str, Any], *, rng: random.Random | None = None) -> Match:
    """The match after ``seat`` plays ``action``; IllegalAction (a ValueError) says why it is refused.

    ``rng`` is part of the shared interface (docs/engine.md) and not used: gin never shuffles during play.
    """
    name, action = _check_shape(action)
    if m.over:
        raise IllegalAction("the match is over")
    rnd = m.round
    if rnd.phase == "round_over":
        raise IllegalAction("the round is over; the next round has not been dealt yet")
    if not _is_seat(seat):
        raise IllegalAction(f"no such seat: {seat!r}")
    if seat != rnd.to_act:
        raise IllegalAction(f"it is seat {rnd.to_act}'s turn, not seat {seat}'s")
    move = {"seat": seat, **action}
    if name == "draw" and action["from"] == "discard" and rnd.discard:
        seen = {"seat": seat, "action": "draw", "from": "discard", "card": ALL_CARDS[rnd.discard[-1]]}
    else:
        seen = dict(move)
    # The public history grows with the move; if the move is refused this copy is simply dropped.
    rnd = _evolve(rnd, public=rnd.public + (seen,))
    if rnd.phase == "first_turn":
        return _first_turn(m, rnd, seat, name, action, move)
    if rnd.phase == "draw":
        return _draw(m, rnd, seat, name, action, move)
    return _finish_turn(m, rnd, seat, name, action, move)


def _first_turn(m: Match, rnd: Round, seat: int, name: str, action: dict, move: dict) -> Match:
    if name == "pass":
        if rnd.passes == 0:
            return _evolve(m, round=_evolve(rnd, passes=1, to_act=rnd.dealer, moves=rnd.moves + (move,)))
        # Both passed: the non-dealer must start by drawing from the stock.
        return _evolve(m, round=_evolve(rnd, passes=2, to_act=rnd.non_dealer, phase="draw",
                                        must_draw_stock=True, moves=rnd.moves + (move,)))
    if name == "draw" and action["from"] == "discard":
        return _draw(m, rnd, seat, name, action, move)
    if name == "draw":
        if action["from"] == "stock":
            raise IllegalAction("on the first-turn offer you may take the upcard or pass, not draw from the stock")
        raise IllegalAction(f"draw from 'stock' or 'discard', not {action['from']!r}")
    raise IllegalAction(f"on the first-turn offer you may take the upcard or pass, not {name!r}")


def _draw(m: Match, rnd: Round, seat: int, name: str, action: dict, move: dict) -> Match:
    if name != "draw":
        if name == "pass":
            raise IllegalAction("passing is only for the first-turn offer of the upcard")
        raise IllegalAction(f"draw a card first (from the stock or the discard pile) before {name!r}")
    source = action["from"]
    if not isinstance(source, str):
        raise IllegalAction(f"draw from 'stock' or 'discard', not {source!r}")
    hands = list(rnd.hands)
    if source == "stock":
        if rnd.phase == "first_turn":
            raise IllegalAction("on the first-turn offer you may take the upcard or pass")
        if rnd.stock_size == 0:
            raise IllegalAction("the stock is empty")
        card = rnd.stock[rnd.stock_pos]
        hands[seat] |= BIT[card]
        new = _evolve(rnd, hands=(hands[0], hands[1]), stock_pos=rnd.stock_pos + 1, phase="discard", taken=-1,
                      draws=rnd.draws + 1, must_draw_stock=False, moves=rnd.moves + (move,))
        return _evolve(m, round=new)
    if source == "discard":
        if rnd.must_draw_stock:
            raise IllegalAction("both players passed the upcard: the non-dealer must draw from the stock")
        if not rnd.discard:
            raise IllegalAction("the discard pile is empty")
        card = rnd.discard[-1]
        hands[seat] |= BIT[card]
        new = _evolve(rnd, hands=(hands[0], hands[1]), discard=rnd.discard[:-1], phase="discard", taken=card,
                      draws=rnd.draws + 1, moves=rnd.moves + (move,))
        return _evolve(m, round=new)
    raise IllegalAction(f"draw from 'stock' or 'discard', not {source!r}")


def _finish_turn(m: Match, rnd: Round, seat: int, name: str, action: dict, move: dict) -> Match:
    if name in ("draw", "pass"):
        raise IllegalAction("you have drawn already: discard, knock" +
                            (" or declare big gin" if m.options["big_gin"] else ""))
    hands = list(rnd.hands)
    if name == "big_gin":
        if not m.options["big_gin"]:
            raise IllegalAction("big gin is not played at this table (option big_gin is off)")
        deadwood = deadwood_of(hands[seat])
        if deadwood:
            raise IllegalAction(f"big gin needs all 11 cards melded; your best arrangement leaves {deadwood}")
        settlement = settle_big_gin(knocker=hands[seat], defender=hands[1 - seat],
                                    scoring=scoring_of(m.options, rnd.upcard))
        return _end_round(m, _evolve(rnd, moves=rnd.moves + (move,)), seat, settlement, discarded=None)
    card = _card_in_hand(rnd, seat, action["card"])
    hands[seat] ^= BIT[card]
    if name == "knock":
        limit = knock_limit(m.options, rnd.upcard)
        deadwood = deadwood_of(hands[seat])
        if deadwood > limit:
            if m.options["variant"] == "straight":
                why = "Straight Gin: only gin (deadwood 0) ends the round"
            elif limit == 0:
                why = "the upcard was an ace (Oklahoma): only gin ends this round"
            else:
                why = f"the knock limit is {limit}"
            raise IllegalAction(f"cannot knock with deadwood {deadwood} after discarding {ALL_CARDS[card]}: {why}")
        settlement = settle_knock(knocker=hands[seat], defender=hands[1 - seat], knock_limit=limit,
                                  scoring=scoring_of(m.options, rnd.upcard))
        played = _evolve(rnd, hands=(hands[0], hands[1]), discard=rnd.discard + (card,), moves=rnd.moves + (move,))
        return _end_round(m, played, seat, settlement, discarded=card)
    # A plain discard.
    new = _evolve(rnd, hands=(hands[0], hands[1]), discard=rnd.discard + (card,), taken=-1, phase="draw",
                  to_act=1 - seat, moves=rnd.moves + (move,))
    if new.stock_size <= DEAD_STOCK or new.draws >= DRAW_CAP:
        return _end_dead(m, new)
    return _evolve(m, round=new)


def _round_header(rnd: Round) -> dict[str, Any]:
    return {"round": rnd.number, "dealer": rnd.dealer}


def _end_dead(m: Match, rnd: Round) -> Match:
    summary = {
        **_round_header(rnd),
        "result": "dead",
        "knocker": None,
        "winner": None,
        "points": 0,
        "deadwood": None,
        "melds": [[cards_of(meld) for meld in arrange(h)[0]] for h in rnd.hands],
        "layoffs": [],
        "hands": [cards_of(h) for h in rnd.hands],
        "reason": "stock" if rnd.stock_size <= DEAD_STOCK else "draw_cap",
    }
    done = _evolve(rnd, phase="round_over", to_act=None, summary=summary, taken=-1)
    return _evolve(m, round=done, finished=m.finished + ((done.record(), summary),))


def _end_round(m: Match, rnd: Round, knocker: int, s: Settlement, *, discarded: int | None) -> Match:
    defender = 1 - knocker
    winner = knocker if s.winner_is_knocker else defender
    deadwood = [0, 0]
    deadwood[knocker] = s.knocker_deadwood
    deadwood[defender] = s.defender_deadwood
    melds: list[list[list[str]]] = [[], []]
    melds[knocker] = [cards_of(x) for x in s.knocker_melds]
    melds[defender] = [cards_of(x) for x in s.defender_melds]
    summary = {
        **_round_header(rnd),
        "result": s.result,
        "knocker": knocker,
        "winner": winner,
        "points": s.points,
        "deadwood": deadwood,
        "melds": melds,
        "layoffs": s.layoff_cards(),
        "hands": [cards_of(h) for h in rnd.hands],
        "discard": ALL_CARDS[discarded] if discarded is not None else None,
        "knock_limit": knock_limit(m.options, rnd.upcard),
        "doubled": is_doubled(m.options, rnd.upcard),
    }
    done = _evolve(rnd, phase="round_over", to_act=None, summary=summary, taken=-1)
    return _score_round(_evolve(m, round=done, finished=m.finished + ((done.record(), summary),)), winner,
                        s.points)


def _score_round(m: Match, winner: int, points: int) -> Match:
    opts = m.options
    totals = list(m.totals)
    boxes = list(m.boxes)
    totals[winner] += points
    boxes[winner] += 1
    m = _evolve(m, totals=(totals[0], totals[1]), boxes=(boxes[0], boxes[1]))
    if opts["hollywood"]:
        return _score_hollywood(m, winner, points)
    if opts["target"] == 0 or totals[winner] >= opts["target"]:
        return _evolve(m, over=True, winner=winner)
    return m


def _score_hollywood(m: Match, winner: int, points: int) -> Match:
    wins = list(m.wins)
    wins[winner] += 1
    # First won round: column 1; second: columns 1-2; third and later: all three. Finished columns take none.
    reach = min(wins[winner], 3)
    columns = list(m.columns)
    for i in range(reach):
        column = columns[i]
        if column.finished:
            continue
        scores = list(column.scores)
        boxes = list(column.boxes)
        scores[winner] += points
        boxes[winner] += 1
        column = _evolve(column, scores=(scores[0], scores[1]), boxes=(boxes[0], boxes[1]))
        if scores[winner] >= m.options["target"]:
            column = _finish_column(column, winner)
        columns[i] = column
    # The match ends when all three columns are finished; the finals with their bonuses name the winner.
    return _evolve(m, wins=(wins[0], wins[1]), columns=tuple(columns), over=all(c.finished for c in columns))


def resign(m: Match, seat: int, *, rng: random.Random | None = None) -> Match:
    """Seat ``seat`` leaves (resigns or timed out three times): the other seat wins the match.

    In Hollywood every unfinished column ends won by the stayer. The round in play is not scored. (The match
    bonuses then count as if the match had ended normally: ``games.kinds.gin.points`` adds them.) ``rng`` is part of
    the shared interface and not used.
    """
    if m.over:
        raise IllegalAction("the match is over")
    if not _is_seat(seat):
        raise IllegalAction(f"no such seat: {seat!r}")
    stayer = 1 - seat
    rnd = m.round
    if rnd.phase != "round_over":
        rnd = _evolve(rnd, phase="round_over", to_act=None)
    columns = tuple(c if c.finished else _finish_column(c, stayer) for c in m.columns)
    return _evolve(m, round=rnd, resigned=seat, columns=columns, over=True, winner=stayer)


# --------------------------------------------------------------------------------------------------
# What a seat may do, and what the server plays for it


def _discard_table(m: Match) -> list[tuple[int, int]]:
    """For the seat to discard: (card index, deadwood left) for every card it may throw."""
    rnd = m.round
    seat = rnd.to_act
    assert seat is not None, "a seat is to discard"
    hand = rnd.hands[seat]
    taken = rnd.taken
    return [(index, deadwood_of(hand ^ BIT[index])) for index in indexes_of(hand) if index != taken]


def legal_actions(m: Match, *, _table: list[tuple[int, int]] | None = None) -> list[dict[str, Any]]:
    """Every action the seat to act may send now (empty when nobody is to act)."""
    if m.to_act is None:
        return []
    rnd = m.round
    seat = m.to_act  # not None: checked above (the round's seat to act)
    if rnd.phase == "first_turn":
        return [{"action": "pass"}, {"action": "draw", "from": "discard"}]
    if rnd.phase == "draw":
        actions = [{"action": "draw", "from": "stock"}]
        if rnd.discard and not rnd.must_draw_stock:
            actions.append({"action": "draw", "from": "discard"})
        return actions
    table = _table if _table is not None else _discard_table(m)
    limit = knock_limit(m.options, rnd.upcard)
    actions = [{"action": "discard", "card": ALL_CARDS[index]} for index, _ in table]
    actions += [{"action": "knock", "card": ALL_CARDS[index]} for index, left in table if left <= limit]
    if m.options["big_gin"] and deadwood_of(rnd.hands[seat]) == 0:
        actions.append({"action": "big_gin"})
    return actions


def best_discard(hand: int, taken: int) -> tuple[int, int]:
    """The card whose discard leaves the least deadwood (never ``taken``): (card index, deadwood left).

    Among equal choices the highest-value card goes, then the highest index, so the choice is fixed.
    """
    best: tuple[int, int, int] | None = None
    for index in indexes_of(hand):
        if index == taken:
            continue
        key = (deadwood_of(hand ^ BIT[index]), -VALUE[index], -index)
        if best is None or key < best:
            best = key
    assert best is not None
    return -best[2], best[0]


def timeout_actions(m: Match) -> list[dict[str, Any]]:
    """What the server plays when the turn time runs out: pass an offer, else draw from the stock (if not
    drawn yet) and discard the card leaving the least deadwood. It never knocks."""
    if m.to_act is None:
        return []
    rnd = m.round
    seat = m.to_act  # not None: checked above (the round's seat to act)
    if rnd.phase == "first_turn":
        return [{"action": "pass"}]
    actions: list[dict[str, Any]] = []
    hand = rnd.hands[seat]
    taken = rnd.taken
    if rnd.phase == "draw":
        actions.append({"action": "draw", "from": "stock"})
        hand |= BIT[rnd.stock[rnd.stock_pos]]
        taken = -1
    card, _ = best_discard(hand, taken)
    actions.append({"action": "discard", "card": ALL_CARDS[card]})
    return actions


# --------------------------------------------------------------------------------------------------
# Views


def deadwood_meter(m: Match, seat: int, *, _table: list[tuple[int, int]] | None = None) -> dict[str, Any]:
    """The own hand's best melds and deadwood; with 11 cards, what each discard would leave."""
    rnd = m.round
    hand = rnd.hands[seat]
    melds, deadwood = arrange(hand)
    meter: dict[str, Any] = {"melds": [cards_of(x) for x in melds], "deadwood": deadwood}
    if hand.bit_count() == HAND_SIZE + 1 and rnd.phase == "discard" and rnd.to_act == seat:
        limit = knock_limit(m.options, rnd.upcard)
        table = _table if _table is not None else _discard_table(m)
        choices = [{"card": ALL_CARDS[index], "deadwood": left, "knock": left <= limit, "gin": left == 0}
                   for index, left in table]
        # Least deadwood left; among equals the highest card goes (as the timeout move does).
        best_index, best_left = min(table, key=lambda item: (item[1], -VALUE[item[0]], -item[0]))
        meter.update(
            discards=choices,
            best_discard=ALL_CARDS[best_index],
            best_deadwood=best_left,
            can_knock=best_left <= limit,
            can_gin=best_left == 0,
            can_big_gin=bool(m.options["big_gin"] and deadwood == 0),
            knock_limit=limit,
        )
    return meter


def _public_history(rnd: Round) -> tuple[dict[str, Any], ...]:
    """The round's public moves; a discard-pile draw shows the card taken (a stock draw never does)."""
    out = []
    pile = [rnd.upcard]
    for move in rnd.moves:
        action = move["action"]
        if action == "draw":
            if move["from"] == "discard":
                out.append({"seat": move["seat"], "action": "draw", "from": "discard",
                            "card": ALL_CARDS[pile.pop()]})
            else:
                out.append({"seat": move["seat"], "action": "draw", "from": "stock"})
        elif action in ("discard", "knock"):
            pile.append(_CARD_INDEX[move["card"]])
            out.append({"seat": move["seat"], "action": action, "card": move["card"]})
        else:
            out.append({"seat": move["seat"], "action": action})
    return tuple(out)


def view(m: Match, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see (``None``: a spectator). Never the other hand in play, never the stock order."""
    if seat is not None and not _is_seat(seat):
        raise ValueError(f"no such seat: {seat!r}")
    rnd = m.round
    last = m.finished[-1][1] if m.finished else None
    out: dict[str, Any] = {
        "game": GAME,
        "options": dict(m.options),
        "seat": seat,
        "seats": SEATS,
        "players": list(m.players),
        "round_number": rnd.number,
        "dealer": rnd.dealer,
        "to_act": m.to_act,
        "phase": m.phase,
        "hand_counts": [h.bit_count() for h in rnd.hands],
        "discard_top": ALL_CARDS[rnd.discard[-1]] if rnd.discard else None,
        "discard_size": len(rnd.discard),
        "stock_size": rnd.stock_size,
        "upcard": ALL_CARDS[rnd.upcard],
        "knock_limit": knock_limit(m.options, rnd.upcard),
        "doubled": is_doubled(m.options, rnd.upcard),
        "draws": rnd.draws,
        "history": list(rnd.public),
        # The facts the score sheet is made from; the game's entry (GameEntry.view) turns them (and the result) into points.
        "scores": m.facts(),
        "last_round": last,
        "over": m.over,
        "result": None,
    }
    if seat is not None:
        acting = m.to_act == seat
        table = _discard_table(m) if acting and rnd.phase == "discard" else None
        out["hand"] = cards_of(rnd.hands[seat])
        out["taken"] = ALL_CARDS[rnd.taken] if rnd.taken >= 0 and rnd.to_act == seat else None
        out["meter"] = deadwood_meter(m, seat, _table=table)
        if acting:
            out["legal_actions"] = legal_actions(m, _table=table)
    return out


__all__ = [
    "DEFAULT_OPTIONS", "GAME", "OPTION_CHOICES", "Match", "Round", "apply_action", "deal_next_round", "legal_actions",
    "new_match", "normalize_options", "resign", "timeout_actions", "view",
]
