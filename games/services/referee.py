"""The referee's moves: the timeout move of an overdue turn, the next deal after the break between rounds,
and the moves of computer players (and of seats whose player left). Each applied once, whatever races."""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction

from games import registry
from games.models import Move, Table
from games.reads import selectors
from games.services import _common
from games.services._common import ServiceError
from games.services._course import Play
from games.thinking import FAILED, Thinker

logger = logging.getLogger(__name__)

#: Timed-out turns in a row that count as leaving the match.
TIMEOUTS_TO_LEAVE = 3


def _locked_if_due(table_id: int | str, due_field: str, now: datetime) -> Table | None:
    """The playing table, locked, if its ``due_field`` time has come; None if another worker holds it, it is
    not playing, or nothing is due (checked again under the lock, so each due move is applied once)."""
    table = _common.locked_table(table_id, skip_locked=True)
    if table is None or table.status != Table.Status.PLAYING:
        return None
    due = getattr(table, due_field)
    if due is None or due > now:
        return None
    return table


def turn_timeout(*, table_id: int | str, now: datetime | None = None) -> bool:
    """Play the spec's timeout move for an overdue turn (or deal the next round after the break).

    The deadline is checked again under the lock, so two referees apply each timeout exactly once; a table
    another worker holds is skipped (it will be looked at again on the next pass). Returns True if applied.
    """
    now = _common.now_or(now)
    with transaction.atomic():
        table = _locked_if_due(table_id, "turn_deadline", now)
        if table is None:
            return False
        seats = _common.seats_of(table)
        play = Play(table, seats, now)
        state = play.state
        if state.to_act is None:
            if not state.over:
                play.deal_next_round()
            play.finish()
            return True
        seat = seats[state.to_act]
        seat.consecutive_timeouts += 1
        play.seat_changed(seat)
        if seat.consecutive_timeouts >= TIMEOUTS_TO_LEAVE:
            play.leave(seat, by=Move.By.TIMEOUT)
        else:
            play.play_timeout_move(seat.index)
        play.finish()
        return True


def seat_timeout_move(*, table_id: int, seat: int) -> int:
    """Play the timeout move for ``seat`` now, if it is that seat's turn (a tournament's forfeit, a seat
    whose player is gone). Returns the new table version."""
    with transaction.atomic():
        table = _common.locked_table(table_id)
        _common.require_status(table, Table.Status.PLAYING)
        seats = _common.seats_of(table)
        play = Play(table, seats, _common.now_or())
        if isinstance(seat, bool) or not isinstance(seat, int) or play.state.to_act != seat:
            raise ServiceError("not_your_turn", f"Platz {seat!r} ist nicht am Zug.", version=table.version)
        play.play_timeout_move(seat)
        play.finish()
        return table.version


def bot_move(*, table_id: int | str, now: datetime | None = None, thinker: Thinker | None = None) -> bool:
    """Play one action of the computer player to act, once its short pause is over. Returns True if played.

    With a ``thinker``, a bot whose level searches does not think here: its search is started in the
    thinker's worker and this returns False; a later call applies the answer if the table is still at the
    version the search saw (else it starts a new one). Without one (``manage.py referee --once``, tests) the
    search runs here, bounded by its iteration budget alone."""
    now = _common.now_or(now)
    with transaction.atomic():
        table = _locked_if_due(table_id, "bot_due_at", now)
        if table is None:
            return False
        seats = _common.seats_of(table)
        play = Play(table, seats, now)
        if play.state.to_act is None:
            play.finish()
            return True
        seat = seats[play.state.to_act]
        if seat.is_bot:
            rng = _common.table_rng(play.match.number, play.state.round_number, "bot", table.version)
            entry = registry.get(table.game)
            if thinker is not None and entry.bot_searches(seat.bot_level):
                action = thinker.answer(table.pk, table.version)
                if action is None:
                    thinker.start(table.pk, table.version, bots=entry.bots.__name__, level=seat.bot_level,
                                  view=entry.engine.view(play.state, seat.index), seed=rng.getrandbits(64))
                    return False
            else:
                action = entry.bot_action(play.state, seat.index, seat.bot_level, rng)
            try:
                if action is FAILED:
                    raise ValueError("the search failed")
                play.apply(seat.index, action, by=Move.By.BOT)
            except ValueError:
                # A bot that errs must not stall the table: it plays the timeout move instead.
                logger.exception("bot at table %s chose an illegal action %r", table.pk, action)
                play.play_timeout_move(seat.index)
        else:
            # The player of this seat left but the engine still gives it turns: play the timeout move.
            play.play_timeout_move(seat.index)
        play.finish()
        return True


def referee_pass(*, now: datetime | None = None, limit: int = 200, thinker: Thinker | None = None) -> int:
    """One pass of the referee: every overdue turn and every due computer move. Returns how many it played.

    ``thinker``: where searching bots think (see :func:`bot_move`); a table whose bot is still thinking is
    skipped."""
    now = _common.now_or(now)
    played = 0
    for table_id, kind in selectors.tables_due(now=now, limit=limit):
        try:
            if kind == "timeout":
                played += turn_timeout(table_id=table_id, now=now)
            elif thinker is None or not thinker.thinking(table_id):
                played += bot_move(table_id=table_id, now=now, thinker=thinker)
        except Exception:  # one broken table must not stop the referee for all others
            logger.exception("referee could not handle table %s", table_id)
    return played
