"""Replaying a Rommé record (``docs/records-romme.md``) with the engine alone, into the facts of the list.

``games.engine.records`` hands ``"game": "romme"`` records here; ``manage.py replay`` turns the facts into
the summary it prints with ``games.kinds.romme.points``.
"""

from __future__ import annotations

from collections import Counter

from games.engine.cards import check_cards, romme_deck
from games.engine.errors import IllegalAction, InvalidCard, InvalidRecord
from games.engine.romme.match import GAME, Match, normalize_options
from games.engine.romme.round import HAND_SIZE, OVER, Round, plain_copy

_DECK = Counter(romme_deck())


def _check_deal(rnd: object, seats: int, number: int, expected_dealer: int | None) -> Round:
    if not isinstance(rnd, dict):
        raise InvalidRecord("a round is an object with dealer, hands, upcard, stock and moves", round_number=number)
    missing = {"dealer", "hands", "upcard", "stock", "moves"} - set(rnd)
    if missing:
        raise InvalidRecord(f"missing field(s): {', '.join(sorted(missing))}", round_number=number)
    dealer = rnd["dealer"]
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < seats:
        raise InvalidRecord(f"dealer must be a seat 0–{seats - 1}, not {dealer!r}", round_number=number)
    if expected_dealer is not None and dealer != expected_dealer:
        raise InvalidRecord(f"wrong dealer: the dealer moves one seat each round, so seat {expected_dealer}, "
                            f"not {dealer}", round_number=number)
    hands = rnd["hands"]
    if not isinstance(hands, list) or len(hands) != seats:
        raise InvalidRecord(f"hands must list {seats} hands", round_number=number)
    try:
        for seat, hand in enumerate(hands):
            if not isinstance(hand, list) or len(hand) != HAND_SIZE:
                raise InvalidRecord(f"hand of seat {seat} must hold {HAND_SIZE} cards", round_number=number)
            check_cards(hand, allow_joker=True)
        upcard = check_cards([rnd["upcard"]], allow_joker=True)[0]
        stock = rnd["stock"]
        if not isinstance(stock, list):
            raise InvalidRecord("stock must be a list of cards, top first", round_number=number)
        check_cards(stock, allow_joker=True)
    except InvalidCard as exc:
        raise InvalidRecord(str(exc), round_number=number) from None
    dealt = Counter(c for hand in hands for c in hand) + Counter([upcard]) + Counter(stock)
    if dealt != _DECK:
        extra = dealt - _DECK
        short = _DECK - dealt
        detail = []
        if extra:
            detail.append("too many: " + " ".join(sorted(extra.elements())))
        if short:
            detail.append("missing: " + " ".join(sorted(short.elements())))
        raise InvalidRecord("the deal is not the full 110-card deck (" + "; ".join(detail) + ")",
                            round_number=number)
    if not isinstance(rnd["moves"], list):
        raise InvalidRecord("moves must be a list", round_number=number)
    return Round(seats=seats, dealer=dealer, hands=hands, upcard=upcard, stock=stock, opening_points=0)


def _timeout_kind_matches(r: Round, seat: int, action: dict) -> bool:
    """A seat that has left is played by the server: its moves must be the timeout move."""
    if action.get("action") == "reshuffle":
        return True
    if r.phase == "draw":
        return action == {"action": "draw", "from": "stock"}
    return action == {"action": "discard", "card": r.timeout_discard(seat)}


