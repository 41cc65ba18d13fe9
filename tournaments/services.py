"""Every write of tournaments: the staff's actions, the players' registration and check-in, the stages the
site starts by itself, and the results it records when a tournament table's match ends.

Each public function runs in one transaction with the tournament row locked (``select_for_update``; on
SQLite the IMMEDIATE transaction serialises writers) and is idempotent where a retry is possible: a stage
is unique per tournament and number, a table's result is recorded once. Tables are opened through
``games.services`` only. Refusals raise :class:`tournaments.errors.TournamentError` (``code``, German
``message``; re-exported here) before anything is written; a games service refusing a step is passed on
as one. Every staff action goes to the audit log (who, when, what, why).

The tournament's format (``tournaments.formats``) decides everything format-specific: its options, its
stages and their seating, a table's result, when it is over; nothing here branches on a format's name.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from enum import Enum
from typing import Any, Literal, Protocol

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError, transaction
from django.db.models import Exists, Max, OuterRef, Q
from django.utils import timezone
from django.utils.translation import ngettext

from accounts.protocols import Person
from games import services as games_services
from games.models import Match, Seat, Table
from games.services import ServiceError
from ratings import pool as ratings_pool
from tournaments import formats
from tournaments import notices as tournament_notices
from tournaments.errors import TournamentError
from tournaments.formats.base import clock_minutes
from tournaments.models import AuditEntry, Entry, Stage, StageTable, Tournament

logger = logging.getLogger(__name__)
#: One INFO line per pairing pass of a continuous format (the arena): when, how long, how many seated.
pass_logger = logging.getLogger("tournaments.passes")


class SeedRating(Protocol):
    """The rating that seeds a user (a ``ratings`` rating, or :class:`_FallbackRating`)."""

    @property
    def display(self) -> float: ...

    @property
    def provisional(self) -> bool: ...


#: A user's seeding rating in a tournament's game, as the formats ask for it.
RatingOf = Callable[[Any], SeedRating]

# --- checks -----------------------------------------------------------------------------------------------


def _require_staff(by: Person | None) -> None:
    if by is None or not getattr(by, "is_staff", False):
        raise TournamentError("not_allowed", "Das dürfen nur Turnierleiter (Mitarbeiter).")


def _require_signed_in(user: Person | None) -> None:
    if user is None or not getattr(user, "is_authenticated", False):
        raise TournamentError("not_signed_in", "Bitte melde dich an, um an einem Turnier teilzunehmen.")


def _locked(tournament_id: int | str) -> Tournament:
    try:
        return Tournament.objects.select_for_update().get(pk=int(tournament_id))
    except (Tournament.DoesNotExist, TypeError, ValueError):
        raise TournamentError("no_tournament", "Dieses Turnier gibt es nicht.") from None


def _require_status(t: Tournament, *statuses: str) -> None:
    if t.status not in statuses:
        raise TournamentError(
            "bad_status", f"Das geht nicht, solange das Turnier „{t.get_status_display()}“ ist."
        )


#: A tournament that is over: staff actions on it change nothing and say why (issue 25).
_OVER = (Tournament.Status.FINISHED, Tournament.Status.CANCELLED)


def _refuse_done(t: Tournament, verb: str) -> None:
    """Refuse a staff action on a tournament that is running, finished or cancelled, saying why (instead
    of an "Erledigt." that did nothing)."""
    if t.status == Tournament.Status.CANCELLED:
        why = "Das Turnier ist abgesagt"
        if t.notice:
            why += f" ({t.notice.rstrip('.')})"
        raise TournamentError("cancelled", f"{why}; man kann es nicht mehr {verb}.")
    if t.status == Tournament.Status.FINISHED:
        raise TournamentError("finished", f"Das Turnier ist schon beendet; man kann es nicht mehr {verb}.")
    raise TournamentError("running", "Das Turnier läuft schon.")


def _audit(t: Tournament, by: Person | None, action: str, reason: str = "", **details: Any) -> None:
    AuditEntry.objects.create(
        tournament=t, by_id=by.pk if by is not None and by.is_authenticated else None, action=action,
        reason=reason or "", details=details,
    )


def _format_class(game: str, format: str) -> type[formats.TournamentFormat]:
    games = formats.games()
    if game not in games:
        raise TournamentError("bad_settings", f"Unbekanntes Spiel {game!r} ({' oder '.join(sorted(games))}).")
    names = formats.names(game)
    if format not in names:
        raise TournamentError("bad_settings", f"Für {game} gibt es die Formen {', '.join(names)}.")
    return formats.get(format, game)


def normalize_settings(game: str, format: str, given: dict | None) -> dict:
    """Every tournament option of tournaments.md with its default filled in, each checked (by the format)."""
    return _format_class(game, format).normalize_settings(given)


def table_options(t: Tournament, seats: int) -> dict:
    """The options a table of this tournament with ``seats`` seats opens with."""
    return formats.of(t).table_options(seats)


def _check_options(game: str, format: str, options: dict | None, s: dict) -> dict:
    if options is not None and not isinstance(options, dict):
        raise TournamentError("bad_options", "Die Tischoptionen müssen ein Objekt sein.")
    return _format_class(game, format).check_options(dict(options or {}), s)


@contextmanager
def _games_refusal() -> Iterator[None]:
    """A games service refusing a step the tournament takes is the tournament's refusal (same message)."""
    try:
        yield
    except ServiceError as error:
        raise TournamentError(error.code, error.message) from error


