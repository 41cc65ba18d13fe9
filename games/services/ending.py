"""The one end of a match: every way a match ends (its last round scored, a resignation, three timeouts,
an abort) writes its result here, and the end is announced after the commit, once the last frames are out.

The announcement is ``games.signals.match_ended``, queued with ``games.delivery.events.after_fanout``: it runs only
once the end is durable **and** the move's frames have been handed to the channel layer, so whatever the
listeners (ratings, then tournaments: ``settings.GAMES_MATCH_ENDED_ORDER``) do wrong cannot undo the last
move, and no player waits for them to see the last card fall. A match whose listeners all ran is stamped
``announced_at``; a process killed before that stamp, or a listener that raised, leaves the match
unannounced, and the referee's clock announces it again (``matches_catch_up``; by hand:
``manage.py matches_ended --announce``). Listeners are idempotent.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from games import registry
from games.delivery import events, notices
from games.models import Match, Seat, Table
from games.signals import match_ended

logger = logging.getLogger(__name__)


def match_end(*, table: Table, seats: list[Seat], match: Match, state: Any, how: str, now: datetime) -> None:
    """Write the end of ``match`` (inside the caller's transaction, table row locked) and schedule its
    announcement for after the commit and the fan-out (the caller sends the table's frames after this).
    ``how`` is a ``Match.Ending``; an aborted match has no result."""
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
        result = registry.get(table.game).result(state)
        assert result is not None  # the match is over: it has an outcome
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
    notices.table_finished(table, [seat.user_id for seat in seats])
    events.after_fanout(lambda: match_announce(match_id=match_id, how=how))


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


def matches_unannounced(*, older_than_seconds: float = 0, now: datetime | None = None) -> QuerySet[Match]:
    """Ended matches whose announcement was not confirmed (oldest end first)."""
    cutoff = (now or timezone.now()) - timedelta(seconds=older_than_seconds)
    return (
        Match.objects.filter(announced_at__isnull=True, finished_at__isnull=False, finished_at__lte=cutoff)
        .exclude(ending="")
        .order_by("finished_at", "pk")
    )


#: Matches whose catch-up failed in this process: match id → (monotonic time of the next try, wait).
_retry: dict[int, tuple[float, float]] = {}


def matches_catch_up(*, now: datetime | None = None, limit: int = 20) -> list[int]:
    """The clock's catch-up: announce again ended matches still unannounced ``GAMES_ANNOUNCE_RETRY_SECONDS``
    after their end (oldest first, at most ``limit``). One that fails again waits twice as long before the
    next try in this process (at most ``GAMES_ANNOUNCE_RETRY_MAX_SECONDS``). Returns the ids announced now."""
    first_wait = float(settings.GAMES_ANNOUNCE_RETRY_SECONDS)
    longest = float(settings.GAMES_ANNOUNCE_RETRY_MAX_SECONDS)
    clock = time.monotonic()
    found = list(matches_unannounced(older_than_seconds=first_wait, now=now).values_list("pk", "ending")[:limit])
    announced = []
    for match_id, how in found:
        due, wait = _retry.get(match_id, (clock, first_wait))
        if due > clock:
            continue
        if match_announce(match_id=match_id, how=how):
            _retry.pop(match_id, None)
            announced.append(match_id)
        else:
            _retry[match_id] = (clock + wait, min(longest, wait * 2))
    still = {match_id for match_id, _ in found}
    for match_id in [known for known in _retry if known not in still and len(found) < limit]:
        del _retry[match_id]  # announced meanwhile (by another referee, or by hand)
    return announced
