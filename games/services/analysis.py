"""The post-match analysis, as the database keeps it (``MatchAnalysis``): which finished matches wait for one,
what the worker needs of a match, storing what it found. The work itself is ``games.analysis`` (no Django),
run by the referee's clock in a worker process (:func:`clock_step`) or by ``manage.py analyse``.

A match waits for an analysis when it finished (not aborted), a person held a seat, its game has an analysis,
it ended within ``RECENT_DAYS`` (older matches only by ``manage.py analyse``) and it has no ``MatchAnalysis`` row
yet. The row is written once; a failed analysis is written with its error, so the clock does not try it again.

Several referees may run at once (``manage.py referee``), each with its own worker: a referee first **claims** a
match (:func:`claim`: it writes the match's row empty, neither data nor error, or takes over a claim older than
``CLAIM_SECONDS``, whose referee has evidently stopped), so that no two analyse the same match; until the result
replaces it the page says the analysis is being computed.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from games import analysis, registry
from games.models import Match, MatchAnalysis, Move

logger = logging.getLogger(__name__)

RECENT_DAYS = analysis.RECENT_DAYS
#: A claim (an empty row) older than this is taken to be abandoned (its referee stopped): another may take it.
#: Well above a match's budget (``games.analysis.MATCH_SECONDS``, plus one deal per decision once it is spent).
CLAIM_SECONDS = 600
#: A narrow look of the clock (only the matches that ended since its last look) reaches this much further back.
NARROW_MARGIN_SECONDS = 60


def person_seats(match: Match) -> list[int]:
    """The seats of ``match`` that no computer played."""
    return [p["seat"] for p in match.players if not p.get("bot")]


def analysable(match: Match) -> bool:
    return (match.status == Match.Status.FINISHED and registry.is_game(match.game)
            and bool(registry.get(match.game).analysis) and bool(person_seats(match)))


def pending(*, limit: int = 1, recent_days: int = RECENT_DAYS, ended_since: Any = None) -> list[Match]:
    """Finished matches that wait for their analysis, the newest first (``ended_since``: only those that ended
    then or later)."""
    games = [entry.name for entry in registry.entries() if entry.analysis]
    now = timezone.now()
    since = now - timedelta(days=recent_days)
    if ended_since is not None:
        since = max(since, ended_since)
    waiting = Q(analysis__isnull=True) | Q(analysis__data__isnull=True, analysis__error="",
                                           analysis__computed_at__lt=now - timedelta(seconds=CLAIM_SECONDS))
    found = []
    query = (Match.objects.filter(waiting, status=Match.Status.FINISHED, game__in=games, finished_at__gte=since,
                                  users__isnull=False)
             .distinct().order_by("-finished_at"))
    for match in query[: max(limit * 4, 20)]:
        if person_seats(match):
            found.append(match)
            if len(found) >= limit:
                break
    return found


def claim(match_id: int) -> bool:
    """Whether this referee may analyse ``match_id`` now: it writes the match's row empty (the claim), or takes
    over a claim older than ``CLAIM_SECONDS``; False when another holds a fresh claim or the row has a result."""
    try:
        with transaction.atomic():
            MatchAnalysis.objects.create(match_id=match_id)
        return True
    except IntegrityError:
        now = timezone.now()
        return MatchAnalysis.objects.filter(
            match_id=match_id, data__isnull=True, error="", computed_at__lt=now - timedelta(seconds=CLAIM_SECONDS),
        ).update(computed_at=now) == 1


def job_of(match: Match) -> dict[str, Any]:
    """What the worker needs: the game's analysis module, the match's record (every round that was played to its
    end, with its moves), the seats to analyse, and the moves the server played for a person whose time ran out
    (``[round number, move index]``: no decision of theirs)."""
    played = [r for r in match.rounds.order_by("number") if r.record]
    record = {"game": match.game, "options": match.options, "rounds": [r.record for r in played],
              "players": [p.get("name") or str(p["seat"]) for p in match.players]}
    return {"module": registry.get(match.game).analysis, "record": record, "seats": person_seats(match),
            "skip": timed_out(match, played)}


def timed_out(match: Match, played: list[Any]) -> list[list[int]]:
    """The record's moves (``[round number in the record, move index]``) the server played for a seat whose turn
    ran out, read from the move log: per round the log's moves and the record's player moves (without the
    system's reshuffles and the resignations) are matched one to one, when their seats agree throughout."""
    log: dict[int, list[Move]] = {}
    for move in match.moves.exclude(by=Move.By.RESIGN).order_by("seq"):
        log.setdefault(move.round_number, []).append(move)
    skip = []
    for number, rnd in enumerate(played, start=1):
        moves = [(i, m) for i, m in enumerate(rnd.record.get("moves", [])) if m.get("action") not in ("reshuffle", "resign")]
        logged = log.get(rnd.number, [])
        if len(moves) != len(logged) or any(m.get("seat") != row.seat for (_, m), row in zip(moves, logged, strict=True)):
            logger.warning("the move log of match %s round %s does not match its record: timeouts not told apart",
                           match.pk, rnd.number)
            continue
        skip += [[number, i] for (i, _), row in zip(moves, logged, strict=True) if row.by == Move.By.TIMEOUT]
    return skip


def store(match_id: int, outcome: dict[str, Any] | BaseException) -> MatchAnalysis:
    """Keep what the analysis of ``match_id`` found (or why it failed)."""
    if isinstance(outcome, BaseException):
        logger.error("the analysis of match %s failed: %r", match_id, outcome)
        fields: dict[str, Any] = {"data": None, "error": f"{type(outcome).__name__}: {outcome}"[:300]}
    else:
        fields = {"data": outcome, "error": ""}
    row, _ = MatchAnalysis.objects.update_or_create(match_id=match_id, defaults=fields)
    return row


def analyse_match(match: Match, *, seconds: float) -> MatchAnalysis:
    """Analyse ``match`` here and now (``manage.py analyse``, tests), within the budgets of ``games.analysis``."""
    if not analysable(match):
        raise ValueError(f"match {match.pk} has nothing to analyse (not finished, no person seated, or its game "
                         "has no analysis)")
    job = job_of(match)
    try:
        outcome: dict[str, Any] | BaseException = analysis.analyse_record(
            job["module"], job["record"], job["seats"], seconds=seconds, seed=match.pk, skip=job["skip"])
    except Exception as exc:  # noqa: BLE001 - kept as the match's analysis error
        outcome = exc
    return store(match.pk, outcome)


def clock_step(analyst: analysis.Analyst, *, seconds: float | None = None) -> int | None:
    """One step of the referee's clock: store the worker's finished analysis, then hand it the next match that
    waits (one at a time). Quick: a query or two and a hand-over; the work runs in the worker process. Returns
    the id of the match handed over, or None."""
    seconds = float(settings.GAMES_ANALYSIS_SECONDS) if seconds is None else seconds
    finished = analyst.done()
    if finished is not None:
        store(*finished)
    if seconds <= 0 or analyst.busy():
        return None
    # Nothing was waiting at the last look: look again only when a match has ended since (one index range
    # read), or after IDLE_SECONDS, not every tick.
    if (analyst.idle_since is not None and time.monotonic() < analyst.look_again_at
            and not Match.objects.filter(status=Match.Status.FINISHED, finished_at__gte=analyst.idle_since).exists()):
        return None
    looked_at = timezone.now()
    # A whole look walks every finished match of RECENT_DAYS (at a busy site, hundreds of thousands of rows on
    # the database thread; it ends early only when a match waits): after one that found nothing, the next looks
    # read only the matches that ended since (less a margin for a match committed after the look), until one
    # of them finds nothing again; a whole one comes again after CLAIM_SECONDS (for a claim gone stale).
    narrow = analyst.idle_since is not None and time.monotonic() < analyst.narrow_until
    ended_since = analyst.idle_since - timedelta(seconds=NARROW_MARGIN_SECONDS) if narrow else None
    for match in pending(limit=3, ended_since=ended_since):
        if not claim(match.pk):  # another referee took it since
            continue
        job = job_of(match)
        if not narrow:
            analyst.idle_since = None
        analyst.start(match.pk, module=job["module"], record=job["record"], seats=job["seats"], seconds=seconds,
                      skip=job["skip"])
        return match.pk
    if not narrow:
        analyst.narrow_until = time.monotonic() + CLAIM_SECONDS
    analyst.idle_since, analyst.look_again_at = looked_at, time.monotonic() + analysis.IDLE_SECONDS
    return None
