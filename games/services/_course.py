"""The course of play at a locked, playing table: apply engine actions, log them, close rounds and matches,
schedule the next deadline, save and fan out. Private to ``games.services``; each public service opens the
transaction and locks the table, then drives one ``Play``."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError

from games import registry
from games.delivery import events
from games.models import Match, Move, Round, Seat, Table
from games.reads.presenters import TableSnapshot, seat_name
from games.services import _common
from games.services._writes import PreparedInsert, PreparedUpdate
from games.services.ending import match_end

#: Seconds the round-end view stays up before the referee deals the next round (unless all are ready).
ROUND_BREAK_SECONDS = 15
#: A move's log rows, their INSERT compiled once (games.services._writes): nothing reads their ids back.
_MOVE_INSERT = PreparedInsert(Move)
#: A move's save of the table row (its changed columns), compiled once per set of columns; on PostgreSQL the
#: log rows go in the same statement.
_TABLE_UPDATE = PreparedUpdate(Table)


#: The columns of a seat a change may set.
_SEAT_FIELDS = ["consecutive_timeouts", "left", "ready"]
#: The columns of the table row a change may set besides its version and state (``Play.finish``).
_TRACKED = ("status", "turn_deadline", "bot_due_at", "current_match_id", "current_round_id", "last_round_id",
            "moves_logged")


class Play:
    """One change in progress at a locked, playing table: the engine state, the log, the schedule."""

    def __init__(self, table: Table, seats: list[Seat], now: datetime, *, fresh_state: Any = None,
                 fresh_round: Round | None = None) -> None:
        self.table = table
        self.seats = seats
        self.now = now
        self.entry = registry.get(table.game)
        self.engine = self.entry.engine
        assert table.current_match is not None  # a playing table has its match
        self.match: Match = table.current_match
        # A match just dealt brings its state and first round; otherwise both are read back from the row.
        self.state = fresh_state if fresh_state is not None else _common.load_state(table)
        self.round: Round | None
        self.last_round: Round | None
        if fresh_round is not None:
            self.round, self.last_round = fresh_round, None
        else:
            self.round, self.last_round = _common.rounds_of(table)
        self.fresh = fresh_state is not None
        self._next_seq = 0 if self.fresh else table.moves_logged
        # The log rows of this change, written with the table row (``finish``) or before anything reads them.
        self._unlogged: list[Move] = []
        # The row's columns a change may set, as read: ``finish`` saves only those that changed.
        self._read = {name: getattr(table, name) for name in _TRACKED}
        self.changed_seats: set[int] = set()
        self.lobby = False
        # How the match ends if this change ends it: a seat leaving names it, else it was played out.
        self.ending = Match.Ending.FINISHED

    def log(self, seat: int | None, action: dict, by: str) -> None:
        # The seq is the match's count of logged moves, kept in the locked row (``Table.moves_logged``): no
        # query of the log, and the unique (match, seq) still refuses a move logged twice when it is written.
        self._unlogged.append(Move(
            table=self.table,
            match=self.match,
            round_number=self.state.round_number,
            seq=self._next_seq,
            seat=seat,
            action=action,
            by=by,
            version=self.table.version + 1,
        ))
        self._next_seq += 1
        self.table.moves_logged = self._next_seq

    def _write_log(self) -> None:
        """Write the log rows now: before a round's or a match's end, whose records and receivers read the log."""
        if self._unlogged:
            _MOVE_INSERT.insert(*self._unlogged)
            self._unlogged = []

    def apply(self, seat: int, action: dict, *, by: str) -> None:
        rng = _common.table_rng(self.match.number, self.state.round_number, "move", self.table.version, self._next_seq)
        self.state = self.engine.apply_action(self.state, seat, action, rng=rng)
        self.log(seat, action, by)

    def seat_changed(self, seat: Seat) -> None:
        self.changed_seats.add(seat.index)

    def leave(self, seat: Seat, *, by: str) -> None:
        """The seat leaves the match (resigned, three timeouts, removed by staff): the engine plays on."""
        rng = _common.table_rng(self.match.number, self.state.round_number, "resign", self.table.version)
        ended = self.round if self.round is not None and self.round.finished_at is not None else None
        if ended is not None and ended.record is not None:
            # Between rounds: the engine may note the resignation in the record of the round just ended
            # (Rommé), which the stored state leaves to the Round row. Put it back, and save what comes of it.
            self.state = self.entry.with_round_record(self.state, ended.number, ended.record)
        self.state = self.engine.resign(self.state, seat.index, rng=rng)
        if ended is not None and ended.record is not None:
            record = self.entry.round_record(self.state, ended.number)
            if record != ended.record:
                ended.record = record
                ended.save(update_fields=["record"])
        self.log(seat.index, {"action": "resign"}, by)
        seat.left = True
        self.seat_changed(seat)
        self.ending = Match.Ending.TIMEOUTS if by == Move.By.TIMEOUT else Match.Ending.RESIGNED

    def play_timeout_move(self, seat: int, *, by: str = Move.By.TIMEOUT) -> None:
        """The spec's timeout move: the engine's actions in order, until the turn has passed on."""
        for action in self.engine.timeout_actions(self.state):
            self.apply(seat, action, by=by)
            if self.state.to_act != seat:
                break

    def finish(self) -> TableSnapshot:
        """Close a finished round or match, schedule the next deadline, save, bump, and send after commit."""
        table, state = self.table, self.state
        round_over = state.to_act is None
        round_just_ended = round_over and self.round is not None and self.round.finished_at is None
        if round_just_ended or state.over or self.fresh:
            self._write_log()
        if round_just_ended:
            self._close_round()
        if state.over:
            self._end_match()
        elif round_just_ended:
            # The round-end view (every hand revealed) stays up until all people are ready or the break ends.
            for seat in self.seats:
                self._set_ready(seat, seat.is_bot or seat.left or seat.user_id is None)
            table.turn_deadline = self.now + timedelta(seconds=ROUND_BREAK_SECONDS)
            table.bot_due_at = None
        elif not round_over:
            self._schedule_turn()
        table.state = self.entry.stored_state(state)
        last_round = self.round if self.round is not None and self.round.finished_at else self.last_round
        table.current_round, table.last_round = self.round, last_round
        _common.bump(table)
        if self.fresh:
            _common.save_table(table)
        else:
            changed = [name.removesuffix("_id") for name in _TRACKED if getattr(table, name) != self._read[name]]
            logged, self._unlogged = self._unlogged, []
            if not _TABLE_UPDATE.update(table, ["version", "state", "updated_at", *changed],
                                        inserting=(_MOVE_INSERT, logged)):
                raise DatabaseError("The table row to save is gone.")  # as save(update_fields=...) says it
        changed_seats = [seat for seat in self.seats if seat.index in self.changed_seats]
        if len(changed_seats) == 1:
            changed_seats[0].save(update_fields=_SEAT_FIELDS)
        elif changed_seats:  # a deal clears every seat's "ready": one statement, not one per seat
            Seat.objects.bulk_update(changed_seats, _SEAT_FIELDS)
        snapshot = _common.snapshot(
            table, self.seats, match=self.match, state=state, current_round=self.round, last_round=last_round
        )
        events.table_changed(snapshot, lobby=self.lobby)
        return snapshot

    def deal_next_round(self) -> None:
        rng = _common.deal_rng(self.table, self.match.number, self.state.round_number + 1)
        self.state = self.engine.deal_next_round(self.state, rng)
        self.last_round, self.round = self.round, start_round(self.match, self.state)
        for seat in self.seats:
            self._set_ready(seat, False)

    def _close_round(self) -> None:
        assert self.round is not None  # a round in play is closing
        # The state keeps the record of the round just finished (not necessarily the older ones: stored_state).
        record = self.entry.round_record(self.state, self.round.number)
        if record is not None:
            self.round.record = record
            self.round.result = self.entry.view(self.state, None).get("last_round")
        else:  # a resignation ended the match in the middle of the round: nothing was scored
            self.round.record = None
            self.round.result = {"result": "abandoned"}
        self.round.finished_at = self.now
        self.round.save(update_fields=["record", "result", "finished_at"])

    def _schedule_turn(self) -> None:
        schedule_turn(self.table, self.seats, self.state, self.now)

    def _end_match(self) -> None:
        match_end(table=self.table, seats=self.seats, match=self.match, state=self.state, how=self.ending,
                  now=self.now)
        for seat in self.seats:
            self._set_ready(seat, False)
        self.lobby = True

    def _set_ready(self, seat: Seat, ready: bool) -> None:
        if seat.ready != ready:
            seat.ready = ready
            self.seat_changed(seat)


def start_round(match: Match, state: Any) -> Round:
    deal = state.current_deal()
    return Round.objects.create(match=match, number=state.round_number, deal_hash=_common.deal_hash(deal), deal=deal)


def schedule_turn(table: Table, seats: list[Seat], state: Any, now: datetime) -> None:
    """Set the clock of the seat to act in ``state``: its turn time, or a computer player's pause."""
    seat = seats[state.to_act]
    if seat.is_bot or seat.left or seat.user_id is None:
        # A computer player (or a seat whose player left) moves through the referee after a short pause.
        table.bot_due_at = now + timedelta(seconds=float(settings.GAMES_BOT_DELAY_SECONDS))
        table.turn_deadline = None
    else:
        table.turn_deadline = now + timedelta(seconds=int(table.options.get("turn_seconds", 45)))
        table.bot_due_at = None


def match_players(seats: list[Seat]) -> list[dict[str, Any]]:
    """A new match's ``players``, in seat order, as its record names them."""
    return [{"seat": seat.index, "user_id": seat.user_id, "name": seat_name(seat), "bot": seat.bot_level}
            for seat in seats]


def start_match(table: Table, seats: list[Seat], now: datetime) -> TableSnapshot:
    """Deal the first round of a new match at a table whose seats are all taken."""
    number = (table.matches.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    players = match_players(seats)
    match = Match.objects.create(
        table=table, number=number, game=table.game, options=table.options, ranked=table.ranked, players=players
    )
    match.users.set([seat.user_id for seat in seats if seat.user_id is not None])
    eng = registry.get(table.game).engine
    state = eng.new_match(
        table.options, seats=table.seat_count, rng=_common.deal_rng(table, number, 1),
        players=[p["name"] for p in players],
    )
    for seat in seats:
        seat.consecutive_timeouts = 0
        seat.left = False
        seat.ready = False
        seat.save(update_fields=["consecutive_timeouts", "left", "ready"])
    table.status = Table.Status.PLAYING
    table.current_match = match
    play = Play(table, seats, now, fresh_state=state, fresh_round=start_round(match, state))
    play.lobby = True
    return play.finish()
