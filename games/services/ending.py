"""The one end of a match: every way a match ends (its last round scored, a resignation, three timeouts,
an abort) writes its result here, and the end is announced after the commit.

The announcement is ``games.signals.match_ended`` sent from ``transaction.on_commit``: listeners (ratings,
tournaments) run only once the end is durable, and whatever they do wrong cannot undo the last move. A
match whose listeners all ran is stamped ``announced_at``; a process killed between the commit and that
stamp leaves the match unannounced, and ``manage.py matches_ended --announce`` sends it again (listeners
are idempotent).
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from games import engines
from games.models import Match, Seat, Table
from games.signals import match_ended

logger = logging.getLogger(__name__)


def match_end(*, table: Table, seats: list[Seat], match: Match, state, how: str, now: datetime) -> None:
    """Write the end of ``match`` (inside the caller's transaction, table row locked) and schedule its
    announcement for after the commit. ``how`` is a ``Match.Ending``; an aborted match has no result."""
    if how not in Match.Ending.values:
        raise ValueError(f"unknown ending {how!r}")
    match.finished_at = now
    match.ending = how
    match.left_seats = [seat.index for seat in seats if seat.left]
    fields = ["status", "finished_at", "ending", "left_seats"]
    if how == Match.Ending.ABORTED:
        match.status = Match.Status.ABORTED
        table.status = Table.Status.ABORTED
    else:
        result = engines.outcome(table.game, state)
        winner = result.get("winner")
        match.status = Match.Status.FINISHED
        match.result = result
        match.final_scores = result.get("final")
        match.winner_seat = winner
        match.winner_id = seats[winner].user_id if isinstance(winner, int) else None
        fields += ["result", "final_scores", "winner_seat", "winner"]
        table.status = Table.Status.FINISHED
    match.save(update_fields=fields)
    table.turn_deadline = None
    table.bot_due_at = None
    match_id = match.pk
    transaction.on_commit(lambda: match_announce(match_id=match_id, how=how))


def match_announce(*, match_id: int, how: str) -> bool:
    """Send ``match_ended`` for one ended match; stamp it announced if every listener ran. True if stamped."""
    responses = match_ended.send_robust(sender=Match, match_id=match_id, how=how)
    failed = [(receiver, error) for receiver, error in responses if isinstance(error, Exception)]
    for receiver, error in failed:
        logger.error("match_ended listener %r failed for match %s", receiver, match_id, exc_info=error)
    if failed:
        return False
    Match.objects.filter(pk=match_id, announced_at__isnull=True).update(announced_at=timezone.now())
    return True


def matches_unannounced(*, older_than_seconds: float = 0, now: datetime | None = None):
    """Ended matches whose announcement was not confirmed (oldest end first)."""
    cutoff = (now or timezone.now()) - timezone.timedelta(seconds=older_than_seconds)
    return (
        Match.objects.filter(announced_at__isnull=True, finished_at__isnull=False, finished_at__lte=cutoff)
        .exclude(ending="")
        .order_by("finished_at", "pk")
    )