def _seed_rating(user: Person, game: str) -> SeedRating:
    """The rating that seeds ``user`` (knockout seeds, Swiss order within a score group): the ratings app's
    ``rating_of`` where it is installed, else everyone 1500 and provisional (seeded at random)."""
    try:
        from ratings.selectors import rating_of
    except ImportError:
        return _FallbackRating()
    return rating_of(user=user, game=game)


class _FallbackRating:
    display = 1500
    provisional = True


_SEED_RATING = _seed_rating  # the real one (a test may replace ``_seed_rating``; then it is asked per user)


# --- staff: create, edit, publish ---------------------------------------------------------------------


def tournament_create(
    *, by: Person, name: str, game: str, format: str, settings: dict | None = None, options: dict | None = None,
    starts_at: datetime | None = None,
) -> Tournament:
    """A new tournament in draft; staff edit it until they publish it."""
    _require_staff(by)
    name = (name or "").strip()
    if not name or len(name) > 120:
        raise TournamentError("bad_settings", "Ein Turnier braucht einen Namen (bis 120 Zeichen).")
    s = normalize_settings(game, format, settings)
    options = _check_options(game, format, options, s)
    with transaction.atomic():
        t = Tournament.objects.create(
            name=name, game=game, format=format, settings=s, options=options, starts_at=starts_at,
            created_by_id=by.pk,
        )
        _audit(t, by, "create", settings=s, options=options, starts_at=starts_at.isoformat() if starts_at else None)
    return t


class _Unset(Enum):
    UNSET = "unset"


#: ``starts_at`` not given (None clears it).
_UNSET = _Unset.UNSET


def tournament_edit(
    *, tournament_id: int | str, by: Person, name: str | None = None, settings: dict | None = None,
    options: dict | None = None, starts_at: datetime | None | Literal[_Unset.UNSET] = _UNSET,
) -> Tournament:
    """Change a draft (anything), before anyone could register."""
    _require_staff(by)
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(t, Tournament.Status.DRAFT)
        changed: dict[str, Any] = {}
        if name is not None:
            name = name.strip()
            if not name or len(name) > 120:
                raise TournamentError("bad_settings", "Ein Turnier braucht einen Namen (bis 120 Zeichen).")
            t.name = changed["name"] = name
        if settings is not None:
            t.settings = changed["settings"] = normalize_settings(t.game, t.format, {**_given(t), **settings})
        if options is not None or settings is not None:
            t.options = _check_options(t.game, t.format, t.options if options is None else options, t.settings)
            changed["options"] = t.options
        if starts_at is not _UNSET:
            t.starts_at = starts_at
            changed["starts_at"] = starts_at.isoformat() if starts_at else None
        t.save()
        _audit(t, by, "edit", **changed)
    return t


def _given(t: Tournament) -> dict:
    # Settings that normalize_settings fills on its own (the round robin cap) stay as they were given.
    return dict(t.settings)


def tournament_publish(*, tournament_id: int | str, by: Person) -> Tournament:
    """Open registration (from a draft). Publishing again changes nothing."""
    _require_staff(by)
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status == Tournament.Status.REGISTRATION:
            return t
        if t.status in _OVER:
            _refuse_done(t, "veröffentlichen")
        _require_status(t, Tournament.Status.DRAFT)
        t.status = Tournament.Status.REGISTRATION
        t.save(update_fields=["status"])
        _audit(t, by, "publish")
    return t


# --- players: register, withdraw, check in ------------------------------------------------------------


def _require_no_abandon_wait(t: Tournament, user: Person, now: datetime | None = None) -> None:
    """Refuse someone serving a wait for abandoning rated matches that lasts past ``t``'s start (ratings.md
    "Farming"); a running tournament (an arena taking late entries) has started within it."""
    starts_at = t.started_at or t.starts_at
    refusal = ratings_pool.tournament_abandon_refusal(user, starts_at=starts_at, now=now)
    if refusal:
        raise TournamentError("abandon_wait", refusal)


def check_in_opens_at(t: Tournament) -> datetime | None:
    """When check-in opens (None: no check-in, or open all through registration without a start time)."""
    minutes = t.settings.get("check_in_minutes", 0)
    if not minutes or t.starts_at is None:
        return None
    return t.starts_at - clock_minutes(minutes)


