"""What every service module shares: the refusal type, the row lock, the checks, the deal's randomness,
the table policy, and the snapshot handed to the fan-out. Private to ``games.services``."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import secrets
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any, Literal, overload

from django.conf import settings
from django.utils import timezone

from games import registry
from games.models import Match, Round, Seat, Table
from games.reads import selectors
from games.reads.policy import TablePolicy, table_policy  # noqa: F401  (re-exported for the services)
from games.reads.prepared import MARK, Prepared, fetch_together
from games.reads.presenters import TableSnapshot

#: The largest action a client may send, as compact JSON (a Rommé lay-out of 13 cards fits easily).
ACTION_MAX_BYTES = 2048


class ServiceError(Exception):
    """A refused request: ``code`` is stable for programs, ``message`` is for people (German)."""

    def __init__(self, code: str, message: str, *, version: int | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.version = version

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


#: Checks other apps register (``ranked_seat_guard_add``) for a person about to take a seat at a ranked
#: table: each gets the user and returns None, or a message (German) that refuses the seat (ratings: someone
#: who abandoned too many rated matches waits). The games app does not know who registers them.
RANKED_SEAT_GUARDS: list = []


def ranked_seat_guard_add(guard: Callable[[Any], str | None]) -> None:
    """Register ``guard(user) -> str | None``; called inside the seating transaction, so keep it to reads."""
    if guard not in RANKED_SEAT_GUARDS:
        RANKED_SEAT_GUARDS.append(guard)


def require_may_sit_ranked(table_or_none: Table | None, users: Iterable[Any]) -> None:
    """Refuse (``not_allowed``) if any registered guard refuses one of ``users`` a ranked seat."""
    for user in users:
        for guard in RANKED_SEAT_GUARDS:
            reason = guard(user)
            if reason:
                version = table_or_none.version if table_or_none is not None else None
                raise ServiceError("not_allowed", reason, version=version)


def now_or(now: datetime | None = None) -> datetime:
    return now or timezone.now()


def table_id_of(table_id: Any) -> int:
    if isinstance(table_id, bool):
        raise ServiceError("no_table", "Diesen Tisch gibt es nicht.")
    try:
        return int(table_id)
    except (TypeError, ValueError):
        raise ServiceError("no_table", "Diesen Tisch gibt es nicht.") from None


#: What of a table's rounds the locked read leaves out: a change writes a round's record and result (the
#: record is the whole round, every move) but never reads them. The deals stay: the frames show the last
#: finished round's (``presenters._round_facts``), and the round in play is that round once it ends.
_ROUND_COLUMNS_UNREAD = ("current_round__record", "current_round__result", "last_round__record", "last_round__result")


def _locked(skip_locked: bool) -> Prepared[Table]:
    return Prepared(
        lambda pk: (
            Table.objects.select_for_update(skip_locked=skip_locked, of=("self",))
            .select_related("current_match", "current_round", "last_round")
            .defer(*_ROUND_COLUMNS_UNREAD)
            .filter(pk=pk)
        ),
        MARK,
    )


_LOCKED, _LOCKED_SKIPPING = _locked(False), _locked(True)


def _seat_users_unread() -> list[str]:
    """The columns of a seat's user that a change and its frames never read: all but the id and the name
    (``presenters.seat_name``). Left in the database (``defer``): the password hash, the e-mail address, the
    names, the dates; a field left out would still be read on first use, one query."""
    from django.contrib.auth import get_user_model

    User = get_user_model()
    kept = {User._meta.pk.name, User.USERNAME_FIELD}
    return [f"user__{field.name}" for field in User._meta.concrete_fields if field.name not in kept]


#: A table's seats as ``selectors.seats_of`` reads them (its queryset: the order and the users joined), but of
#: the users only what a change reads (``_seat_users_unread``): the seats read with the locked row on every move.
_SEATS: Prepared[Seat] = Prepared(lambda table_id: selectors.SEATS.build(table_id).defer(*_seat_users_unread()), MARK)


@overload
def locked_table(table_id: Any, *, skip_locked: Literal[False] = False) -> Table: ...
@overload
def locked_table(table_id: Any, *, skip_locked: bool) -> Table | None: ...
def locked_table(table_id: Any, *, skip_locked: bool = False) -> Table | None:
    """Lock and return the table row. ``skip_locked`` (the referee): None if another worker holds it."""
    table_id = table_id_of(table_id)
    # One statement: the row, its match and the two rounds a change needs (``rounds_of``), without the
    # rounds' JSON a change does not read (``_ROUND_COLUMNS_UNREAD``); compiled once (``games.reads.prepared``).
    found = (_LOCKED_SKIPPING if skip_locked else _LOCKED).fetch(table_id)
    if not found:
        if skip_locked:
            return None
        raise ServiceError("no_table", "Diesen Tisch gibt es nicht.")
    return _joined(found[0])


def locked_table_and_seats(table_id: Any) -> tuple[Table, list[Seat]]:
    """``locked_table`` and its ``seats_of`` (their users' id and name only: ``_SEATS``), in one round trip to PostgreSQL (with the transaction's BEGIN:
    ``prepared.fetch_together``). The seats' read runs after the lock is held, so it sees the seats as the
    last change to the table committed them."""
    table_id = table_id_of(table_id)
    found, seats = fetch_together((_LOCKED, (table_id,)), (_SEATS, (table_id,)))
    if not found:
        raise ServiceError("no_table", "Diesen Tisch gibt es nicht.")
    table = _joined(found[0])
    return table, _of_table(seats, table)


def _joined(table: Table) -> Table:
    if table.current_match_id is not None and (table.current_match is None
                                               or table.current_match.pk != table.current_match_id):
        # A lock that waited for a rematch's commit joins the row to no match (see ``rounds_of``).
        table.current_match = Match.objects.get(pk=table.current_match_id)
    return table


def seats_of(table: Table) -> list[Seat]:
    """The seats of a locked table in order, their users' id and name only (``_SEATS``), as a move reads them."""
    return _of_table(_SEATS.fetch(table.pk), table)


