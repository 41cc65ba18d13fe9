"""A game record stepped through move by move with the engine, as the replay viewer shows it: every position
with all hands open (the match is over), so the page that shows it knows no rules.

A record is first replayed whole with ``games.engine.records.replay_record`` (which raises ``InvalidRecord``
naming the round, the move and why); only a legal record is stepped through. There is one position per deal
(before the first move) and one after each move, so a record has ``deals + moves`` positions.

>>> replay_positions({"game": "gin", "rounds": []})["positions"]
[]
"""

from __future__ import annotations

from typing import Any

from games import outcomes
from games.engine.errors import InvalidRecord
from games.engine.records import check_envelope

#: The most positions one record may have on a page (a long Rommé list has about a thousand).
MAX_POSITIONS = 20_000

DEAL_KEYS = ("dealer", "hands", "upcard", "stock")


def deal_of(record_round: dict) -> dict:
    """The deal of a record round: exactly the object whose canonical JSON the site hashed when it began."""
    return {key: record_round[key] for key in DEAL_KEYS}


def replay_positions(record: dict[str, Any]) -> dict[str, Any]:
    """``{"summary": ..., "rounds": [{"number", "deal", "first", "last", "summary"}], "positions": [...]}``.

    ``first``/``last`` are the indexes of a round's first and last position in ``positions``. A position is
    ``{"round", "move", "to_act", "phase", "discard", "discard_size", "stock_size", "stock_top", ...}``
    where ``move`` is the record move that led to it (``None`` for the deal) with the card a draw took.
    Gin positions add per seat ``arranged`` (the hand as the least-deadwood melds, its deadwood cards last) and
    ``deadwood``; Rommé ones ``hands`` per seat, ``melds`` on the table, ``opened`` and ``left``.
    Raises ``InvalidRecord`` for an illegal record or one too long to show.
    """
    check_envelope(record)
    summary = outcomes.replay(record)  # raises InvalidRecord: nothing below runs on an illegal record
    moves = sum(len(r["moves"]) for r in record["rounds"])
    if moves + len(record["rounds"]) > MAX_POSITIONS:
        raise InvalidRecord(f"the record has more than {MAX_POSITIONS} positions: too long to show")
    stepper = _gin_positions if record["game"] == "gin" else _romme_positions
    rounds, positions = stepper(record)
    for info, rnd_summary in zip(rounds, summary["rounds"], strict=False):
        info["summary"] = rnd_summary
    return {"summary": summary, "rounds": rounds, "positions": positions}


# --- gin ----------------------------------------------------------------------------------------------------


def _gin_positions(record: dict) -> tuple[list[dict], list[dict]]:
    from games.engine.cards import ALL_CARDS
    from games.engine.gin.match import apply_action, match_from_deal, next_round_from_deal
    from games.engine.gin.melds import best_melds, cards_of

    def position(m, number: int, move: dict | None) -> dict:
        rnd = m.round
        arranged, deadwood = [], []
        for mask in rnd.hands:
            cards = cards_of(mask)
            groups, points = best_melds(cards)
            melded = {c for group in groups for c in group}
            arranged.append(groups + [[c for c in cards if c not in melded]])
            deadwood.append(points)
        remaining = rnd.stock[rnd.stock_pos:]
        return {
            "round": number,
            "move": move,
            "arranged": arranged,
            "deadwood": deadwood,
            "to_act": None if rnd.phase == "round_over" else rnd.to_act,
            "phase": rnd.phase,
            "discard": ALL_CARDS[rnd.discard[-1]] if rnd.discard else None,
            "discard_size": len(rnd.discard),
            "stock_size": len(remaining),
            "stock_top": ALL_CARDS[remaining[0]] if remaining else None,
        }

    options = record.get("options", {})
    players = record.get("players")
    rounds: list[dict] = []
    positions: list[dict] = []
    m = None
    for number, rnd in enumerate(record["rounds"], start=1):
        deal = deal_of(rnd)
        if m is None:
            m = match_from_deal(options, players=players, **deal)
        else:
            m = next_round_from_deal(m, **deal)
        first = len(positions)
        positions.append(position(m, number, None))
        for move in rnd["moves"]:
            seat = move["seat"]
            before = m.round.hands[seat]
            m = apply_action(m, seat, {k: v for k, v in move.items() if k != "seat"})
            shown = dict(move)
            if move["action"] == "draw":
                (shown["card"],) = cards_of(m.round.hands[seat] & ~before)
            positions.append(position(m, number, shown))
        rounds.append({"number": number, "deal": deal, "first": first, "last": len(positions) - 1})
    return rounds, positions


# --- Rommé --------------------------------------------------------------------------------------------------


def _romme_positions(record: dict) -> tuple[list[dict], list[dict]]:
    # The Rommé replay's own deal check and move step, so the positions come from exactly the rules the
    # replay command applies (a resignation, a reshuffle and a seat played by the server included).
    from games.engine.romme.match import Match, normalize_options
    from games.engine.romme.melds import meld_codes_sorted
    from games.engine.romme.replay import _check_deal, _replay_move

    rounds_in = record["rounds"]
    options = record.get("options", {})
    seats = len(rounds_in[0]["hands"]) if rounds_in else None
    if "seats" not in options and seats is not None:
        options = normalize_options(options, seats=seats)
    else:
        options = normalize_options(options)

    def position(m: Match, number: int, move: dict | None) -> dict:
        r = m.round
        return {
            "round": number,
            "move": move,
            "hands": [meld_codes_sorted(h) for h in r.hands],
            "melds": [{"number": t.number, "owner": t.owner, "cards": list(t.meld.cards)} for t in r.melds],
            "opened": list(r.opened),
            "left": list(m.left),
            "to_act": None if r.over else r.to_act,
            "phase": r.phase,
            "discard": r.discard_pile[-1] if r.discard_pile else None,
            "discard_size": len(r.discard_pile),
            "stock_size": len(r.stock),
            "stock_top": r.stock[0] if r.stock else None,
        }

    rounds: list[dict] = []
    positions: list[dict] = []
    m: Match | None = None
    for number, rnd in enumerate(rounds_in, start=1):
        expected = None if m is None else (m.round.dealer + 1) % options["seats"]
        r = _check_deal(rnd, options["seats"], number, expected)
        r.opening_points = options["opening_points"]
        if m is None:
            m = Match(options=options, players=record.get("players"), round_=r)
        else:
            m.round = r
            m.round_logged = False
        first = len(positions)
        positions.append(position(m, number, None))
        for index, move in enumerate(rnd["moves"]):
            _replay_move(m, move, number, index)
            shown = {k: v for k, v in move.items() if k != "stock"}  # a reshuffle's new order: its size
            if move.get("action") == "reshuffle":
                shown["stock_size"] = len(move["stock"])
            elif move.get("action") == "draw" and m.round.drawn_card is not None:
                shown["card"] = m.round.drawn_card
            positions.append(position(m, number, shown))
        rounds.append({"number": number, "deal": deal_of(rnd), "first": first, "last": len(positions) - 1})
    return rounds, positions
