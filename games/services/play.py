"""The course of a match as its players drive it: moves, "ready" between rounds, resigning, calling a
match off before its first move, rematches; and what staff may do to a table (end it, remove a player)."""

from __future__ import annotations

from datetime import timedelta
from typing import cast

from django.db import transaction

from games.delivery import events
from games.models import Match, Move, Seat, Table
from games.reads import policy, selectors
from games.services import _common
from games.services._common import ServiceError
from games.services._course import Play, start_match
from games.services.ending import match_end
from games.services.referee import TIMEOUTS_TO_LEAVE

#: A move that arrives this many seconds after the turn time ran out still counts (the time it was on the wire).
LATE_GRACE_SECONDS = 1.0


def move_apply(*, table_id: int | str, user: selectors.User, version: object, action: object) -> int:
    """Apply one engine action of the user's seat. Returns the new table version."""
    action = _common.check_action(action)
    with transaction.atomic():
        table, seats = _common.locked_table_and_seats(table_id)
        seat = _common.require_seat(table, seats, user)
        _common.require_status(table, Table.Status.PLAYING)
        _common.check_version(table, version)
        if seat.left:
            raise ServiceError("not_seated", "Du hast diese Partie verlassen.", version=table.version)
        play = Play(table, seats, _common.now_or())
        if play.state.to_act != seat.index:
            raise ServiceError("not_your_turn", "Du bist nicht am Zug.", version=table.version)
        if table.turn_deadline is not None and play.now > table.turn_deadline + timedelta(seconds=LATE_GRACE_SECONDS):
            # The turn is the server's now; the referee plays the timeout move on its next pass.
            raise ServiceError("turn_over", "Deine Zugzeit ist abgelaufen; der Server zieht für dich.",
                               version=table.version)
        try:
            play.apply(seat.index, action, by=Move.By.PLAYER)
        except ValueError as error:
            raise ServiceError("illegal_action", f"Dieser Zug geht nicht: {error}", version=table.version) from None
        if seat.consecutive_timeouts:
            seat.consecutive_timeouts = 0
            play.seat_changed(seat)
        play.finish()
        return table.version


def round_ready(*, table_id: int | str, user: selectors.User, version: object = None) -> int:
    """Between rounds: the user has seen the round's end. When every person is ready the next round is dealt."""
    with transaction.atomic():
        table, seats = _common.locked_table_and_seats(table_id)
        seat = _common.require_seat(table, seats, user)
        _common.require_status(table, Table.Status.PLAYING)
        if version is not None:
            _common.check_version(table, version)
        play = Play(table, seats, _common.now_or())
        if play.state.to_act is not None or play.state.over:
            raise ServiceError("not_between_rounds", "Die Runde läuft noch.", version=table.version)
        if seat.ready:
            return table.version  # confirmed already: a repeat changes nothing and tells nobody
        seat.ready = True
        play.seat_changed(seat)
        if all(s.ready or s.left or s.is_bot for s in seats):
            play.deal_next_round()
        play.finish()
        return table.version


def match_resign(*, table_id: int | str, user: selectors.User) -> None:
    """Resign: the seat leaves the match, which ends (or goes on without it) as the spec says."""
    with transaction.atomic():
        table, seats = _common.locked_table_and_seats(table_id)  # as a move reads them
        seat = _common.require_seat(table, seats, user)
        _common.require_status(table, Table.Status.PLAYING)
        if seat.left:
            raise ServiceError("not_seated", "Du hast diese Partie schon verlassen.", version=table.version)
        play = Play(table, seats, _common.now_or())
        play.leave(seat, by=Move.By.RESIGN)
        play.finish()


