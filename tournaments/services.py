"""Every write of tournaments: the staff's actions, the players' registration and check-in, the stages the
site starts by itself, and the results it records when a tournament table's match ends.

Each public function runs in one transaction with the tournament row locked (``select_for_update``; on
SQLite the IMMEDIATE transaction serialises writers) and is idempotent where a retry is possible: a stage
is unique per tournament and number, a table's result is recorded once. Tables are opened through
``games.services`` only. Refusals raise ``games.services.ServiceError`` (``code``, German ``message``)
before anything is written. Every staff action goes to the audit log (who, when, what, why).
"""

from __future__ import annotations

import csv
import io
import logging
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from games import engines
from games import services as games_services
from games.models import Match, Table
from games.services import ServiceError
from tournaments import pairing
from tournaments.models import AuditEntry, Entry, Stage, StageTable, Tournament
from tournaments.scoring import list_result

logger = logging.getLogger(__name__)

FORMATS = {"romme": ("series",), "gin": ("swiss", "knockout", "round_robin")}
ROMME_ROUNDS = (6, 12, 18, 24)
MAX_ROUND_ROBIN = 10

_COMMON_DEFAULTS = {"max_players": None, "check_in_minutes": 10, "break_minutes": 2}
_DEFAULTS = {
    "series": {"series": 3, "rounds": 12, "table_size": 4, "same_deals": False, "min_players": 3},
    "swiss": {"rounds": None, "min_players": 2, "forfeit_minutes": 5, "win": 1, "loss": 0, "bye": 1},
    "knockout": {"min_players": 2, "forfeit_minutes": 5, "win": 1, "loss": 0, "bye": 1},
    "round_robin": {"min_players": 2, "forfeit_minutes": 5, "win": 1, "loss": 0, "bye": 1},
}


# --- checks -----------------------------------------------------------------------------------------------


def _require_staff(by) -> None:
    if by is None or not getattr(by, "is_staff", False):
        raise ServiceError("not_allowed", "Das dürfen nur Turnierleiter (Mitarbeiter).")


def _require_signed_in(user) -> None:
    if user is None or not getattr(user, "is_authenticated", False):
        raise ServiceError("not_signed_in", "Bitte melde dich an, um an einem Turnier teilzunehmen.")


def _locked(tournament_id) -> Tournament:
    try:
        return Tournament.objects.select_for_update().get(pk=int(tournament_id))
    except (Tournament.DoesNotExist, TypeError, ValueError):
        raise ServiceError("no_tournament", "Dieses Turnier gibt es nicht.") from None


def _require_status(t: Tournament, *statuses: str) -> None:
    if t.status not in statuses:
        raise ServiceError(
            "bad_status", f"Das geht nicht, solange das Turnier „{t.get_status_display()}“ ist."
        )


def _audit(t: Tournament, by, action: str, reason: str = "", **details: Any) -> None:
    AuditEntry.objects.create(
        tournament=t, by=by if getattr(by, "is_authenticated", False) else None, action=action,
        reason=reason or "", details=details,
    )


