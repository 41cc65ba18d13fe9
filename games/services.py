"""Every write of live play: create, join and leave tables, start matches, apply moves, resign, abort, time
turns out, let computer players move, deal the next round, rematch, invite and chat.

Each function runs in one transaction with the table row locked (``select_for_update``; on SQLite the
IMMEDIATE transaction takes the write lock at BEGIN instead), checks seat, turn and version, applies the
engine, appends to the move log, bumps the version and schedules the fan-out for after the commit. Any
refusal raises :class:`ServiceError` before anything is written, so nothing changes on an error.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import secrets
import unicodedata
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import engines, events, selectors
from games.models import BotLevel, ChatMessage, Game, Match, Move, Round, Seat, Table
from games.presenters import TableSnapshot, chat_frame, seat_name

logger = logging.getLogger(__name__)

#: Seconds the round-end view stays up before the referee deals the next round (unless all are ready).
ROUND_BREAK_SECONDS = 15
#: A move that arrives this many seconds after the turn time ran out still counts (the time it was on the wire).
LATE_GRACE_SECONDS = 1.0
#: Timed-out turns in a row that count as leaving the match.
TIMEOUTS_TO_LEAVE = 3
CHAT_MAX_LENGTH = 300
CHAT_RATE_COUNT = 5
CHAT_RATE_SECONDS = 10
#: The largest action a client may send, as compact JSON (a Rommé lay-out of 13 cards fits easily).
ACTION_MAX_BYTES = 2048

PRESETS: dict[str, dict[str, dict]] = {
    "gin": {
        "klassisch": {},
        "schnell": {"target": 0, "first_turn": "free"},
        "oklahoma": {"variant": "oklahoma"},
        "straight": {"variant": "straight"},
        "hollywood": {"hollywood": True},
    },
    "romme": {
        "standard": {},
        "turnier": {"tournament": True},
    },
}
DEFAULT_PRESET = {"gin": "klassisch", "romme": "standard"}


class ServiceError(Exception):
    """A refused request: ``code`` is stable for programs, ``message`` is for people (German)."""

    def __init__(self, code: str, message: str, *, version: int | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.version = version

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


# --- helpers --------------------------------------------------------------------------------------------


def _now(now: datetime | None = None) -> datetime:
    return now or timezone.now()


def _locked_table(table_id: Any, *, skip_locked: bool = False) -> Table | None:
    """Lock and return the table row. ``skip_locked`` (the referee): None if another worker holds it."""
    try:
        table_id = int(table_id)
    except (TypeError, ValueError):
        raise ServiceError("no_table", "Diesen Tisch gibt es nicht.") from None
    try:
        return (
            Table.objects.select_for_update(skip_locked=skip_locked, of=("self",))
            .select_related("current_match")
            .get(pk=table_id)
        )
    except Table.DoesNotExist:
        if skip_locked:
            return None
        raise ServiceError("no_table", "Diesen Tisch gibt es nicht.") from None


def _seats(table: Table) -> list[Seat]:
    return list(table.seats.select_related("user").order_by("index"))


def _user_seat(seats: list[Seat], user) -> Seat | None:
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return next((seat for seat in seats if seat.user_id == user.pk), None)


def _require_seat(table: Table, seats: list[Seat], user) -> Seat:
    seat = _user_seat(seats, user)
    if seat is None:
        raise ServiceError("not_seated", "Du sitzt nicht an diesem Tisch.", version=table.version)
    return seat


def _require_status(table: Table, *statuses: str) -> None:
    if table.status not in statuses:
        messages = {
            Table.Status.OPEN: "Die Partie hat schon begonnen.",
            Table.Status.PLAYING: "An diesem Tisch läuft gerade keine Partie.",
            Table.Status.FINISHED: "Die Partie ist noch nicht beendet.",
        }
        code = {"open": "not_open", "playing": "not_playing", "finished": "not_finished"}[statuses[0]]
        raise ServiceError(code, messages[statuses[0]], version=table.version)


def _check_version(table: Table, version: Any) -> None:
    if isinstance(version, bool) or not isinstance(version, int):
        raise ServiceError("bad_message", "Die Nachricht braucht die Tischversion (eine ganze Zahl).", version=table.version)
    if version != table.version:
        raise ServiceError(
            "stale_version",
            f"Der Tisch hat sich inzwischen geändert (Version {table.version}, deine {version}).",
            version=table.version,
        )


def _check_action(action: Any) -> dict:
    if not isinstance(action, dict) or not isinstance(action.get("action"), str):
        raise ServiceError("bad_message", 'Ein Zug ist ein Objekt mit "action", z. B. {"action": "draw", "from": "stock"}.')
    try:
        size = len(json.dumps(action, separators=(",", ":")))
    except (TypeError, ValueError):
        raise ServiceError("bad_message", "Der Zug ist kein gültiges JSON-Objekt.") from None
    if size > ACTION_MAX_BYTES:
        raise ServiceError("too_large", f"Der Zug ist zu groß (höchstens {ACTION_MAX_BYTES} Zeichen).")
    return action


def _rng(table: Table, *parts: Any) -> random.Random:
    """The deal's randomness: the OS CSPRNG; a seeded generator only under the test-only setting."""
    seed = getattr(settings, "GAMES_TEST_DEAL_SEED", "")
    if seed:
        return random.Random(":".join(str(p) for p in (seed, table.pk, *parts)))
    return secrets.SystemRandom()