def tournament_register(*, tournament_id: int | str, user: Person) -> Entry:
    """Register (or join the waiting list when the tournament is full). Registering again changes nothing."""
    _require_signed_in(user)
    with transaction.atomic():
        t = _locked(tournament_id)
        entry = Entry.objects.filter(tournament=t, user_id=user.pk).first()
        if entry is not None and entry.status in (Entry.Status.REGISTERED, Entry.Status.WAITING,
                                                  Entry.Status.PLAYING):
            return entry
        if entry is not None and entry.status == Entry.Status.REMOVED:
            raise TournamentError("removed", "Die Turnierleitung hat dich aus diesem Turnier genommen.")
        # A format that takes late entries (the arena) registers while it runs, and the entry plays at once.
        late = formats.of(t).joins_late
        _require_status(t, Tournament.Status.REGISTRATION, *((Tournament.Status.RUNNING,) if late else ()))
        _require_no_abandon_wait(t, user)
        number = (t.entries.aggregate(m=Max("number"))["m"] or 0) + 1
        cap = t.settings.get("max_players")
        taken = t.entries.filter(status__in=(Entry.Status.REGISTERED, Entry.Status.PLAYING)).count()
        joined = Entry.Status.PLAYING if t.status == Tournament.Status.RUNNING else Entry.Status.REGISTERED
        status = Entry.Status.WAITING if cap is not None and taken >= cap else joined
        now = timezone.now()
        if entry is None:
            entry = Entry.objects.create(tournament=t, user_id=user.pk, number=number, status=status,
                                         free_since=now, seen_at=now)
        else:  # registering again after withdrawing: at the end of the list
            entry.number, entry.status, entry.checked_in_at = number, status, None
            entry.free_since = entry.seen_at = now
            entry.save(update_fields=["number", "status", "checked_in_at", "free_since", "seen_at"])
    return entry


def tournament_withdraw(*, tournament_id: int | str, user: Person) -> Entry | None:
    """Withdraw before the start; the first on the waiting list moves up."""
    _require_signed_in(user)
    with transaction.atomic():
        t = _locked(tournament_id)
        entry = Entry.objects.filter(tournament=t, user_id=user.pk).first()
        if entry is None or entry.status == Entry.Status.WITHDRAWN:
            return entry
        _require_status(t, Tournament.Status.REGISTRATION)
        was_registered = entry.status == Entry.Status.REGISTERED
        entry.status = Entry.Status.WITHDRAWN
        entry.checked_in_at = None
        entry.save(update_fields=["status", "checked_in_at"])
        if was_registered:
            first = t.entries.filter(status=Entry.Status.WAITING).order_by("number").first()
            if first is not None:
                first.status = Entry.Status.REGISTERED
                first.save(update_fields=["status"])
    return entry


def tournament_check_in(*, tournament_id: int | str, user: Person, now: datetime | None = None) -> Entry:
    """Check in during the check-in window (``check_in_minutes`` before the start). Again: no change."""
    _require_signed_in(user)
    now = now or timezone.now()
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(t, Tournament.Status.REGISTRATION)
        entry = Entry.objects.filter(
            tournament=t, user_id=user.pk, status__in=(Entry.Status.REGISTERED, Entry.Status.WAITING)
        ).first()
        if entry is None:
            raise TournamentError("not_registered", "Du bist für dieses Turnier nicht angemeldet.")
        if not t.settings.get("check_in_minutes"):
            raise TournamentError("no_check_in", "Bei diesem Turnier gibt es kein Einchecken.")
        opens = check_in_opens_at(t)
        if opens is not None and now < opens:
            m = t.settings["check_in_minutes"]
            raise TournamentError("check_in_closed", ngettext("Das Einchecken beginnt erst %(m)d Minute vor dem Start.",
                                                              "Das Einchecken beginnt erst %(m)d Minuten vor dem Start.",
                                                              m) % {"m": m})
        if entry.checked_in_at is None:
            _require_no_abandon_wait(t, user, now=now)
            entry.checked_in_at = now
            entry.save(update_fields=["checked_in_at"])
    return entry


# --- start and stages ---------------------------------------------------------------------------------