def _of_table(seats: list[Seat], table: Table) -> list[Seat]:
    for seat in seats:
        seat.table = table  # as a related manager's queryset sets it
    return seats


def user_seat(seats: list[Seat], user: selectors.User) -> Seat | None:
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return next((seat for seat in seats if seat.user_id == user.pk), None)


def require_signed_in(user: selectors.User, message: str) -> None:
    if user is None or not getattr(user, "is_authenticated", False):
        raise ServiceError("not_signed_in", message)


def require_seat(table: Table, seats: list[Seat], user: selectors.User) -> Seat:
    seat = user_seat(seats, user)
    if seat is None:
        raise ServiceError("not_seated", "Du sitzt nicht an diesem Tisch.", version=table.version)
    return seat


def require_status(table: Table, *statuses: str) -> None:
    if table.status not in statuses:
        messages: dict[str, str] = {
            Table.Status.OPEN: "Die Partie hat schon begonnen.",
            Table.Status.PLAYING: "An diesem Tisch läuft gerade keine Partie.",
            Table.Status.FINISHED: "Die Partie ist noch nicht beendet.",
        }
        code = {"open": "not_open", "playing": "not_playing", "finished": "not_finished"}[statuses[0]]
        raise ServiceError(code, messages[statuses[0]], version=table.version)


def check_version(table: Table, version: Any) -> None:
    if isinstance(version, bool) or not isinstance(version, int):
        raise ServiceError("bad_message", "Die Nachricht braucht die Tischversion (eine ganze Zahl).", version=table.version)
    if version != table.version:
        raise ServiceError(
            "stale_version",
            f"Der Tisch hat sich inzwischen geändert (Version {table.version}, deine {version}).",
            version=table.version,
        )