def deal_hash(deal: dict) -> str:
    """sha256 of the canonical JSON of a deal (sorted keys, no spaces), published when the round starts."""
    canonical = json.dumps(deal, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def _load_state(table: Table):
    return engines.engine(table.game).Match.from_json(table.state)


def _normalize_options(game: str, options: dict) -> tuple[dict, int]:
    if not isinstance(options, dict):
        raise ServiceError("bad_options", "Die Tischoptionen müssen ein Objekt sein.")
    low, high = engines.SEAT_RANGE[game]
    seats = options.get("seats", engines.DEFAULT_SEATS[game])
    if isinstance(seats, bool) or not isinstance(seats, int) or not low <= seats <= high:
        where = "genau 2" if low == high else f"{low} bis {high}"
        raise ServiceError("bad_options", f"Die Zahl der Plätze muss {where} sein.")
    try:
        normalized = engines.engine(game).normalize_options(dict(options), seats=seats)
    except ValueError as error:
        raise ServiceError("bad_options", f"Ungültige Tischoption: {error}") from None
    return normalized, seats


def _snapshot(table: Table, seats: list[Seat], *, match=None, state=None, current_round=None, last_round=None):
    return TableSnapshot(
        table=table, seats=seats, match=match, state=state, current_round=current_round, last_finished_round=last_round
    )


def _latest_rounds(match: Match | None) -> tuple[Round | None, Round | None]:
    """The round in play (or just ended) and the last finished one, in one query."""
    if match is None:
        return None, None
    rounds = list(match.rounds.order_by("-number")[:2])
    current = rounds[0] if rounds else None
    return current, next((r for r in rounds if r.finished_at is not None), None)


def _bump(table: Table) -> None:
    table.version += 1


def _save_table(table: Table) -> None:
    table.save(
        update_fields=[
            "status", "version", "turn_deadline", "bot_due_at", "state", "current_match", "updated_at",
            "options", "preset",
        ]
    )


# --- the course of play ---------------------------------------------------------------------------------


class _Play:
    """One change in progress at a locked, playing table: the engine state, the log, the schedule."""

    def __init__(self, table: Table, seats: list[Seat], now: datetime, *, fresh_state=None, fresh_round=None):
        self.table = table
        self.seats = seats
        self.now = now
        self.engine = engines.engine(table.game)
        self.match: Match = table.current_match
        # A match just dealt brings its state and first round; otherwise both are read back from the row.
        self.state = fresh_state if fresh_state is not None else _load_state(table)
        if fresh_round is not None:
            self.round, self.last_round = fresh_round, None
        else:
            self.round, self.last_round = _latest_rounds(self.match)
        self._next_seq: int | None = 0 if fresh_state is not None else None
        self.changed_seats: set[int] = set()
        self.lobby = False

    def log(self, seat: int | None, action: dict, by: str) -> None:
        if self._next_seq is None:
            last = self.match.moves.order_by("-seq").values_list("seq", flat=True).first()
            self._next_seq = 0 if last is None else last + 1
        Move.objects.create(
            table=self.table,
            match=self.match,
            round_number=self.state.round_number,
            seq=self._next_seq,
            seat=seat,
            action=action,
            by=by,
            version=self.table.version + 1,
        )
        self._next_seq += 1

    def apply(self, seat: int, action: dict, *, by: str) -> None:
        rng = _rng(self.table, self.match.number, self.state.round_number, "move", self.table.version, self._next_seq)
        self.state = self.engine.apply_action(self.state, seat, action, rng=rng)
        self.log(seat, action, by)

    def seat_changed(self, seat: Seat) -> None:
        self.changed_seats.add(seat.index)

    def finish(self) -> TableSnapshot:
        """Close a finished round or match, schedule the next deadline, save, bump, and send after commit."""
        table, state = self.table, self.state
        round_over = state.to_act is None
        round_just_ended = round_over and self.round is not None and self.round.finished_at is None
        if round_just_ended:
            record = state.record()
            rounds = record.get("rounds", [])
            if len(rounds) >= self.round.number:
                self.round.record = rounds[self.round.number - 1]
                self.round.result = self.engine.view(state, None).get("last_round")
            else:  # a resignation ended the match in the middle of the round: nothing was scored
                self.round.record = None
                self.round.result = {"result": "abandoned"}
            self.round.finished_at = self.now
            self.round.save(update_fields=["record", "result", "finished_at"])
        if state.over:
            self._finish_match()
        elif round_just_ended:
            # The round-end view (every hand revealed) stays up until all people are ready or the break ends.
            for seat in self.seats:
                wanted = seat.is_bot or seat.left or seat.user_id is None
                if seat.ready != wanted:
                    seat.ready = wanted
                    self.seat_changed(seat)
            table.turn_deadline = self.now + timedelta(seconds=ROUND_BREAK_SECONDS)
            table.bot_due_at = None
        elif not round_over:
            self._schedule_turn()
        table.state = state.to_json()
        _bump(table)
        _save_table(table)
        for seat in self.seats:
            if seat.index in self.changed_seats:
                seat.save(update_fields=["consecutive_timeouts", "left", "ready"])
        last_round = self.round if self.round is not None and self.round.finished_at else self.last_round
        snapshot = _snapshot(
            table, self.seats, match=self.match, state=state, current_round=self.round, last_round=last_round
        )
        events.table_changed(snapshot, lobby=self.lobby)
        return snapshot

    def _schedule_turn(self) -> None:
        table, seat = self.table, self.seats[self.state.to_act]
        if seat.is_bot or seat.left or seat.user_id is None:
            # A computer player (or a seat whose player left) moves through the referee after a short pause.
            table.bot_due_at = self.now + timedelta(seconds=float(settings.GAMES_BOT_DELAY_SECONDS))
            table.turn_deadline = None
        else:
            table.turn_deadline = self.now + timedelta(seconds=int(table.options.get("turn_seconds", 45)))
            table.bot_due_at = None

    def _finish_match(self) -> None:
        table, match, state = self.table, self.match, self.state
        result = state.result()
        match.status = Match.Status.FINISHED
        match.finished_at = self.now
        match.result = result
        match.final_scores = result.get("final")
        winner = result.get("winner")
        match.winner_seat = winner
        match.winner_id = self.seats[winner].user_id if isinstance(winner, int) else None
        match.left_seats = [seat.index for seat in self.seats if seat.left]
        match.save(update_fields=["status", "finished_at", "result", "final_scores", "winner_seat", "winner", "left_seats"])
        table.status = Table.Status.FINISHED
        table.turn_deadline = None
        table.bot_due_at = None
        for seat in self.seats:
            if seat.ready:
                seat.ready = False
                self.seat_changed(seat)
        self.lobby = True

    def deal_next_round(self) -> None:
        rng = _rng(self.table, self.match.number, self.state.round_number + 1, "deal")
        self.state = self.engine.deal_next_round(self.state, rng)
        self.last_round, self.round = self.round, _start_round(self.match, self.state)
        for seat in self.seats:
            if seat.ready:
                seat.ready = False
                self.seat_changed(seat)


def _start_round(match: Match, state) -> Round:
    deal = state.current_deal()
    return Round.objects.create(match=match, number=state.round_number, deal_hash=deal_hash(deal), deal=deal)


def _start_match(table: Table, seats: list[Seat], now: datetime) -> TableSnapshot:
    """Deal the first round of a new match at a table whose seats are all taken."""
    number = (table.matches.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    players = [
        {"seat": seat.index, "user_id": seat.user_id, "name": seat_name(seat), "bot": seat.bot_level} for seat in seats
    ]
    match = Match.objects.create(
        table=table, number=number, game=table.game, options=table.options, ranked=table.ranked, players=players
    )
    match.users.set([seat.user_id for seat in seats if seat.user_id is not None])
    eng = engines.engine(table.game)
    state = eng.new_match(
        table.options, seats=table.seat_count, rng=_rng(table, number, 1, "deal"), players=[p["name"] for p in players]
    )
    for seat in seats:
        seat.consecutive_timeouts = 0
        seat.left = False
        seat.ready = False
        seat.save(update_fields=["consecutive_timeouts", "left", "ready"])
    table.status = Table.Status.PLAYING
    table.current_match = match
    play = _Play(table, seats, now, fresh_state=state, fresh_round=_start_round(match, state))
    play.lobby = True
    return play.finish()


def _open_snapshot(table: Table, seats: list[Seat]) -> TableSnapshot:
    """Save an open table's change (a seat taken or freed) and tell the table and the lobby."""
    _bump(table)
    _save_table(table)
    current, last = _latest_rounds(table.current_match)
    state = _load_state(table) if table.state else None
    return _snapshot(table, seats, match=table.current_match, state=state, current_round=current, last_round=last)


# --- tables ---------------------------------------------------------------------------------------------


def table_create(
    *,
    user,
    game: str,
    preset: str = "",
    options: dict | None = None,
    ranked: bool = False,
    private: bool = False,
    bots: str = "",
) -> Table:
    """Open a table with the creator in seat 0. ``options`` override the preset's and are validated by the
    engine (every option of the spec, with its defaults filled in). ``bots`` (a level) seats computer players
    in the other seats and starts the match, all in the same transaction: a refused level leaves no table."""
    if user is None or not getattr(user, "is_authenticated", False):
        raise ServiceError("not_signed_in", "Bitte melde dich an, um einen Tisch zu eröffnen.")
    if game not in Game.values:
        raise ServiceError("bad_options", f"Unbekanntes Spiel: {game!r} (gin oder romme).")
    preset = preset or DEFAULT_PRESET[game]
    if preset not in PRESETS[game]:
        names = ", ".join(PRESETS[game])
        raise ServiceError("bad_options", f"Unbekannte Voreinstellung {preset!r} (möglich: {names}).")
    if options is not None and not isinstance(options, dict):
        raise ServiceError("bad_options", "Die Tischoptionen müssen ein Objekt sein.")
    merged = {**PRESETS[game][preset], **(options or {})}
    normalized, seat_count = _normalize_options(game, merged)
    with transaction.atomic():
        table = Table.objects.create(
            game=game,
            preset=preset,
            options=normalized,
            seat_count=seat_count,
            ranked=bool(ranked),
            private=bool(private),
            invite_token=secrets.token_urlsafe(24) if private else "",
            created_by=user,
            version=1,
        )
        seats = [
            Seat.objects.create(table=table, index=index, user=user if index == 0 else None) for index in range(seat_count)
        ]
        events.table_changed(_snapshot(table, seats), lobby=True)
        if bots:
            table_fill_with_bots(table_id=table.pk, user=user, level=bots)
            table.refresh_from_db()
    return table


def table_join(*, table_id, user, seat: int | None = None, invite_token: str = "") -> Seat:
    """Take a free seat (the first free one unless ``seat`` names one). A full table starts at once."""
    if user is None or not getattr(user, "is_authenticated", False):
        raise ServiceError("not_signed_in", "Bitte melde dich an, um dich an einen Tisch zu setzen.")
    with transaction.atomic():
        table = _locked_table(table_id)
        _require_status(table, Table.Status.OPEN)
        if table.private and not selectors.invite_matches(table=table, invite_token=invite_token):
            raise ServiceError("not_invited", "Dieser Tisch ist privat; du brauchst eine Einladung.", version=table.version)
        seats = _seats(table)
        if _user_seat(seats, user) is not None:
            raise ServiceError("already_seated", "Du sitzt schon an diesem Tisch.", version=table.version)
        if seat is None:
            chosen = next((s for s in seats if not s.taken), None)
            if chosen is None:
                raise ServiceError("table_full", "An diesem Tisch ist kein Platz mehr frei.", version=table.version)
        else:
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(seats):
                raise ServiceError("bad_message", f"Platz {seat!r} gibt es an diesem Tisch nicht.", version=table.version)
            chosen = seats[seat]
            if chosen.taken:
                raise ServiceError("seat_taken", "Dieser Platz ist schon besetzt.", version=table.version)
        chosen.user = user
        chosen.save(update_fields=["user"])
        if all(s.taken for s in seats):
            _start_match(table, seats, _now())
        else:
            events.table_changed(_open_snapshot(table, seats), lobby=True)
    return chosen


def table_leave(*, table_id, user) -> None:
    """Give up a seat before the match starts. During a match leaving is resigning (see match_resign)."""
    with transaction.atomic():
        table = _locked_table(table_id)
        seats = _seats(table)
        seat = _require_seat(table, seats, user)
        if table.status == Table.Status.PLAYING:
            raise ServiceError(
                "match_running", "Die Partie läuft – wer gehen will, gibt auf (Aufgeben).", version=table.version
            )
        seat.user = None
        seat.ready = False
        seat.save(update_fields=["user", "ready"])
        if table.status == Table.Status.OPEN and not any(s.user_id for s in seats):
            # The last person left an open table: nobody is there to play it.
            table.status = Table.Status.ABORTED
        events.table_changed(_open_snapshot(table, seats), lobby=True, also_users=[user.pk])


def table_fill_with_bots(*, table_id, user, level: str = BotLevel.SIMPLE) -> list[Seat]:
    """Seat computer players of ``level`` in every free seat; the table then starts."""
    if not isinstance(level, str) or level not in BotLevel.values:
        raise ServiceError("bad_message", f"Unbekannte Spielstärke {level!r} (simple oder expert).")
    with transaction.atomic():
        table = _locked_table(table_id)
        _require_status(table, Table.Status.OPEN)
        seats = _seats(table)
        _require_seat(table, seats, user)
        if table.ranked:
            raise ServiceError(
                "not_allowed", "An gewerteten Tischen spielen nur Menschen; Computergegner gibt es an ungewerteten.",
                version=table.version,
            )
        filled = []
        for seat in seats:
            if not seat.taken:
                seat.bot_level = level
                seat.save(update_fields=["bot_level"])
                filled.append(seat)
        if not filled:
            raise ServiceError("table_full", "An diesem Tisch ist kein Platz mehr frei.", version=table.version)
        _start_match(table, seats, _now())
    return filled


def table_start(*, table_id, user) -> Match:
    """Start the match when every seat is taken (a full table also starts by itself)."""
    with transaction.atomic():
        table = _locked_table(table_id)
        _require_status(table, Table.Status.OPEN)
        seats = _seats(table)
        _require_seat(table, seats, user)
        if not all(seat.taken for seat in seats):
            raise ServiceError("seats_free", "Es sind noch Plätze frei.", version=table.version)
        _start_match(table, seats, _now())
        return table.current_match


def table_invite(*, table_id, user) -> str:
    """The invitation token of a private table, for a link a seated player can pass on."""
    with transaction.atomic():
        table = _locked_table(table_id)
        seats = _seats(table)
        _require_seat(table, seats, user)
        if not table.private:
            raise ServiceError("not_private", "Dieser Tisch ist öffentlich; jeder kann sich setzen.", version=table.version)
        return table.invite_token


# --- moves ----------------------------------------------------------------------------------------------


def move_apply(*, table_id, user, version, action) -> int:
    """Apply one engine action of the user's seat. Returns the new table version."""
    action = _check_action(action)
    with transaction.atomic():
        table = _locked_table(table_id)
        seats = _seats(table)
        seat = _require_seat(table, seats, user)
        _require_status(table, Table.Status.PLAYING)
        _check_version(table, version)
        if seat.left:
            raise ServiceError("not_seated", "Du hast diese Partie verlassen.", version=table.version)
        play = _Play(table, seats, _now())
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


def round_ready(*, table_id, user, version=None) -> int:
    """Between rounds: the user has seen the round's end. When every person is ready the next round is dealt."""
    with transaction.atomic():
        table = _locked_table(table_id)
        seats = _seats(table)
        seat = _require_seat(table, seats, user)
        _require_status(table, Table.Status.PLAYING)
        if version is not None:
            _check_version(table, version)
        play = _Play(table, seats, _now())
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


def match_resign(*, table_id, user) -> None:
    """Resign: the seat leaves the match, which ends (or goes on without it) as the spec says."""
    with transaction.atomic():
        table = _locked_table(table_id)
        seats = _seats(table)
        seat = _require_seat(table, seats, user)
        _require_status(table, Table.Status.PLAYING)
        if seat.left:
            raise ServiceError("not_seated", "Du hast diese Partie schon verlassen.", version=table.version)
        play = _Play(table, seats, _now())
        _leave(play, seat, by=Move.By.RESIGN)
        play.finish()


def _leave(play: _Play, seat: Seat, *, by: str) -> None:
    play.state = play.engine.resign(play.state, seat.index)
    play.log(seat.index, {"action": "resign"}, by)
    seat.left = True
    play.seat_changed(seat)


def match_abort(*, table_id, user) -> None:
    """Call the match off before its first move: no result is recorded."""
    with transaction.atomic():
        table = _locked_table(table_id)
        seats = _seats(table)
        _require_seat(table, seats, user)
        _require_status(table, Table.Status.PLAYING)
        match = table.current_match
        if match.moves.exists():
            raise ServiceError(
                "match_started", "Nach dem ersten Zug kann die Partie nicht mehr abgebrochen werden.", version=table.version
            )
        now = _now()
        match.status = Match.Status.ABORTED
        match.finished_at = now
        match.save(update_fields=["status", "finished_at"])
        table.status = Table.Status.ABORTED
        table.turn_deadline = None
        table.bot_due_at = None
        _bump(table)
        _save_table(table)
        current, last = _latest_rounds(match)
        events.table_changed(
            _snapshot(table, seats, match=match, state=_load_state(table), current_round=current, last_round=last),
            lobby=True,
        )


def match_rematch(*, table_id, user) -> Match | None:
    """After a match: the user wants another at the same table. When every person agrees it starts."""
    with transaction.atomic():
        table = _locked_table(table_id)
        seats = _seats(table)
        seat = _require_seat(table, seats, user)
        _require_status(table, Table.Status.FINISHED)
        if any(s.left or not s.taken for s in seats):
            raise ServiceError(
                "seat_left", "Jemand hat die Partie verlassen; für eine Revanche braucht es alle.", version=table.version
            )
        if seat.ready:
            return None  # asked already: a repeat changes nothing and tells nobody
        seat.ready = True
        seat.save(update_fields=["ready"])
        if all(s.ready or s.is_bot for s in seats):
            _start_match(table, seats, _now())
            return table.current_match
        events.table_changed(_open_snapshot(table, seats))
        return None


# --- the referee's work ---------------------------------------------------------------------------------


def _locked_if_due(table_id, due_field: str, now: datetime) -> Table | None:
    """The playing table, locked, if its ``due_field`` time has come; None if another worker holds it, it is
    not playing, or nothing is due (checked again under the lock, so each due move is applied once)."""
    table = _locked_table(table_id, skip_locked=True)
    if table is None or table.status != Table.Status.PLAYING:
        return None
    due = getattr(table, due_field)
    if due is None or due > now:
        return None
    return table


def turn_timeout(*, table_id, now: datetime | None = None) -> bool:
    """Play the spec's timeout move for an overdue turn (or deal the next round after the break).

    The deadline is checked again under the lock, so two referees apply each timeout exactly once; a table
    another worker holds is skipped (it will be looked at again on the next pass). Returns True if applied.
    """
    now = _now(now)
    with transaction.atomic():
        table = _locked_if_due(table_id, "turn_deadline", now)
        if table is None:
            return False
        seats = _seats(table)
        play = _Play(table, seats, now)
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
            _leave(play, seat, by=Move.By.TIMEOUT)
        else:
            _play_timeout_move(play, seat.index)
        play.finish()
        return True


def _play_timeout_move(play: _Play, seat: int, *, by: str = Move.By.TIMEOUT) -> None:
    """The spec's timeout move: the engine's actions in order, until the turn has passed on."""
    for action in play.engine.timeout_actions(play.state):
        play.apply(seat, action, by=by)
        if play.state.to_act != seat:
            break


def bot_move(*, table_id, now: datetime | None = None) -> bool:
    """Play one action of the computer player to act, once its short pause is over. Returns True if played."""
    now = _now(now)
    with transaction.atomic():
        table = _locked_if_due(table_id, "bot_due_at", now)
        if table is None:
            return False
        seats = _seats(table)
        play = _Play(table, seats, now)
        if play.state.to_act is None:
            play.finish()
            return True
        seat = seats[play.state.to_act]
        if seat.is_bot:
            rng = _rng(table, play.match.number, play.state.round_number, "bot", table.version)
            action = engines.bot_action(table.game, play.state, seat.index, seat.bot_level, rng)
            try:
                play.apply(seat.index, action, by=Move.By.BOT)
            except ValueError:
                # A bot that errs must not stall the table: it plays the timeout move instead.
                logger.exception("bot at table %s chose an illegal action %r", table.pk, action)
                _play_timeout_move(play, seat.index)
        else:
            # The player of this seat left but the engine still gives it turns: play the timeout move.
            _play_timeout_move(play, seat.index)
        play.finish()
        return True


def referee_pass(*, now: datetime | None = None, limit: int = 200) -> int:
    """One pass of the referee: every overdue turn and every due computer move. Returns how many it played."""
    now = _now(now)
    played = 0
    for table_id, kind in selectors.tables_due(now=now, limit=limit):
        try:
            if kind == "timeout":
                played += turn_timeout(table_id=table_id, now=now)
            else:
                played += bot_move(table_id=table_id, now=now)
        except Exception:  # one broken table must not stop the referee for all others
            logger.exception("referee could not handle table %s", table_id)
    return played


# --- chat -----------------------------------------------------------------------------------------------


def chat_post(*, table_id, user, text) -> ChatMessage:
    """A chat line from a seated player (spectators read). Off at tournament tables; rate-limited."""
    if not isinstance(text, str):
        raise ServiceError("bad_message", "Eine Chat-Nachricht braucht Text.")
    # Control characters carry nothing a reader sees (and PostgreSQL refuses NUL): they are dropped.
    text = "".join(ch for ch in text if ch in "\n\t" or unicodedata.category(ch) != "Cc").strip()
    if not text:
        raise ServiceError("bad_message", "Eine Chat-Nachricht braucht Text.")
    if len(text) > CHAT_MAX_LENGTH:
        raise ServiceError("chat_too_long", f"Eine Chat-Nachricht hat höchstens {CHAT_MAX_LENGTH} Zeichen.")
    with transaction.atomic():
        table = _locked_table(table_id)
        seats = _seats(table)
        seat = _require_seat(table, seats, user)
        if table.options.get("tournament"):
            raise ServiceError("chat_off", "An Turniertischen ist der Chat aus.", version=table.version)
        since = timezone.now() - timedelta(seconds=CHAT_RATE_SECONDS)
        if ChatMessage.objects.filter(user=user, created_at__gte=since).count() >= CHAT_RATE_COUNT:
            raise ServiceError(
                "chat_rate_limited",
                f"Bitte langsamer: höchstens {CHAT_RATE_COUNT} Nachrichten in {CHAT_RATE_SECONDS} Sekunden.",
                version=table.version,
            )
        message = ChatMessage.objects.create(table=table, user=user, text=text)
        events.chat_posted(table.pk, chat_frame(message, seat_index=seat.index))
        return message