def tournament_start(*, tournament_id: int | str, by: Person | None = None, now: datetime | None = None) -> Tournament:
    """Start: drop who did not check in, cancel below ``min_players``, else seat stage 1 and open its
    tables. ``by`` None is the referee (only once ``starts_at`` has come). Starting again changes nothing."""
    if by is not None:
        _require_staff(by)
    now = now or timezone.now()
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status in (Tournament.Status.RUNNING, Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
            if by is not None:  # staff are told why nothing happened; the referee's repeat stays silent
                _refuse_done(t, "starten")
            return t
        _require_status(t, Tournament.Status.REGISTRATION)
        if by is None and (t.starts_at is None or t.starts_at > now):
            return t
        registered = t.entries.filter(status=Entry.Status.REGISTERED)
        dropped: list[int] = []
        if t.settings.get("check_in_minutes"):
            dropped = list(registered.filter(checked_in_at__isnull=True).values_list("user_id", flat=True))
            registered.filter(checked_in_at__isnull=True).update(status=Entry.Status.DROPPED)
        playing = list(t.entries.filter(status=Entry.Status.REGISTERED).select_related("user").order_by("number"))
        minimum = t.settings["min_players"]
        if len(playing) < minimum:
            # tournaments.md: fewer than min_players at the start (by the referee or by staff) cancels it, with
            # a notice; the log says why in one entry (it never started, so there is no "start" entry).
            t.status = Tournament.Status.CANCELLED
            counted = "eingecheckt" if t.settings.get("check_in_minutes") else "angemeldet"
            t.notice = f"Abgesagt: zu wenige Teilnehmer beim Start ({len(playing)} {counted}, mindestens {minimum})."
            t.finished_at = now
            t.save(update_fields=["status", "notice", "finished_at"])
            _audit(t, by, "cancel", reason=t.notice, why="too_few_players", players=[e.user_id for e in playing],
                   min_players=minimum, dropped=dropped, checked_in=bool(t.settings.get("check_in_minutes")))
            tournament_notices.tell(t, "tournament_cancelled")
            return t
        _audit(t, by, "start", dropped=dropped, players=[e.user_id for e in playing])
        Entry.objects.filter(pk__in=[e.pk for e in playing]).update(status=Entry.Status.PLAYING)
        t.status = Tournament.Status.RUNNING
        t.started_at = now
        t.save(update_fields=["status", "started_at"])
        seeds = formats.of(t).seeds(playing, _rating_for(t))
        seeded = [entry for entry in playing if entry.user_id in seeds]
        for entry in seeded:
            entry.seed = seeds[entry.user_id]
        Entry.objects.bulk_update(seeded, ["seed"], batch_size=500)
        t.entries.filter(status=Entry.Status.PLAYING).update(free_since=now)
        stage = _stage_start(t, 1, now)
        _pairing_pass(t, stage, now)  # a continuous format seats whoever is present at once
    return t


def _rating_for(t: Tournament) -> RatingOf:
    """The seeding rating of a user in ``t``'s game, as the formats take it (looked up when called, so a
    test may replace ``_seed_rating``). The stored ratings of every entrant are read in one query (a start
    of a thousand players asks for each of them twice); whoever has none gets the default."""
    game = formats.of(t).game
    seed_rating = _seed_rating
    if seed_rating is not _SEED_RATING:
        return lambda user: seed_rating(user, game)
    try:
        from ratings.models import Rating
    except ImportError:
        return lambda user: seed_rating(user, game)
    stored = {r.user_id: r for r in Rating.objects.filter(game=game, user_id__in=t.entries.values("user_id"))}
    default = seed_rating(AnonymousUser(), game)  # never rated: the defaults, no query

    def rating(user: Person) -> SeedRating:
        found = stored.get(user.pk)
        return found if found is not None else default

    return rating


def tournament_next_stage(*, tournament_id: int | str, by: Person, now: datetime | None = None) -> Stage | None:
    """Staff: start the next stage now instead of after the break (the current one must have ended)."""
    _require_staff(by)
    now = now or timezone.now()
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status in _OVER:
            _refuse_done(t, "in die nächste Runde schicken")
        _require_status(t, Tournament.Status.RUNNING)
        current = t.stages.filter(number=t.current_stage).first()
        if current is not None and current.finished_at is None:
            raise TournamentError("stage_running", "Die laufende Runde ist noch nicht zu Ende.")
        _audit(t, by, "next_stage", stage=t.current_stage + 1)
        return _stage_start(t, t.current_stage + 1, now)


def stage_count(t: Tournament, players: int | None = None) -> int:
    """How many stages the tournament has (fixed at the start)."""
    return formats.of(t).stage_count(players)


def _tables_open(t: Tournament, stage: Stage, seating: list[list[int | None]], now: datetime) -> list[StageTable]:
    """Open a table for each seating of ``stage`` (a bye's result recorded at once), numbered after the
    stage's tables so far; whoever still waited in the ranked pool leaves it. Returns the stage's new tables."""
    fmt = formats.of(t)
    first = (stage.tables.aggregate(m=Max("number"))["m"] or 0) + 1
    users = get_user_model().objects.in_bulk({u for seats in seating for u in seats if u is not None})
    stage_tables = []
    played: list[tuple[StageTable, games_services.SeatedTable]] = []
    for index, seats in enumerate(seating, start=first):
        if None in seats:  # a bye (or a knockout walkover): decided when the stage starts
            stage_tables.append(StageTable(stage=stage, number=index, users=list(seats), finished_at=now,
                                           result=fmt.bye_result(list(seats))))
            continue
        extra: dict[str, str] = {}
        if stage.deal_seeds:
            extra["deal_seed"] = f"{stage.deal_seeds[str(len(seats))]}"
            extra["deal_group"] = f"tournament-stage-{stage.pk}"  # closed together until the stage has ended
        st = StageTable(stage=stage, number=index, users=list(seats))
        stage_tables.append(st)
        played.append((st, games_services.SeatedTable(users=[users[u] for u in seats],
                                                      options=fmt.table_options(len(seats)), **extra)))
    if played:
        with _games_refusal():
            # Every table at once: a constant number of statements, not ~15 a table.
            tables = games_services.tables_create_seated_many(
                game=fmt.game, tables=[seated for _, seated in played], ranked=True, tournament=True,
                created_by=t.created_by,
            )
        for (st, _), table in zip(played, tables, strict=True):
            st.table = table
    StageTable.objects.bulk_create(stage_tables, batch_size=500)  # one statement per 500 tables, not one each
    ratings_pool.pool_drop_seated(user_ids=list(users))  # whoever still waited in the ranked pool leaves it
    return stage_tables


def _stage_start(t: Tournament, number: int, now: datetime) -> Stage:
    """Seat stage ``number`` and open its tables, once: the stage is unique per tournament and number, so
    a second caller (a retry, a second referee) gets the stage the first one started."""
    existing = t.stages.filter(number=number).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            stage = Stage.objects.create(tournament=t, number=number)
    except IntegrityError:
        return t.stages.get(number=number)
    fmt = formats.of(t)
    seating = fmt.seating(number, _rating_for(t))
    deal_seeds = fmt.deal_seeds(seating)
    if deal_seeds:
        stage.deal_seeds = deal_seeds
        stage.save(update_fields=["deal_seeds"])
    _tables_open(t, stage, seating, now)
    t.current_stage = number
    t.next_stage_at = None
    t.save(update_fields=["current_stage", "next_stage_at"])
    _audit(t, None, "stage_start", stage=number, tables=[list(s) for s in seating])
    tournament_notices.stage_seated(t, stage)
    _stage_check_finished(t, stage, now)
    return stage


# --- results ------------------------------------------------------------------------------------------


def match_recorded(*, match_id: int, now: datetime | None = None) -> StageTable | None:
    """Record the end of a tournament table's match (the ``match_ended`` receiver). Once per table: a
    repeated announcement changes nothing. Ends the stage when it was its last table, and with
    ``break_minutes`` 0 starts the next stage in the same call."""
    now = now or timezone.now()
    table_id = Match.objects.filter(pk=match_id).values_list("table_id", flat=True).first()
    if table_id is None:
        return None
    found = StageTable.objects.filter(table_id=table_id).values_list("stage__tournament_id", flat=True).first()
    if found is None:
        return None
    with transaction.atomic():
        t = _locked(found)
        st = StageTable.objects.select_related("stage", "table").get(table_id=table_id)
        if st.finished_at is not None:
            return st
        match = Match.objects.get(pk=match_id)
        fmt = formats.of(t)
        st.result = fmt.table_result(st, match)
        st.finished_at = now
        st.save(update_fields=["result", "finished_at"])
        # Its players are free again from now on, and were present at it (a continuous format seats them).
        t.entries.filter(user_id__in=[u for u in st.users if u is not None]).update(free_since=now, seen_at=now)
        out = [user_id for user_id, abandoned in fmt.abandoned(st.result).items() if abandoned]
        if out:
            t.entries.filter(user_id__in=out).update(**fmt.abandoned_entry())
        if t.status == Tournament.Status.RUNNING:
            _stage_check_finished(t, st.stage, now)
    return st


def _stage_check_finished(t: Tournament, stage: Stage, now: datetime) -> None:
    if stage.finished_at is not None or stage.tables.filter(finished_at__isnull=True).exists():
        return
    if formats.of(t).taking_tables(now):  # an arena before its end: more tables are still to come
        return
    stage.finished_at = now
    stage.save(update_fields=["finished_at"])
    if _is_last_stage(t, stage.number):
        _finish(t, now)
        return
    t.next_stage_at = now + clock_minutes(t.settings.get("break_minutes", 0))
    t.save(update_fields=["next_stage_at"])
    if not t.paused and t.next_stage_at <= now:
        _stage_start(t, stage.number + 1, now)


def _is_last_stage(t: Tournament, number: int) -> bool:
    return formats.of(t).is_over(number)


def _finish(t: Tournament, now: datetime) -> None:
    from tournaments import selectors

    t.status = Tournament.Status.FINISHED
    t.finished_at = now
    t.next_stage_at = None
    t.final_standings = None
    t.save(update_fields=["status", "finished_at", "next_stage_at", "final_standings"])
    t.final_standings = selectors.tournament_standings(tournament_id=t.pk)
    t.save(update_fields=["final_standings"])
    _audit(t, None, "finish")
    tournament_notices.tell(t, "tournament_finished")


# --- continuous formats: pairing on the referee's clock ---------------------------------------------------


def tournament_pair(*, tournament_id: int | str, now: datetime | None = None) -> list[StageTable]:
    """One pairing pass of a running tournament of a continuous format (the arena): open a table for each
    group of free players its format seats now, then end it if its time is over and no table plays.
    Nothing for a paused tournament (staff) or one of stages. Returns the tables opened."""
    now = now or timezone.now()
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status != Tournament.Status.RUNNING:
            return []
        stage = t.stages.filter(number=t.current_stage).first()
        if stage is None or stage.finished_at is not None:
            return []
        return _pairing_pass(t, stage, now)


def _pairing_pass(t: Tournament, stage: Stage, now: datetime) -> list[StageTable]:
    opened: list[StageTable] = []
    fmt = formats.of(t)
    if fmt.continuous and not t.paused:
        seating = _seatable(fmt.pairing(now, _rating_for(t)))
        if seating:
            opened = _tables_open(t, stage, seating, now)
            tournament_notices.tables_seated(t, stage, opened)
    _stage_check_finished(t, stage, now)
    return opened


def _seatable(seating: list[list[int | None]]) -> list[list[int | None]]:
    """The tables of ``seating`` whose players can all be seated now: each person's row locked for us (the
    ranked pool locks the same rows, skipping whoever is locked: one live table at a time, ratings.md) and
    none of them holding a live seat at a ranked or tournament table meanwhile. The others wait a pass."""
    wanted = {u for seats in seating for u in seats if u is not None}
    if not wanted:
        return []
    locked = set(get_user_model().objects.select_for_update(skip_locked=True).filter(pk__in=wanted)
                 .order_by("pk").values_list("pk", flat=True))
    live = set(Seat.objects.filter(user_id__in=locked, left=False,
                                   table__status__in=(Table.Status.OPEN, Table.Status.PLAYING))
               .filter(Q(table__ranked=True) | Q(table__tournament=True)).values_list("user_id", flat=True))
    return [seats for seats in seating if all(u in locked and u not in live for u in seats if u is not None)]


def _pairing_passes(now: datetime) -> int:
    kinds = formats.continuous_kinds()
    if not kinds:
        return 0
    of_kind = Q()
    for game, name in kinds:
        of_kind |= Q(game=game, format=name)
    done = 0
    for t in Tournament.objects.filter(of_kind, status=Tournament.Status.RUNNING, paused=False):
        at, began = time.time(), time.perf_counter()
        if not formats.of(t).pass_due(now):  # an unlocked look first: an idle arena takes no lock
            continue
        opened: list[StageTable] = []
        try:
            opened = tournament_pair(tournament_id=t.pk, now=now)
        except Exception:  # one broken tournament must not stop the others
            logger.exception("tournament step tournament_pair failed (tournament_id=%s)", t.pk)
        else:
            done += 1
        seconds = time.perf_counter() - began
        # Each pass's server time (the unlocked look, the locked pass, its tables opened and committed), for
        # whoever watches the arena's load (`python -m loadtest --profile arena` reads these lines).
        pass_logger.info("arena pass %s", json.dumps({
            "tournament": t.pk, "at": round(at, 4), "seconds": round(seconds, 4),
            "seated": sum(len(st.users) for st in opened), "tables": len(opened)}))
    return done


# --- players during the tournament (formats where players pause) ----------------------------------------


def _own_entry(t: Tournament, user: Person) -> Entry:
    if not formats.of(t).players_pause:
        raise TournamentError("no_pause", "In diesem Turnier gibt es keine Pause.")
    _require_status(t, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING)
    entry = t.entries.filter(user_id=user.pk, status__in=(Entry.Status.REGISTERED, Entry.Status.PLAYING)).first()
    if entry is None:
        raise TournamentError("not_registered", "Du spielst in diesem Turnier nicht mit.")
    return entry


def tournament_player_pause(*, tournament_id: int | str, user: Person) -> Entry:
    """A player pauses: not seated again until they resume (a table they play at is played out)."""
    _require_signed_in(user)
    with transaction.atomic():
        t = _locked(tournament_id)
        entry = _own_entry(t, user)
        if not entry.paused:
            entry.paused = True
            entry.save(update_fields=["paused"])
    return entry


def tournament_player_resume(*, tournament_id: int | str, user: Person, now: datetime | None = None) -> Entry:
    """A paused player comes back: free (and present) from now on."""
    _require_signed_in(user)
    now = now or timezone.now()
    with transaction.atomic():
        t = _locked(tournament_id)
        entry = _own_entry(t, user)
        if entry.paused:
            entry.paused, entry.free_since, entry.seen_at = False, now, now
            entry.save(update_fields=["paused", "free_since", "seen_at"])
    return entry


#: How often a player's presence is written at most (their page asks every few seconds).
SEEN_EVERY = timedelta(seconds=10)


def tournament_seen(*, tournament_id: int | str, user: Person | None, now: datetime | None = None) -> bool:
    """``user`` has a page of the tournament (or a table of it) open: present for a continuous format's
    pairing. Written at most every ``SEEN_EVERY``; nothing for other formats or non-players. True if written."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    now = now or timezone.now()
    t = Tournament.objects.filter(pk=tournament_id, status=Tournament.Status.RUNNING).first()
    if t is None or not formats.of(t).continuous:
        return False
    return bool(Entry.objects.filter(tournament=t, user_id=user.pk, status=Entry.Status.PLAYING)
                .filter(Q(seen_at__isnull=True) | Q(seen_at__lt=now - SEEN_EVERY)).update(seen_at=now))


# --- staff during the tournament ----------------------------------------------------------------------


def tournament_pause(*, tournament_id: int | str, by: Person, reason: str = "") -> Tournament:
    """No new stage starts until staff resume (tables in play go on)."""
    _require_staff(by)
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status in _OVER:
            _refuse_done(t, "anhalten")
        _require_status(t, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING)
        if not t.paused:
            t.paused = True
            t.save(update_fields=["paused"])
            _audit(t, by, "pause", reason)
            tournament_notices.tell(t, "tournament_paused")
    return t


def tournament_resume(
    *, tournament_id: int | str, by: Person, reason: str = "", now: datetime | None = None
) -> Tournament:
    """Resume: a stage whose break is over starts now."""
    _require_staff(by)
    now = now or timezone.now()
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status in _OVER:
            _refuse_done(t, "fortsetzen")
        if not t.paused:
            return t
        t.paused = False
        t.save(update_fields=["paused"])
        _audit(t, by, "resume", reason)
        tournament_notices.tell(t, "tournament_resumed")
        if t.status == Tournament.Status.RUNNING and t.next_stage_at is not None and t.next_stage_at <= now:
            _stage_start(t, t.current_stage + 1, now)
    return t


def tournament_cancel(
    *, tournament_id: int | str, by: Person, reason: str = "", now: datetime | None = None
) -> Tournament:
    """Call the tournament off (any time before it finished); its running tables are closed."""
    _require_staff(by)
    now = now or timezone.now()
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status in _OVER:
            _refuse_done(t, "absagen")
        t.status = Tournament.Status.CANCELLED
        t.notice = reason or "Das Turnier wurde abgesagt."
        t.finished_at = now
        t.next_stage_at = None
        t.save(update_fields=["status", "notice", "finished_at", "next_stage_at"])
        _audit(t, by, "cancel", reason)
        tournament_notices.tell(t, "tournament_cancelled")
        playing = StageTable.objects.filter(stage__tournament=t, table__status=Table.Status.PLAYING)
        for table_id in playing.values_list("table_id", flat=True):
            with _games_refusal():
                games_services.table_close(table_id=table_id, by=by)
    return t


def _entry(t: Tournament, user_id: int | str | Person) -> Entry:
    entry = t.entries.filter(user_id=getattr(user_id, "pk", user_id)).first()
    if entry is None:
        raise TournamentError("not_registered", "Diese Person spielt in diesem Turnier nicht mit.")
    return entry


def tournament_player_remove(
    *, tournament_id: int | str, user_id: int | str | Person, by: Person, reason: str = ""
) -> Entry:
    """Take a player out: their seat in play is played as left (Rommé: Abbruch; gin: the match is lost),
    and they are not seated or paired again (gin: later rounds are lost)."""
    _require_staff(by)
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status in _OVER:
            _refuse_done(t, "ändern")
        _require_status(t, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING)
        entry = _entry(t, user_id)
        if entry.status == Entry.Status.REMOVED:
            return entry
        entry.status = Entry.Status.REMOVED if t.status == Tournament.Status.RUNNING else Entry.Status.WITHDRAWN
        entry.save(update_fields=["status"])
        _audit(t, by, "remove", reason, user_id=entry.user_id)
        tables = StageTable.objects.filter(stage__tournament=t, finished_at__isnull=True, table__isnull=False)
        for st in tables.select_related("table"):
            table = st.table  # never None here (table__isnull=False)
            if table is not None and entry.user_id in st.users and table.status == Table.Status.PLAYING:
                seat = st.users.index(entry.user_id)
                if not table.seats.get(index=seat).left:
                    with _games_refusal():
                        games_services.seat_remove(table_id=table.pk, seat=seat, by=by)
    return entry


def tournament_player_reinstate(
    *, tournament_id: int | str, user_id: int | str | Person, by: Person, reason: str = ""
) -> Entry:
    """Bring a removed player (or a Rommé player out after an Abbruch) back for the next stage."""
    _require_staff(by)
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status in _OVER:
            _refuse_done(t, "ändern")
        _require_status(t, Tournament.Status.RUNNING)
        entry = _entry(t, user_id)
        if entry.status not in (Entry.Status.REMOVED, Entry.Status.PLAYING):
            raise TournamentError("not_registered", "Diese Person spielt in diesem Turnier nicht mit.")
        if entry.status == Entry.Status.PLAYING and not entry.out:
            return entry
        formats.of(t).check_reinstate()
        entry.status, entry.out = Entry.Status.PLAYING, False
        entry.save(update_fields=["status", "out"])
        _audit(t, by, "reinstate", reason, user_id=entry.user_id)
    return entry


def tournament_result_correct(
    *, tournament_id: int | str, stage_table_id: int | str, by: Person, result: dict, reason: str
) -> StageTable:
    """Staff correct a table's result (with a reason). The standings are computed from the corrected
    result; the first result stays in ``original_result`` and the log.

    Rommé ``result``: ``{"seats": [{"user_id", "wertungspunkte", "augen", "rounds_won", "abbruch"}]}``
    (the list result is computed from them); gin: ``{"winner": user_id, "margin": int}``.
    """
    _require_staff(by)
    if not (reason or "").strip():
        raise TournamentError("reason_needed", "Eine Korrektur braucht eine Begründung.")
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(t, Tournament.Status.RUNNING, Tournament.Status.FINISHED)
        try:
            st = StageTable.objects.select_related("stage").get(pk=stage_table_id, stage__tournament=t)
        except (StageTable.DoesNotExist, TypeError, ValueError):
            raise TournamentError("no_table", "Diesen Turniertisch gibt es nicht.") from None
        if st.finished_at is None:
            raise TournamentError("not_finished", "Dieser Tisch spielt noch.")
        fmt = formats.of(t)
        if not isinstance(result, dict):
            raise TournamentError("bad_result", "Das Ergebnis hat nicht die erwartete Form.")
        corrected = fmt.corrected_result(st, result)
        if st.original_result is None:
            st.original_result = st.result
        before = st.result
        st.result = corrected
        st.save(update_fields=["result", "original_result"])
        if not t.stages.filter(number__gt=st.stage.number).exists():
            # An abandoned table decides who is out of the next stage, as long as it has not started.
            for user_id, abandoned in fmt.abandoned(corrected).items():
                t.entries.filter(user_id=user_id).update(out=abandoned)
        _audit(t, by, "correct", reason.strip(), stage=st.stage.number, table=st.number, before=before,
               after=corrected)
        if t.status == Tournament.Status.FINISHED:
            from tournaments import selectors

            t.final_standings = None
            t.save(update_fields=["final_standings"])
            t.final_standings = selectors.tournament_standings(tournament_id=t.pk)
            t.save(update_fields=["final_standings"])
    return st


def tournament_standings_csv(*, tournament_id: int | str, by: Person) -> str:
    """The standings as CSV (semicolons, as German spreadsheets expect), written to the audit log."""
    from tournaments import selectors

    _require_staff(by)
    with transaction.atomic():
        t = _locked(tournament_id)
        _audit(t, by, "export_csv")
    rows = selectors.tournament_standings(tournament_id=t.pk)
    names = dict(get_user_model().objects.filter(pk__in=[r["user_id"] for r in rows])
                 .values_list("pk", get_user_model().USERNAME_FIELD))
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";")
    # The format names its columns and its stages' cells; a number gets a cell of its own, written as a number
    # (a spreadsheet sums it): a Rommé stage is its list result; a gin stage the margin, the opponent beside it.
    fmt = formats.of(t)
    columns = [c for c in fmt.csv_columns() if rows and c in rows[0]]
    stages = max((len(r["stages"]) for r in rows), default=0)
    stage_codes = [code for n in range(1, stages + 1) for code in fmt.csv_stage_codes(n)]
    writer.writerow(["place", "player", *columns, *stage_codes])
    for r in rows:
        cells: list[object] = [cell for entry in r["stages"] for cell in fmt.csv_stage_cells(entry, names)]
        writer.writerow([r["place"], names.get(r["user_id"], r["user_id"]), *[r[c] for c in columns], *cells])
    return buffer.getvalue()


# --- the clock (referee) ------------------------------------------------------------------------------


def tournaments_tick(*, now: datetime | None = None) -> int:
    """One look at the clock, from the referee's loop: start tournaments whose time has come, start stages
    whose break is over, forfeit gin players who never showed up, pair the free players of continuous
    formats (the arena) and end those whose time is over. Returns how many things it did.
    Safe to run in several referees at once (every step is idempotent under the tournament's lock)."""
    now = now or timezone.now()
    done = 0
    due = Tournament.objects.filter(status=Tournament.Status.REGISTRATION, starts_at__lte=now, paused=False)
    for tournament_id in due.values_list("pk", flat=True):
        done += _safely(tournament_start, tournament_id=tournament_id, now=now)
    breaks = Tournament.objects.filter(status=Tournament.Status.RUNNING, paused=False, next_stage_at__lte=now)
    for tournament_id in breaks.values_list("pk", flat=True):
        done += _safely(_next_stage_due, tournament_id=tournament_id, now=now)
    done += _forfeits(now)
    done += _pairing_passes(now)
    return done


def _safely(function: Callable[..., object], **kwargs: Any) -> int:
    try:
        function(**kwargs)
    except Exception:  # one broken tournament must not stop the others
        logger.exception("tournament step %s failed (%s)", function.__name__, kwargs)
        return 0
    return 1


def _next_stage_due(*, tournament_id: int | str, now: datetime) -> None:
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status != Tournament.Status.RUNNING or t.paused or t.next_stage_at is None or t.next_stage_at > now:
            return
        _stage_start(t, t.current_stage + 1, now)


def _forfeits(now: datetime) -> int:
    """Formats with a forfeit rule (gin): a player who has not played a single move of their own
    ``forfeit_minutes`` after the match started, while the server already had to move for them, loses the
    match (resigned for them).

    Runs on every referee tick (once a second), beside the moves on the one database thread of the embedded
    stack: the database picks the tables due (per running tournament, its format's minutes: matches started
    long enough ago with a seat the server moved for that has no move of its own), so an ordinary tick reads
    no table row at all. (Reading every open table with its match state to compare the times here took
    0.14-0.47 s a tick for a stage of 500 tables, and every move waited behind it: docs/scale.md, "The
    tournament's tick".)"""
    from games.models import Move

    done = 0
    # A seat the server moved for (a timeout) that has no move of its own, in the table's current match.
    no_show = Move.objects.filter(match_id=OuterRef("table__current_match"), by=Move.By.TIMEOUT).exclude(
        Exists(Move.objects.filter(match_id=OuterRef("match_id"), seat=OuterRef("seat"), by=Move.By.PLAYER)))
    for t in Tournament.objects.filter(status=Tournament.Status.RUNNING):
        try:
            minutes = formats.of(t).forfeit_minutes()
        except KeyError:  # a format no longer registered: its tournament cannot be run
            continue
        if minutes is None:
            continue
        due = list(StageTable.objects.filter(
            stage__tournament_id=t.pk, finished_at__isnull=True, table__status=Table.Status.PLAYING,
            table__current_match__started_at__lte=now - clock_minutes(minutes),
        ).filter(Exists(no_show)).values_list("pk", flat=True))
        if not due:
            continue
        for st in StageTable.objects.filter(pk__in=due).select_related("table__current_match", "stage__tournament"):
            done += _forfeit(st, minutes)
    return done


def _forfeit(st: StageTable, minutes: int) -> int:
    """Resign for the first seat of ``st`` that never moved while the server moved for it (1 if done)."""
    from games.models import Move

    table = st.table
    match = table.current_match if table is not None else None
    if table is None or match is None:
        return 0
    moves = match.moves.values_list("seat", "by")
    for seat, user_id in enumerate(st.users):
        own = any(s == seat and by == Move.By.PLAYER for s, by in moves)
        server = any(s == seat and by == Move.By.TIMEOUT for s, by in moves)
        if not own and server:
            user = get_user_model().objects.get(pk=user_id)
            try:
                with transaction.atomic():  # the forfeit and its line in the audit log, or neither
                    games_services.match_resign(table_id=table.pk, user=user)
                    _audit(st.stage.tournament, None, "forfeit", user_id=user_id, stage=st.stage.number,
                           table=st.number, minutes=minutes)
            except ServiceError:
                return 0
            return 1
    return 0
