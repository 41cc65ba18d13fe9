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

from games import registry
from games.engine.errors import InvalidRecord
from games.engine.records import check_envelope
from games.kinds.base import DEAL_KEYS, deal_of

#: The most positions one record may have on a page (a long Rommé list has about a thousand).
MAX_POSITIONS = 20_000

__all__ = ["DEAL_KEYS", "MAX_POSITIONS", "deal_of", "replay_positions"]


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
    entry = registry.get(record["game"])
    summary = entry.replay_summary(record)  # raises InvalidRecord: nothing below runs on an illegal record
    moves = sum(len(r["moves"]) for r in record["rounds"])
    if moves + len(record["rounds"]) > MAX_POSITIONS:
        raise InvalidRecord(f"the record has more than {MAX_POSITIONS} positions: too long to show")
    rounds, positions = entry.replay_positions(record)
    for info, rnd_summary in zip(rounds, summary["rounds"], strict=False):
        info["summary"] = rnd_summary
    return {"summary": summary, "rounds": rounds, "positions": positions}
