"""Replaying a gin record (spec/records.md) with the engine alone: the facts of the match (``Match.facts``),
or InvalidRecord saying where the record breaks the rules. ``games.kinds.gin.points`` turns the facts into the
summary ``manage.py replay`` prints.

>>> replay({"game": "gin", "rounds": []})["totals"]
[0, 0]
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.engine.cards import ALL_CARDS, is_card
from games.engine.errors import IllegalAction, InvalidRecord
from games.engine.gin.match import (
    GAME,
    HAND_SIZE,
    Column,
    Match,
    apply_action,
    match_from_deal,
    next_dealer,
    next_round_from_deal,
    normalize_options,
    resign,
)

STOCK_SIZE = 52 - 2 * HAND_SIZE - 1


def _check_deal(rnd: object, number: int) -> tuple[int, list[list[str]], str, list[str], list[Any]]:
    """The round's dealer, hands, upcard, stock and moves, checked to be a full deck and well formed."""
    if not isinstance(rnd, dict):
        raise InvalidRecord("a round must be an object with dealer, hands, upcard, stock and moves",
                            round_number=number)
    for key in ("dealer", "hands", "upcard", "stock", "moves"):
        if key not in rnd:
            raise InvalidRecord(f"the round has no {key!r}", round_number=number)
    dealer = rnd["dealer"]
    if type(dealer) is not int or dealer not in (0, 1):
        raise InvalidRecord(f"dealer must be seat 0 or 1, not {dealer!r}", round_number=number)
    hands = rnd["hands"]
    if not isinstance(hands, list) or len(hands) != 2 or not all(isinstance(h, list) for h in hands):
        raise InvalidRecord("hands must be a list of two hands", round_number=number)
    for seat, hand in enumerate(hands):
        if len(hand) != HAND_SIZE:
            raise InvalidRecord(f"seat {seat}'s hand has {len(hand)} cards, not {HAND_SIZE}", round_number=number)
    upcard = rnd["upcard"]
    stock = rnd["stock"]
    if not isinstance(stock, list):
        raise InvalidRecord("stock must be a list of card codes", round_number=number)
    if len(stock) != STOCK_SIZE:
        raise InvalidRecord(f"the stock has {len(stock)} cards, not {STOCK_SIZE}", round_number=number)
    cards = [*hands[0], *hands[1], upcard, *stock]
    bad = [c for c in cards if not is_card(c)]
    if bad:
        raise InvalidRecord(f"not a card code: {bad[0]!r}", round_number=number)
    if len(set(cards)) != len(cards):
        twice = sorted(code for code, copies in Counter(cards).items() if copies > 1)
        raise InvalidRecord(f"the deal is not the 52 cards: {', '.join(twice)} dealt twice", round_number=number)
    assert set(cards) == set(ALL_CARDS)
    moves = rnd["moves"]
    if not isinstance(moves, list):
        raise InvalidRecord("moves must be a list", round_number=number)
    return dealer, hands, upcard, stock, moves


def _play_moves(m: Match, moves: list[Any], number: int) -> Match:
    for index, move in enumerate(moves):
        if m.round.phase == "round_over":
            when = "the match" if m.over else "the round"
            raise InvalidRecord(f"a move after {when} had ended", round_number=number, move_index=index)
        if not isinstance(move, dict):
            raise InvalidRecord(f"a move must be an object, not {move!r}", round_number=number, move_index=index)
        seat = move.get("seat")
        if type(seat) is not int or seat not in (0, 1):
            raise InvalidRecord(f"a move needs seat 0 or 1, not {seat!r}", round_number=number, move_index=index)
        action = {k: v for k, v in move.items() if k != "seat"}
        try:
            m = apply_action(m, seat, action)
        except IllegalAction as exc:
            raise InvalidRecord(str(exc), round_number=number, move_index=index) from None
    if m.round.phase != "round_over":
        raise InvalidRecord("the round is incomplete: its moves stop before the round ends",
                            round_number=number, move_index=len(moves))
    return m


def replay_match(record: dict[str, Any]) -> Match | None:
    """The match a record describes (None for a record with no rounds)."""
    try:
        options = normalize_options(record.get("options", {}))
    except ValueError as exc:
        raise InvalidRecord(f"bad options: {exc}") from None
    players = record.get("players")
    if players is not None and (not isinstance(players, list) or len(players) != 2):
        raise InvalidRecord("players must be a list of two names")
    rounds = record.get("rounds")
    if not isinstance(rounds, list):
        raise InvalidRecord("rounds must be a list")
    m: Match | None = None
    for number, rnd in enumerate(rounds, start=1):
        if m is not None and m.over:
            moves = rnd.get("moves") if isinstance(rnd, dict) else None
            raise InvalidRecord("the match was already over", round_number=number,
                                move_index=0 if moves else None)
        dealer, hands, upcard, stock, moves = _check_deal(rnd, number)
        if m is None:
            m = match_from_deal(options, players=players, dealer=dealer, hands=hands, upcard=upcard, stock=stock)
        else:
            expected = next_dealer(m)
            if dealer != expected:
                raise InvalidRecord(f"seat {expected} must deal this round by the rules, not seat {dealer}",
                                    round_number=number)
            m = next_round_from_deal(m, dealer=dealer, hands=hands, upcard=upcard, stock=stock)
        m = _play_moves(m, moves, number)
    resigned = record.get("resigned")
    if resigned is not None:
        if type(resigned) is not int or resigned not in (0, 1):
            raise InvalidRecord(f"resigned must be seat 0 or 1, not {resigned!r}")
        if m is None:
            raise InvalidRecord("a resignation before any round was played leaves no result (an abort)")
        if m.over:
            raise InvalidRecord("a resignation after the match was already over",
                                round_number=m.round.number)
        m = resign(m, resigned)
    return m


def replay(record: dict[str, Any]) -> dict[str, Any]:
    """Replay a gin record into the facts of the match; InvalidRecord names round, move and why."""
    if not isinstance(record, dict):
        raise InvalidRecord("a record is a JSON object")
    m = replay_match(record)
    if m is not None:
        return m.facts()
    options = normalize_options(record.get("options", {}))
    return {"game": GAME, "options": options, "rounds": [], "totals": [0, 0], "boxes": [0, 0],
            "columns": [Column().to_json() for _ in range(3)] if options["hollywood"] else [],
            "over": False, "winner": None, "resigned": None}