def _int_setting(name: str, value: Any, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        where = f"{low} bis {high}" if high is not None else f"mindestens {low}"
        raise ServiceError("bad_settings", f"Die Turnieroption {name} muss eine ganze Zahl sein ({where}).")
    return value


def romme_rounds_allowed() -> tuple[int, ...]:
    """Rounds per list staff may choose (tournaments.md); the test setting widens it to keep tests short."""
    from django.conf import settings

    return tuple(settings.TOURNAMENTS_ROMME_ROUNDS)


def normalize_settings(game: str, format: str, given: dict | None) -> dict:
    """Every tournament option of tournaments.md with its default filled in, each checked."""
    if game not in FORMATS:
        raise ServiceError("bad_settings", f"Unbekanntes Spiel {game!r} (gin oder romme).")
    if format not in FORMATS[game]:
        raise ServiceError("bad_settings", f"Für {game} gibt es die Formen {', '.join(FORMATS[game])}.")
    if given is not None and not isinstance(given, dict):
        raise ServiceError("bad_settings", "Die Turnieroptionen müssen ein Objekt sein.")
    defaults = {**_COMMON_DEFAULTS, **_DEFAULTS[format]}
    unknown = set(given or {}) - set(defaults)
    if unknown:
        raise ServiceError("bad_settings", f"Unbekannte Turnieroption(en): {', '.join(sorted(map(str, unknown)))}.")
    s = {**defaults, **(given or {})}
    if s["max_players"] is not None:
        _int_setting("max_players", s["max_players"], 2)
    _int_setting("min_players", s["min_players"], 3 if game == "romme" else 2)
    _int_setting("check_in_minutes", s["check_in_minutes"], 0, 24 * 60)
    _int_setting("break_minutes", s["break_minutes"], 0, 24 * 60)
    if format == "series":
        _int_setting("series", s["series"], 1, 10)
        if s["rounds"] not in romme_rounds_allowed() or isinstance(s["rounds"], bool):
            allowed = ", ".join(map(str, romme_rounds_allowed()))
            raise ServiceError("bad_settings", f"Runden je Liste: {allowed}.")
        _int_setting("table_size", s["table_size"], 3, 6)
        if not isinstance(s["same_deals"], bool):
            raise ServiceError("bad_settings", "same_deals ist an oder aus (true/false).")
    else:
        _int_setting("forfeit_minutes", s["forfeit_minutes"], 1, 24 * 60)
        for name in ("win", "loss", "bye"):
            _int_setting(name, s[name], 0, 10)
        if format == "swiss" and s["rounds"] is not None:
            _int_setting("rounds", s["rounds"], 1, 30)
        if format == "round_robin":
            cap = MAX_ROUND_ROBIN if s["max_players"] is None else min(s["max_players"], MAX_ROUND_ROBIN)
            s["max_players"] = _int_setting("max_players", cap, 2, MAX_ROUND_ROBIN)
    return s


def masters_options(options: dict) -> dict:
    """Rommé table options with Masters scoring on."""
    return {**{k: v for k, v in options.items() if k not in ("scoring", "tournament")}, "scoring": "masters"}


def table_options(t: Tournament, seats: int | None = None) -> dict:
    """The options a table of this tournament opens with."""
    if t.game == "romme":
        return masters_options({**t.options, "rounds": t.settings["rounds"]})
    return dict(t.options)


def _check_options(game: str, format: str, options: dict | None, s: dict) -> dict:
    if options is not None and not isinstance(options, dict):
        raise ServiceError("bad_options", "Die Tischoptionen müssen ein Objekt sein.")
    options = dict(options or {})
    for name in ("seats", "rounds", "scoring", "tournament"):
        if name in options and game == "romme":
            raise ServiceError("bad_options", f"Die Tischoption {name} legt das Turnier fest.")
    try:
        if game == "romme":
            engines.engine("romme").normalize_options(masters_options({**options, "rounds": s["rounds"]}),
                                                      seats=s["table_size"])
        else:
            normalized = engines.engine("gin").normalize_options(options)
            if normalized["hollywood"]:
                raise ServiceError("bad_options", "Hollywood kann unentschieden enden; im Turnier gibt es das nicht.")
    except ValueError as error:
        raise ServiceError("bad_options", f"Ungültige Tischoption: {error}") from None
    return options


def _seed_rating(user, game: str):
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


# --- staff: create, edit, publish ---------------------------------------------------------------------


def tournament_create(
    *, by, name: str, game: str, format: str, settings: dict | None = None, options: dict | None = None,
    starts_at: datetime | None = None,
) -> Tournament:
    """A new tournament in draft; staff edit it until they publish it."""
    _require_staff(by)
    name = (name or "").strip()
    if not name or len(name) > 120:
        raise ServiceError("bad_settings", "Ein Turnier braucht einen Namen (bis 120 Zeichen).")
    s = normalize_settings(game, format, settings)
    options = _check_options(game, format, options, s)
    with transaction.atomic():
        t = Tournament.objects.create(
            name=name, game=game, format=format, settings=s, options=options, starts_at=starts_at, created_by=by
        )
        _audit(t, by, "create", settings=s, options=options, starts_at=starts_at.isoformat() if starts_at else None)
    return t


_UNSET = object()


def tournament_edit(*, tournament_id, by, name=None, settings=None, options=None, starts_at=_UNSET) -> Tournament:
    """Change a draft (anything), before anyone could register."""
    _require_staff(by)
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(t, Tournament.Status.DRAFT)
        changed = {}
        if name is not None:
            name = name.strip()
            if not name or len(name) > 120:
                raise ServiceError("bad_settings", "Ein Turnier braucht einen Namen (bis 120 Zeichen).")
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


def tournament_publish(*, tournament_id, by) -> Tournament:
    """Open registration (from a draft). Publishing again changes nothing."""
    _require_staff(by)
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status == Tournament.Status.REGISTRATION:
            return t
        _require_status(t, Tournament.Status.DRAFT)
        t.status = Tournament.Status.REGISTRATION
        t.save(update_fields=["status"])
        _audit(t, by, "publish")
    return t


# --- players: register, withdraw, check in ------------------------------------------------------------


def check_in_opens_at(t: Tournament) -> datetime | None:
    """When check-in opens (None: no check-in, or open all through registration without a start time)."""
    minutes = t.settings.get("check_in_minutes", 0)
    if not minutes or t.starts_at is None:
        return None
    return t.starts_at - timedelta(minutes=minutes)


def tournament_register(*, tournament_id, user) -> Entry:
    """Register (or join the waiting list when the tournament is full). Registering again changes nothing."""
    _require_signed_in(user)
    with transaction.atomic():
        t = _locked(tournament_id)
        entry = Entry.objects.filter(tournament=t, user=user).first()
        if entry is not None and entry.status in (Entry.Status.REGISTERED, Entry.Status.WAITING):
            return entry
        _require_status(t, Tournament.Status.REGISTRATION)
        number = (t.entries.aggregate(m=Max("number"))["m"] or 0) + 1
        cap = t.settings.get("max_players")
        taken = t.entries.filter(status=Entry.Status.REGISTERED).count()
        status = Entry.Status.WAITING if cap is not None and taken >= cap else Entry.Status.REGISTERED
        if entry is None:
            entry = Entry.objects.create(tournament=t, user=user, number=number, status=status)
        else:  # registering again after withdrawing: at the end of the list
            entry.number, entry.status, entry.checked_in_at = number, status, None
            entry.save(update_fields=["number", "status", "checked_in_at"])
    return entry


def tournament_withdraw(*, tournament_id, user) -> Entry | None:
    """Withdraw before the start; the first on the waiting list moves up."""
    _require_signed_in(user)
    with transaction.atomic():
        t = _locked(tournament_id)
        entry = Entry.objects.filter(tournament=t, user=user).first()
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


def tournament_check_in(*, tournament_id, user, now: datetime | None = None) -> Entry:
    """Check in during the check-in window (``check_in_minutes`` before the start). Again: no change."""
    _require_signed_in(user)
    now = now or timezone.now()
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(t, Tournament.Status.REGISTRATION)
        entry = Entry.objects.filter(
            tournament=t, user=user, status__in=(Entry.Status.REGISTERED, Entry.Status.WAITING)
        ).first()
        if entry is None:
            raise ServiceError("not_registered", "Du bist für dieses Turnier nicht angemeldet.")
        if not t.settings.get("check_in_minutes"):
            raise ServiceError("no_check_in", "Bei diesem Turnier gibt es kein Einchecken.")
        opens = check_in_opens_at(t)
        if opens is not None and now < opens:
            raise ServiceError("check_in_closed", "Das Einchecken beginnt erst "
                               f"{t.settings['check_in_minutes']} Minuten vor dem Start.")
        if entry.checked_in_at is None:
            entry.checked_in_at = now
            entry.save(update_fields=["checked_in_at"])
    return entry


# --- start and stages ---------------------------------------------------------------------------------


def tournament_start(*, tournament_id, by=None, now: datetime | None = None) -> Tournament:
    """Start: drop who did not check in, cancel below ``min_players``, else seat stage 1 and open its
    tables. ``by`` None is the referee (only once ``starts_at`` has come). Starting again changes nothing."""
    if by is not None:
        _require_staff(by)
    now = now or timezone.now()
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status in (Tournament.Status.RUNNING, Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
            return t
        _require_status(t, Tournament.Status.REGISTRATION)
        if by is None and (t.starts_at is None or t.starts_at > now):
            return t
        registered = t.entries.filter(status=Entry.Status.REGISTERED)
        dropped = []
        if t.settings.get("check_in_minutes"):
            dropped = list(registered.filter(checked_in_at__isnull=True).values_list("user_id", flat=True))
            registered.filter(checked_in_at__isnull=True).update(status=Entry.Status.DROPPED)
        playing = list(t.entries.filter(status=Entry.Status.REGISTERED).order_by("number"))
        _audit(t, by, "start", dropped=dropped, players=[e.user_id for e in playing])
        if len(playing) < t.settings["min_players"]:
            t.status = Tournament.Status.CANCELLED
            t.notice = (f"Abgesagt: zu wenige Teilnehmer ({len(playing)}, mindestens "
                        f"{t.settings['min_players']}).")
            t.finished_at = now
            t.save(update_fields=["status", "notice", "finished_at"])
            _audit(t, by, "cancel", reason=t.notice)
            return t
        Entry.objects.filter(pk__in=[e.pk for e in playing]).update(status=Entry.Status.PLAYING)
        t.status = Tournament.Status.RUNNING
        t.started_at = now
        t.save(update_fields=["status", "started_at"])
        if t.format == "knockout":
            _seed_knockout(t, playing)
        _stage_start(t, 1, now)
    return t


def _seed_knockout(t: Tournament, entries: list[Entry]) -> None:
    rng = secrets.SystemRandom()
    rated, provisional = [], []
    for entry in entries:
        r = _seed_rating(entry.user, t.game)
        (provisional if getattr(r, "provisional", False) else rated).append((r.display, entry))
    rated.sort(key=lambda pair: (-pair[0], pair[1].number))
    rng.shuffle(provisional)
    for seed, (_, entry) in enumerate(rated + provisional, start=1):
        entry.seed = seed
        entry.save(update_fields=["seed"])


def tournament_next_stage(*, tournament_id, by, now: datetime | None = None) -> Stage | None:
    """Staff: start the next stage now instead of after the break (the current one must have ended)."""
    _require_staff(by)
    now = now or timezone.now()
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(t, Tournament.Status.RUNNING)
        current = t.stages.filter(number=t.current_stage).first()
        if current is not None and current.finished_at is None:
            raise ServiceError("stage_running", "Die laufende Runde ist noch nicht zu Ende.")
        _audit(t, by, "next_stage", stage=t.current_stage + 1)
        return _stage_start(t, t.current_stage + 1, now)


def stage_count(t: Tournament, players: int | None = None) -> int:
    """How many stages the tournament has (fixed at the start)."""
    if players is None:
        players = t.entries.filter(status__in=(Entry.Status.PLAYING, Entry.Status.REMOVED)).count()
    if t.format == "series":
        return t.settings["series"]
    if t.format == "swiss":
        return t.settings["rounds"] or pairing.swiss_rounds(players)
    if t.format == "knockout":
        return pairing.knockout_rounds(players)
    return players - 1 if players % 2 == 0 else players


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
    seating = _seating(t, number)
    if t.game == "romme" and t.settings.get("same_deals"):
        stage.deal_seeds = {str(size): secrets.token_hex(16) for size in sorted({len(s) for s in seating})}
        stage.save(update_fields=["deal_seeds"])
    users = get_user_model().objects.in_bulk({u for seats in seating for u in seats if u is not None})
    for index, seats in enumerate(seating, start=1):
        if None in seats:  # a gin bye (or a knockout walkover)
            winner = next(u for u in seats if u is not None)
            StageTable.objects.create(stage=stage, number=index, users=[winner, None], finished_at=now,
                                      result={"winner": winner, "loser": None, "margin": 0})
            continue
        extra = {}
        if stage.deal_seeds:
            extra["deal_seed"] = f"{stage.deal_seeds[str(len(seats))]}"
        table = games_services.table_create_seated(
            game=t.game, users=[users[u] for u in seats], options=table_options(t, len(seats)), ranked=True,
            tournament=True, created_by=t.created_by, **extra,
        )
        StageTable.objects.create(stage=stage, number=index, table=table, users=list(seats))
    t.current_stage = number
    t.next_stage_at = None
    t.save(update_fields=["current_stage", "next_stage_at"])
    _audit(t, None, "stage_start", stage=number, tables=[list(s) for s in seating])
    _stage_check_finished(t, stage, now)
    return stage


def _seating(t: Tournament, number: int) -> list[list[int | None]]:
    from tournaments import selectors

    entries = list(t.entries.filter(status=Entry.Status.PLAYING).order_by("number"))
    if t.format == "series":
        active = [e.user_id for e in entries if not e.out]
        sizes = pairing.romme_table_sizes(len(active), t.settings["table_size"])
        if number == 1:
            return pairing.romme_seating_random(active, sizes, secrets.SystemRandom())
        order = [row["user_id"] for row in selectors.tournament_standings(tournament_id=t.pk)]
        return pairing.romme_seating([u for u in order if u in set(active)], sizes)
    history = selectors.gin_results(t)
    if t.format == "swiss":
        s = t.settings
        points = pairing.match_points(history, win=s["win"], loss=s["loss"], bye=s["bye"])
        rating = {e.user_id: _seed_rating(e.user, t.game).display for e in entries}
        ranked = sorted((e.user_id for e in entries), key=lambda u: -rating[u])  # stable: registration order
        ranked.sort(key=lambda u: -points.get(u, 0))
        pairs, bye = pairing.swiss_pairings(ranked, points, history)
        return [list(p) for p in pairs] + ([[bye, None]] if bye is not None else [])
    if t.format == "knockout":
        if number == 1:
            seeded = [e.user_id for e in sorted(entries, key=lambda e: e.seed or 0)]
            return [list(p) for p in pairing.knockout_first_round(seeded)]
        previous = t.stages.get(number=number - 1)
        winners = [selectors.knockout_winner(st) for st in previous.tables.order_by("number")]
        removed = set(t.entries.filter(status=Entry.Status.REMOVED).values_list("user_id", flat=True))
        seats = []
        for a, b in pairing.knockout_next_round(winners):
            # A removed player forfeits: the other goes through (a walkover is recorded as a bye).
            seats.append([a, None] if b in removed else [b, None] if a in removed else [a, b])
        return seats
    everyone = sorted(
        {*[e.user_id for e in entries],
         *t.entries.filter(status=Entry.Status.REMOVED).values_list("user_id", flat=True)},
        key=lambda u: next((e.number for e in t.entries.all() if e.user_id == u), 0),
    )
    schedule = pairing.round_robin_rounds(everyone)
    removed = set(t.entries.filter(status=Entry.Status.REMOVED).values_list("user_id", flat=True))
    seats = []
    for a, b in schedule[number - 1]:
        if a in removed and (b is None or b in removed):
            continue
        seats.append([b, None] if a in removed else [a, None] if b in removed or b is None else [a, b])
    return seats


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
        st.result = _result_of(t, st, match)
        st.finished_at = now
        st.save(update_fields=["result", "finished_at"])
        if t.game == "romme":
            out = [s["user_id"] for s in st.result.get("seats", []) if s["abbruch"]]
            if out:
                t.entries.filter(user_id__in=out).update(out=True)
        if t.status == Tournament.Status.RUNNING:
            _stage_check_finished(t, st.stage, now)
    return st


def _result_of(t: Tournament, st: StageTable, match: Match) -> dict:
    result = match.result or {}
    if match.status != Match.Status.FINISHED or not result:
        return {"void": True}
    if t.game == "romme":
        left = result.get("left") or [False] * len(st.users)
        seats = []
        for i, user_id in enumerate(st.users):
            wp, augen = result["wertungspunkte"][i], result["augen"][i]
            seats.append({
                "user_id": user_id,
                "result": list_result(wertungspunkte=[wp], points=[augen], aborted=bool(left[i])),
                "wertungspunkte": wp, "augen": augen, "rounds_won": result["rounds_won"][i],
                "abbruch": bool(left[i]),
            })
        return {"seats": seats}
    winner = result.get("winner")
    if not isinstance(winner, int):
        return {"void": True}
    final = result.get("final") or [0, 0]
    return {"winner": st.users[winner], "loser": st.users[1 - winner],
            "margin": max(0, int(final[winner]) - int(final[1 - winner]))}


def _stage_check_finished(t: Tournament, stage: Stage, now: datetime) -> None:
    if stage.finished_at is not None or stage.tables.filter(finished_at__isnull=True).exists():
        return
    stage.finished_at = now
    stage.save(update_fields=["finished_at"])
    if _is_last_stage(t, stage.number):
        _finish(t, now)
        return
    t.next_stage_at = now + timedelta(minutes=t.settings.get("break_minutes", 0))
    t.save(update_fields=["next_stage_at"])
    if not t.paused and t.next_stage_at <= now:
        _stage_start(t, stage.number + 1, now)


def _is_last_stage(t: Tournament, number: int) -> bool:
    if number >= stage_count(t):
        return True
    active = t.entries.filter(status=Entry.Status.PLAYING)
    if t.format == "series":
        return active.filter(out=False).count() < 2
    if t.format == "swiss":
        return active.count() < 2
    return False


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


# --- staff during the tournament ----------------------------------------------------------------------


def tournament_pause(*, tournament_id, by, reason: str = "") -> Tournament:
    """No new stage starts until staff resume (tables in play go on)."""
    _require_staff(by)
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(t, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING)
        if not t.paused:
            t.paused = True
            t.save(update_fields=["paused"])
            _audit(t, by, "pause", reason)
    return t


def tournament_resume(*, tournament_id, by, reason: str = "", now: datetime | None = None) -> Tournament:
    """Resume: a stage whose break is over starts now."""
    _require_staff(by)
    now = now or timezone.now()
    with transaction.atomic():
        t = _locked(tournament_id)
        if not t.paused:
            return t
        t.paused = False
        t.save(update_fields=["paused"])
        _audit(t, by, "resume", reason)
        if t.status == Tournament.Status.RUNNING and t.next_stage_at is not None and t.next_stage_at <= now:
            _stage_start(t, t.current_stage + 1, now)
    return t


def tournament_cancel(*, tournament_id, by, reason: str = "", now: datetime | None = None) -> Tournament:
    """Call the tournament off (any time before it finished); its running tables are closed."""
    _require_staff(by)
    now = now or timezone.now()
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status == Tournament.Status.CANCELLED:
            return t
        _require_status(t, Tournament.Status.DRAFT, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING)
        t.status = Tournament.Status.CANCELLED
        t.notice = reason or "Das Turnier wurde abgesagt."
        t.finished_at = now
        t.next_stage_at = None
        t.save(update_fields=["status", "notice", "finished_at", "next_stage_at"])
        _audit(t, by, "cancel", reason)
        playing = StageTable.objects.filter(stage__tournament=t, table__status=Table.Status.PLAYING)
        for table_id in playing.values_list("table_id", flat=True):
            games_services.table_close(table_id=table_id, by=by)
    return t


def _entry(t: Tournament, user_id) -> Entry:
    entry = t.entries.filter(user_id=getattr(user_id, "pk", user_id)).first()
    if entry is None:
        raise ServiceError("not_registered", "Diese Person spielt in diesem Turnier nicht mit.")
    return entry


def tournament_player_remove(*, tournament_id, user_id, by, reason: str = "") -> Entry:
    """Take a player out: their seat in play is played as left (Rommé: Abbruch; gin: the match is lost),
    and they are not seated or paired again (gin: later rounds are lost)."""
    _require_staff(by)
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(t, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING)
        entry = _entry(t, user_id)
        if entry.status == Entry.Status.REMOVED:
            return entry
        entry.status = Entry.Status.REMOVED if t.status == Tournament.Status.RUNNING else Entry.Status.WITHDRAWN
        entry.save(update_fields=["status"])
        _audit(t, by, "remove", reason, user_id=entry.user_id)
        tables = StageTable.objects.filter(stage__tournament=t, finished_at__isnull=True, table__isnull=False)
        for st in tables.select_related("table"):
            if entry.user_id in st.users and st.table.status == Table.Status.PLAYING:
                seat = st.users.index(entry.user_id)
                if not st.table.seats.get(index=seat).left:
                    games_services.seat_remove(table_id=st.table_id, seat=seat, by=by)
    return entry


def tournament_player_reinstate(*, tournament_id, user_id, by, reason: str = "") -> Entry:
    """Bring a removed player (or a Rommé player out after an Abbruch) back for the next stage."""
    _require_staff(by)
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(t, Tournament.Status.RUNNING)
        entry = _entry(t, user_id)
        if entry.status not in (Entry.Status.REMOVED, Entry.Status.PLAYING):
            raise ServiceError("not_registered", "Diese Person spielt in diesem Turnier nicht mit.")
        if entry.status == Entry.Status.PLAYING and not entry.out:
            return entry
        if t.format == "knockout":
            raise ServiceError("not_allowed", "Im K.-o.-System ist ausgeschieden ausgeschieden.")
        entry.status, entry.out = Entry.Status.PLAYING, False
        entry.save(update_fields=["status", "out"])
        _audit(t, by, "reinstate", reason, user_id=entry.user_id)
    return entry


def tournament_result_correct(*, tournament_id, stage_table_id, by, result: dict, reason: str) -> StageTable:
    """Staff correct a table's result (with a reason). The standings are computed from the corrected
    result; the first result stays in ``original_result`` and the log.

    Rommé ``result``: ``{"seats": [{"user_id", "wertungspunkte", "augen", "rounds_won", "abbruch"}]}``
    (the list result is computed from them); gin: ``{"winner": user_id, "margin": int}``.
    """
    _require_staff(by)
    if not (reason or "").strip():
        raise ServiceError("reason_needed", "Eine Korrektur braucht eine Begründung.")
    with transaction.atomic():
        t = _locked(tournament_id)
        _require_status(t, Tournament.Status.RUNNING, Tournament.Status.FINISHED)
        try:
            st = StageTable.objects.select_related("stage").get(pk=stage_table_id, stage__tournament=t)
        except (StageTable.DoesNotExist, TypeError, ValueError):
            raise ServiceError("no_table", "Diesen Turniertisch gibt es nicht.") from None
        if st.finished_at is None:
            raise ServiceError("not_finished", "Dieser Tisch spielt noch.")
        corrected = _checked_correction(t, st, result)
        if t.format == "knockout" and t.stages.filter(number__gt=st.stage.number).exists():
            old = (st.result or {}).get("winner")
            if old != corrected["winner"]:
                raise ServiceError("too_late", "Die nächste K.-o.-Runde läuft schon; der Sieger steht fest.")
        if st.original_result is None:
            st.original_result = st.result
        before = st.result
        st.result = corrected
        st.save(update_fields=["result", "original_result"])
        if t.game == "romme" and not t.stages.filter(number__gt=st.stage.number).exists():
            # The Abbruch decides who is out of the next series, as long as it has not started.
            for seat in corrected["seats"]:
                t.entries.filter(user_id=seat["user_id"]).update(out=seat["abbruch"])
        _audit(t, by, "correct", reason.strip(), stage=st.stage.number, table=st.number, before=before,
               after=corrected)
        if t.status == Tournament.Status.FINISHED:
            from tournaments import selectors

            t.final_standings = None
            t.save(update_fields=["final_standings"])
            t.final_standings = selectors.tournament_standings(tournament_id=t.pk)
            t.save(update_fields=["final_standings"])
    return st


def _checked_correction(t: Tournament, st: StageTable, result: Any) -> dict:
    bad = ServiceError("bad_result", "Das Ergebnis hat nicht die erwartete Form.")
    if not isinstance(result, dict):
        raise bad
    if t.game == "romme":
        seats = result.get("seats")
        if not isinstance(seats, list) or sorted(s.get("user_id") for s in seats if isinstance(s, dict)) != sorted(st.users):
            raise bad
        out = []
        for seat in seats:
            try:
                wp, augen, won = int(seat["wertungspunkte"]), int(seat["augen"]), int(seat["rounds_won"])
            except (KeyError, TypeError, ValueError):
                raise bad from None
            if augen < 0 or won < 0:
                raise bad
            abbruch = bool(seat.get("abbruch", False))
            out.append({"user_id": seat["user_id"], "result": list_result(wertungspunkte=[wp], points=[augen],
                        aborted=abbruch), "wertungspunkte": wp, "augen": augen, "rounds_won": won,
                        "abbruch": abbruch})
        order = {u: i for i, u in enumerate(st.users)}
        return {"seats": sorted(out, key=lambda s: order[s["user_id"]])}
    winner, margin = result.get("winner"), result.get("margin", 0)
    if None in st.users or winner not in st.users or isinstance(margin, bool) or not isinstance(margin, int) or margin < 0:
        raise bad
    return {"winner": winner, "loser": next(u for u in st.users if u != winner), "margin": margin}


def tournament_standings_csv(*, tournament_id, by) -> str:
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
    columns = [c for c in ("result", "wertungspunkte", "augen", "rounds_won", "match_points", "buchholz", "margin")
               if rows and c in rows[0]]
    stages = max((len(r["stages"]) for r in rows), default=0)
    writer.writerow(["place", "player", *columns, *[f"stage {n}" for n in range(1, stages + 1)]])
    for r in rows:
        cells = []
        for entry in r["stages"]:
            if entry is None:
                cells.append("")
            elif "result" in entry:
                cells.append(entry["result"])
            else:
                who = names.get(entry["opponent"], "bye") if entry.get("opponent") else "bye"
                cells.append(f"{'+' if entry['won'] else '-'}{entry['margin']} {who}")
        writer.writerow([r["place"], names.get(r["user_id"], r["user_id"]), *[r[c] for c in columns], *cells])
    return buffer.getvalue()


# --- the clock (referee) ------------------------------------------------------------------------------


def tournaments_tick(*, now: datetime | None = None) -> int:
    """One look at the clock, from the referee's loop: start tournaments whose time has come, start stages
    whose break is over, forfeit gin players who never showed up. Returns how many things it did.
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
    return done


def _safely(function, **kwargs) -> int:
    try:
        function(**kwargs)
    except Exception:  # one broken tournament must not stop the others
        logger.exception("tournament step %s failed (%s)", function.__name__, kwargs)
        return 0
    return 1


def _next_stage_due(*, tournament_id, now: datetime) -> None:
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status != Tournament.Status.RUNNING or t.paused or t.next_stage_at is None or t.next_stage_at > now:
            return
        _stage_start(t, t.current_stage + 1, now)


def _forfeits(now: datetime) -> int:
    """Gin: a player who has not played a single move of their own ``forfeit_minutes`` after the match
    started, while the server already had to move for them, loses the match (resigned for them)."""
    from games.models import Move

    done = 0
    open_tables = StageTable.objects.filter(
        finished_at__isnull=True, table__status=Table.Status.PLAYING, stage__tournament__game="gin",
        stage__tournament__status=Tournament.Status.RUNNING,
    ).select_related("table__current_match", "stage__tournament")
    for st in open_tables:
        match = st.table.current_match
        minutes = st.stage.tournament.settings.get("forfeit_minutes", 5)
        if match is None or match.started_at + timedelta(minutes=minutes) > now:
            continue
        moves = match.moves.values_list("seat", "by")
        for seat, user_id in enumerate(st.users):
            own = any(s == seat and by == Move.By.PLAYER for s, by in moves)
            server = any(s == seat and by == Move.By.TIMEOUT for s, by in moves)
            if not own and server:
                user = get_user_model().objects.get(pk=user_id)
                try:
                    games_services.match_resign(table_id=st.table_id, user=user)
                    done += 1
                except ServiceError:
                    pass
                break
    return done