def match_abort(*, table_id: int | str, user: selectors.User) -> bool:
    """Call the match off before its first move: no result is recorded, and the match's ``left_seats`` names
    the seat that called it off (ratings counts that as an abandon of a ranked match, ratings.md).

    At a casual table someone opened, calling off needs its creator or everyone seated (issue 25: a stranger
    who sat down could otherwise wreck the creator's table). Anyone else's call is a proposal: it is kept
    (``Match.abort_votes``) and shown at the table, and the match is called off once the creator agrees or
    every person seated has asked (computer players agree). Returns whether the match was called off.

    Never at a tournament table (``abort_not_allowed``): the refusal says what happens instead to whoever
    does not play (the turn timer, the timeout moves, the tournament's forfeit rule)."""
    with transaction.atomic():
        table = _common.locked_table(table_id)
        seats = _common.seats_of(table)
        seat = _common.require_seat(table, seats, user)
        _common.require_status(table, Table.Status.PLAYING)
        if not _common.table_policy(table).abort:
            raise ServiceError(
                "abort_not_allowed", policy.abort_refusal(table, timeouts_to_leave=TIMEOUTS_TO_LEAVE),
                version=table.version,
            )
        match = table.current_match
        assert match is not None  # a playing table has its match
        if match.moves.exists():
            raise ServiceError(
                "match_started", "Nach dem ersten Zug kann die Partie nicht mehr abgebrochen werden.", version=table.version
            )
        if seat.left:
            raise ServiceError("not_seated", "Du hast diese Partie schon verlassen.", version=table.version)
        if _abort_is_a_proposal(table, seat):
            votes = sorted({*match.abort_votes, seat.index})
            people = [s.index for s in seats if s.user_id is not None and not s.left]
            if not set(people) <= set(votes):
                if seat.index in match.abort_votes:
                    raise ServiceError("abort_asked", _abort_waiting(table, seats), version=table.version)
                match.abort_votes = votes
                match.save(update_fields=["abort_votes"])
                _common.bump(table)
                _common.save_table(table)
                current, last = _common.latest_rounds(match)
                events.table_changed(
                    _common.snapshot(table, seats, match=match, state=_common.load_state(table),
                                     current_round=current, last_round=last)
                )
                return False
        _abort(table, seats, by_seat=seat.index)
        return True


def _abort_is_a_proposal(table: Table, seat: Seat) -> bool:
    """Whether ``seat``'s call to abort only proposes it: at a casual table someone opened, from anyone but
    its creator. At a ranked table (where calling off is the caller's abandon, ratings.md) and at a table
    none of its players opened (the pool's), each seat calls off alone."""
    return not table.ranked and table.created_by_id is not None and seat.user_id != table.created_by_id


def _abort_waiting(table: Table, seats: list[Seat]) -> str:
    creator = next((s for s in seats if s.user_id == table.created_by_id and not s.left), None)
    if creator is not None:
        assert table.created_by is not None  # the creator sits here
        return (f"Du hast den Abbruch schon vorgeschlagen; {table.created_by.get_username()} hat den Tisch eröffnet "
                "und muss zustimmen. Wer nicht spielen will, gibt auf (Aufgeben).")
    return "Du hast den Abbruch schon vorgeschlagen; alle am Tisch müssen zustimmen."


def _abort(table: Table, seats: list[Seat], *, by_seat: int | None = None) -> None:
    match = table.current_match
    assert match is not None  # only a playing table is aborted
    state = _common.load_state(table)
    match_end(table=table, seats=seats, match=match, state=state, how=Match.Ending.ABORTED, now=_common.now_or())
    if by_seat is not None:
        # Written before the commit, so the announcement (and any catch-up of it) reads who called it off.
        match.left_seats = [by_seat]
        match.save(update_fields=["left_seats"])
    _common.bump(table)
    _common.save_table(table)
    current, last = _common.latest_rounds(match)
    events.table_changed(
        _common.snapshot(table, seats, match=match, state=state, current_round=current, last_round=last), lobby=True
    )