def check_action(action: Any) -> dict:
    if not isinstance(action, dict) or not isinstance(action.get("action"), str):
        raise ServiceError("bad_message", 'Ein Zug ist ein Objekt mit "action", z. B. {"action": "draw", "from": "stock"}.')
    try:
        size = len(json.dumps(action, separators=(",", ":")))
    except (TypeError, ValueError):
        raise ServiceError("bad_message", "Der Zug ist kein gültiges JSON-Objekt.") from None
    if size > ACTION_MAX_BYTES:
        raise ServiceError("too_large", f"Der Zug ist zu groß (höchstens {ACTION_MAX_BYTES} Zeichen).")
    return action


def table_rng(*parts: Any) -> random.Random:
    """The randomness of deals and computer players: the OS CSPRNG.

    The test-only setting ``GAMES_TEST_DEAL_SEED`` is the seam where a test chooses its deals: the generator
    is then seeded by that seed and ``parts`` alone (match number, round, what it is for), never by the
    table's id, so a test gets the same deals whichever tests ran before it.
    """
    seed = settings.GAMES_TEST_DEAL_SEED
    if seed:
        return random.Random(":".join(str(p) for p in (seed, *parts)))
    return secrets.SystemRandom()


def deal_rng(table: Table, match_number: int, round_number: int) -> random.Random:
    """The randomness of one round's deal. A table with a ``deal_seed`` (a tournament's "same deals") draws
    it from a generator seeded by HMAC-SHA256 of that secret and the round, so every table given the same
    seed deals the same cards in the same order, and seeing one round's deal tells nothing of the next."""
    if table.deal_seed:
        key = hmac.new(table.deal_seed.encode(), f"{match_number}:{round_number}".encode(), hashlib.sha256)
        return random.Random(key.digest())
    return table_rng(match_number, round_number, "deal")


def deal_hash(deal: dict) -> str:
    """sha256 of the canonical JSON of a deal (sorted keys, no spaces), published when the round starts."""
    canonical = json.dumps(deal, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def load_state(table: Table) -> Any:
    return registry.get(table.game).engine.Match.from_json(table.state)


def snapshot(table: Table, seats: list[Seat], *, match: Match | None = None, state: Any = None,
             current_round: Round | None = None, last_round: Round | None = None) -> TableSnapshot:
    return TableSnapshot(
        table=table, seats=seats, match=match, state=state, current_round=current_round, last_finished_round=last_round,
        last_deal_disclosed=selectors.last_round_disclosed(table=table, match=match, last_round=last_round),
    )


def latest_rounds(match: Match | None) -> tuple[Round | None, Round | None]:
    """The round in play (or just ended) and the last finished one, in one query."""
    if match is None:
        return None, None
    rounds = list(match.rounds.order_by("-number")[:2])
    current = rounds[0] if rounds else None
    return current, next((r for r in rounds if r.finished_at is not None), None)


def rounds_of(table: Table) -> tuple[Round | None, Round | None]:
    """The current match's round in play (or just ended) and its last finished one, as the table row names
    them and ``locked_table`` read them with it.

    Read from the rounds instead when the joined rows are not the ones the row names: a row written before
    tables kept them, or (PostgreSQL, READ COMMITTED) a lock that waited for another change's commit, which
    returns the row as that change left it but joins it to rows as they were when the statement began, so
    a round dealt meanwhile is missing from the join. No query otherwise."""
    if table.current_match_id is None:
        return None, None
    current, last = table.current_round, table.last_round
    if (current is None or current.pk != table.current_round_id or current.match_id != table.current_match_id
            or (last.pk if last is not None else None) != table.last_round_id):
        return latest_rounds(table.current_match)
    return current, last


def bump(table: Table) -> None:
    table.version += 1


def save_table(table: Table) -> None:
    table.save(
        update_fields=[
            "status", "version", "turn_deadline", "bot_due_at", "state", "current_match", "updated_at",
            "options", "preset", "current_round", "last_round", "moves_logged",
        ]
    )


def open_snapshot(table: Table, seats: list[Seat]) -> TableSnapshot:
    """Save an open table's change (a seat taken or freed), bump it, and return what the fan-out needs."""
    bump(table)
    save_table(table)
    current, last = latest_rounds(table.current_match)
    state = load_state(table) if table.state else None
    return snapshot(table, seats, match=table.current_match, state=state, current_round=current, last_round=last)