def replay_match(record: dict) -> tuple[Match | None, dict]:
    """The list a record describes (None for a record without rounds) and its normalized options;
    :class:`InvalidRecord` names the round, the move and the reason when the record breaks the rules."""
    if not isinstance(record, dict):
        raise InvalidRecord("a record is a JSON object")
    if record.get("game") != GAME:
        raise InvalidRecord(f"not a Rommé record (game {record.get('game')!r})")
    options = record.get("options", {})
    rounds = record.get("rounds")
    if not isinstance(rounds, list):
        raise InvalidRecord("rounds must be a list")
    seats = None
    if rounds and isinstance(rounds[0], dict) and isinstance(rounds[0].get("hands"), list):
        seats = len(rounds[0]["hands"])
    try:
        if isinstance(options, dict) and "seats" not in options and seats is not None:
            options = normalize_options(options, seats=seats)
        else:
            options = normalize_options(options)
    except ValueError as exc:
        raise InvalidRecord(f"options: {exc}") from None
    seats = options["seats"]
    players = record.get("players")
    if players is not None and (not isinstance(players, list) or len(players) != seats):
        raise InvalidRecord(f"players must name {seats} seats")

    m: Match | None = None
    for number, rnd in enumerate(rounds, start=1):
        if m is not None and m.over:
            raise InvalidRecord("a round after the list was over", round_number=number)
        expected = None if m is None else (m.round.dealer + 1) % seats
        r = _check_deal(rnd, seats, number, expected)
        r.opening_points = options["opening_points"]
        if m is None:
            m = Match(options=options, players=players, round_=r)
        else:
            m.round = r
            m.round_logged = False
        for index, move in enumerate(rnd["moves"]):
            _replay_move(m, move, number, index)
        if m.round.phase != OVER:
            raise InvalidRecord("the round is not complete (every round in a record is played to its end)",
                                round_number=number, move_index=len(rnd["moves"]))
    return m, options


def replay(record: dict) -> dict:
    """Replay a Rommé record into the facts of the list (``Match.facts``); :class:`InvalidRecord` names the
    round, the move and the reason when the record breaks the rules. A record without rounds gives the facts
    of a list not yet begun."""
    m, options = replay_match(record)
    if m is not None:
        return m.facts()
    seats = options["seats"]
    return {"game": GAME, "options": options, "seats": seats, "rounds": [],
            "totals": {"minus": [0] * seats, "augen": [0] * seats, "rounds_won": [0] * seats},
            "left": [False] * seats, "over": False}


def _replay_move(m: Match, move: object, number: int, index: int) -> None:
    r = m.round
    if not isinstance(move, dict) or "seat" not in move:
        raise InvalidRecord("a move is an object with seat and action", round_number=number, move_index=index)
    seat = move["seat"]
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < m.seats:
        raise InvalidRecord(f"no seat {seat!r}", round_number=number, move_index=index)
    if m.over:
        raise InvalidRecord("a move after the list was over", round_number=number, move_index=index)
    action = {k: plain_copy(v) for k, v in move.items() if k != "seat"}
    try:
        if action.get("action") == "resign":
            if set(action) != {"action"}:
                raise IllegalAction("resign takes no other field")
            if m.left[seat]:
                raise IllegalAction(f"seat {seat} has left already")
            m.left[seat] = True
            r.resign_move(seat)
            if m.left.count(False) < 2:
                if r.phase != OVER:
                    r.abandon()
                else:
                    m.over = True
        else:
            if r.phase == OVER:
                raise IllegalAction("a move after the round was over")
            if m.left[seat] and seat == r.to_act and not _timeout_kind_matches(r, seat, action):
                raise IllegalAction(f"seat {seat} has left: its turns are the server's timeout moves")
            if action.get("action") == "reshuffle":
                if set(action) != {"action", "stock"}:
                    raise IllegalAction("reshuffle takes exactly a stock")
                if seat != r.to_act:
                    raise IllegalAction(f"it is seat {r.to_act}'s turn, not seat {seat}'s")
                r.reshuffle(seat, action["stock"])
            elif action.get("action") == "timeout_discard":
                raise IllegalAction("records hold the discarded card, not timeout_discard")
            else:
                r.apply(seat, action, None)
    except (IllegalAction, InvalidCard) as exc:
        raise InvalidRecord(str(exc), round_number=number, move_index=index) from None
    if r.phase == OVER and not m.round_logged:
        m.round.moves = list(r.moves)
        m._round_finished()