def match_rematch(*, table_id: int | str, user: selectors.User) -> Match | None:
    """After a match: the user wants another at the same table. When every person agrees it starts."""
    with transaction.atomic():
        table = _common.locked_table(table_id)
        seats = _common.seats_of(table)
        seat = _common.require_seat(table, seats, user)
        _common.require_status(table, Table.Status.FINISHED)
        if not _common.table_policy(table).rematch:
            raise ServiceError("not_allowed", "An Turniertischen gibt es keine Revanche.", version=table.version)
        if any(s.left or not s.taken for s in seats):
            raise ServiceError(
                "seat_left", "Jemand hat die Partie verlassen; für eine Revanche braucht es alle.", version=table.version
            )
        if seat.ready:
            return None  # asked already: a repeat changes nothing and tells nobody
        seat.ready = True
        seat.save(update_fields=["ready"])
        if all(s.ready or s.is_bot for s in seats):
            if table.ranked:
                _require_may_rematch_ranked(table, seats, seat)
            start_match(table, seats, _common.now_or())
            return table.current_match
        events.table_changed(_common.open_snapshot(table, seats))
        return None


def _require_may_rematch_ranked(table: Table, seats: list[Seat], asking: Seat) -> None:
    """A ranked rematch is a new ranked seat for everyone at the table: refused if anyone may not take one
    (a live ranked seat elsewhere meanwhile, a wait for abandoning); the refusal changes nothing."""
    people = sorted((s for s in seats if s.user_id is not None), key=lambda s: cast(int, s.user_id))  # lock order
    for other in people:
        try:
            _common.require_may_sit_ranked(table, [other.user])
        except ServiceError as refused:
            message = refused.message if other.pk == asking.pk else (
                f"Keine gewertete Revanche: {other.user} kann gerade keine gewertete Partie beginnen."
            )
            raise ServiceError("not_allowed", message, version=table.version) from None


# --- staff ----------------------------------------------------------------------------------------------


def _require_staff(by: selectors.User) -> None:
    if by is None or not getattr(by, "is_staff", False):
        raise ServiceError("not_allowed", "Das dürfen nur Mitarbeiter.")


def table_close(*, table_id: int, by: selectors.User) -> None:
    """Staff end a table that is stuck or must not go on: an open table is closed, a running match is
    called off (aborted: no result, not rated). A finished or closed table is left as it is."""
    _require_staff(by)
    with transaction.atomic():
        table = _common.locked_table(table_id)
        seats = _common.seats_of(table)
        if table.status == Table.Status.OPEN:
            table.status = Table.Status.ABORTED
            events.table_changed(_common.open_snapshot(table, seats), lobby=True)
        elif table.status == Table.Status.PLAYING:
            _abort(table, seats)


def seat_remove(*, table_id: int, seat: int, by: selectors.User) -> None:
    """Staff take a player off a table: before the match the seat is freed; during it the player resigns
    (the seat leaves the match as if they had pressed "Aufgeben")."""
    _require_staff(by)
    with transaction.atomic():
        table = _common.locked_table(table_id)
        seats = _common.seats_of(table)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(seats):
            raise ServiceError("bad_message", f"Platz {seat!r} gibt es an diesem Tisch nicht.", version=table.version)
        chosen = seats[seat]
        if table.status == Table.Status.PLAYING:
            if chosen.left:
                raise ServiceError("not_seated", "Dieser Platz hat die Partie schon verlassen.", version=table.version)
            play = Play(table, seats, _common.now_or())
            play.leave(chosen, by=Move.By.RESIGN)
            play.finish()
        elif table.status == Table.Status.OPEN:
            gone = chosen.user_id
            chosen.user = None
            chosen.bot_level = ""
            chosen.ready = False
            chosen.save(update_fields=["user", "bot_level", "ready"])
            events.table_changed(_common.open_snapshot(table, seats), lobby=True,
                                 also_users=[gone] if gone else [])
        else:
            raise ServiceError("not_playing", "An diesem Tisch läuft keine Partie.", version=table.version)
