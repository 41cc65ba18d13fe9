"""The one place where what a client sees is built: a seat's view or the public one, from the engine's
view with its points (the game entry's ``view``) plus table, seat and user facts. Hidden cards are filtered by
the engine's view; this module adds nothing secret and strips what a spectator must never get, as a second fence."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from accounts.protocols import Person
from games import registry
from games.engine.cards import is_card
from games.models import ChatMessage, Match, Round, Seat, Table
from games.reads.policy import table_policy

#: Keys a spectator's view must never carry, whatever the game and whatever its engine returns; each game's
#: entry names its own besides (``GameEntry.seat_only_keys``).
SEAT_ONLY_KEYS = ("hand", "legal_actions", "hints")


@dataclass
class TableSnapshot:
    """Everything the presenter needs about one table at one version (loaded once, shared by every seat)."""

    table: Table
    seats: list[Seat]
    match: Match | None = None
    state: Any = None  # the engine's Match object, or None before the first deal
    current_round: Round | None = None
    last_finished_round: Round | None = None
    # Whether the last finished round may be shown to whoever did not play it here (its deal, and the hands
    # left at its end): ``games.reads.selectors.last_round_disclosed``. Unknown counts as no.
    last_deal_disclosed: bool = False
    extra: dict = field(default_factory=dict)
    # The points part of every view of ``state`` (score sheet, result): the same for every audience, so it is
    # computed once, by the first view built, and shared by the others (``game_view``).
    points: dict | None = None


def seat_name(seat: Seat) -> str:
    if seat.is_bot:
        return f"Computer {seat.index + 1} ({seat.get_bot_level_display()})"
    if seat.user_id is None:
        return ""
    assert seat.user is not None  # user_id is set
    return seat.user.get_username()


def seat_of_user(seats: list[Seat], user: Person | None) -> int | None:
    """The seat index ``user`` holds at this table, or None (spectator, anonymous, or left)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    for seat in seats:
        if seat.user_id == user.pk:
            return seat.index
    return None


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def seat_summary(seat: Seat) -> dict:
    return {
        "index": seat.index,
        "name": seat_name(seat),
        "user_id": seat.user_id,
        "bot": seat.bot_level,
        "taken": seat.taken,
        "left": seat.left,
        "ready": seat.ready,
        "timeouts": seat.consecutive_timeouts,
    }


def _table_facts(table: Table) -> dict:
    """What the lobby and the table page both say about a table (public: no state, no invitation)."""
    return {
        "id": table.pk,
        "game": table.game,
        "preset": table.preset,
        "options": table.options,
        "ranked": table.ranked,
        "private": table.private,
        "status": table.status,
        "seat_count": table.seat_count,
    }


def table_summary(table: Table, seats: list[Seat]) -> dict:
    """A table as the lobby lists it."""
    return {
        **_table_facts(table),
        "free_seats": sum(1 for seat in seats if not seat.taken),
        "seats": [{"index": s.index, "name": seat_name(s), "bot": s.bot_level} for s in seats],
        "created_at": _iso(table.created_at),
    }


def _round_facts(snapshot: TableSnapshot) -> tuple[dict | None, dict | None]:
    current = snapshot.current_round
    last = snapshot.last_finished_round
    current_facts = None
    if current is not None:
        current_facts = {"number": current.number, "deal_hash": current.deal_hash, "finished": bool(current.finished_at)}
    # A deal is revealed only once its round has ended, so anyone can check it against the published hash;
    # a deal other tables share, only once they have all finished that round (same deals).
    last_facts = None
    if last is not None and last.finished_at is not None and snapshot.last_deal_disclosed:
        last_facts = {"number": last.number, "deal_hash": last.deal_hash, "deal": last.deal}
    return current_facts, last_facts


def game_view(snapshot: TableSnapshot, seat_index: int | None) -> dict | None:
    """The view for ``seat_index`` (None: a spectator) with its points, and the spectator fence applied."""
    if snapshot.state is None:
        return None
    entry = registry.get(snapshot.table.game)
    if snapshot.points is None:
        snapshot.points = entry.points(snapshot.state)
    view = entry.view(snapshot.state, seat_index, points=snapshot.points)
    if seat_index is None:
        for key in (*SEAT_ONLY_KEYS, *entry.seat_only_keys):
            view.pop(key, None)
        if view.get("last_round") is not None and not snapshot.last_deal_disclosed:
            # The hands left at the end of a round whose deal other tables are still playing: the players
            # here saw them when the rules laid them open, nobody else sees them before those tables finish.
            view["last_round"] = _cards_hidden(view["last_round"])
    return view


def _cards_hidden(value: Any) -> Any:
    """``value`` with every card code taken out (a card alone becomes None, lists of cards empty), its shape
    kept, so a client shows a round's result without its cards."""
    if isinstance(value, str):
        return None if is_card(value, allow_joker=True) else value
    if isinstance(value, list):
        return [_cards_hidden(v) for v in value if not (isinstance(v, str) and is_card(v, allow_joker=True))]
    if isinstance(value, dict):
        return {key: _cards_hidden(v) for key, v in value.items() if not is_card(key, allow_joker=True)}
    return value


def table_state(snapshot: TableSnapshot, seat_index: int | None) -> dict:
    """The ``state`` frame for one seat (or a spectator): table facts, seats and the game view.

    Whoever left the match (resigned, three timeouts, removed) gets the public view from then on: ``you`` is
    None and ``left`` names the seat they had, so nothing their seat is dealt later reaches them."""
    table = snapshot.table
    left = None
    if seat_index is not None and snapshot.match is not None and snapshot.seats[seat_index].left:
        left, seat_index = seat_index, None
    current_round, last_deal = _round_facts(snapshot)
    match = snapshot.match
    return {
        "type": "state",
        "version": table.version,
        "table": {
            **_table_facts(table),
            "turn_deadline": _iso(table.turn_deadline),
            "seats": [seat_summary(seat) for seat in snapshot.seats],
            "you": seat_index,
            "left": left,
            "match": (
                {"id": match.pk, "number": match.number, "status": match.status, "result": match.result,
                 "abort_votes": match.abort_votes}
                if match
                else None
            ),
            "round": current_round,
            "last_deal": last_deal,
            "chat": table_policy(table).chat,
        },
        "view": game_view(snapshot, seat_index),
    }


def chat_frame(message: ChatMessage, *, seat_index: int | None) -> dict:
    """A chat line as typed: plain text, escaped by whatever renders it (``textContent``, a Django template)."""
    return {
        "type": "chat",
        "id": message.pk,
        "user": message.user.get_username(),
        "seat": seat_index,
        "text": message.text,
        "at": _iso(message.created_at),
    }
