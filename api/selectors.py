"""Reads the API adds to the apps' own selectors: a player's public finished matches with the API's filters
and a cursor, and the same matches a chunk at a time for the NDJSON export.

Everything here reads as a visitor who is signed in as nobody: the API is public, so a private table's match
is never listed, whoever asks. The visibility rule is the profile history's own
(``games.reads.history.finished_matches`` for a visitor), not a copy of it.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q, QuerySet

from games.models import Match
from games.reads import history
from games.reads.matches import active_user

#: Matches the export reads from the database at a time (``export_chunk``; with their rounds, players and rating
#: changes, one query each). What the export holds at once: a chunk of 50 gin matches of 4 to 6 rounds peaked
#: at 3.3 to 4.7 MB while its rounds were read (``bench.export``), whatever the player's number of matches.
EXPORT_CHUNK = 50


@dataclass(frozen=True)
class MatchFilters:
    """The filters of a player's match list; None means any."""

    game: str | None = None
    ranked: bool | None = None
    since: datetime | None = None
    until: datetime | None = None
    opponent: Any = None  # a user


def player_get(*, username: str) -> Any:
    """The active player of that user name, or None: a deleted or deactivated account has no public page
    and so nothing in the API either."""
    return active_user(username=username)


def public_matches(*, user: Any, filters: MatchFilters | None = None) -> QuerySet[Match]:
    """``user``'s finished matches that anyone may see, newest first (``-finished_at``, ``-pk``)."""
    filters = filters or MatchFilters()
    matches = history.finished_matches(user=user, viewer=None)
    if filters.game is not None:
        matches = matches.filter(game=filters.game)
    if filters.ranked is not None:
        matches = matches.filter(ranked=filters.ranked)
    if filters.since is not None:
        matches = matches.filter(finished_at__gte=filters.since)
    if filters.until is not None:
        matches = matches.filter(finished_at__lt=filters.until)
    if filters.opponent is not None:
        matches = matches.filter(pk__in=Match.objects.filter(users=filters.opponent).values("pk"))
    return matches


def _after(matches: QuerySet[Match], after: tuple[datetime, int] | None) -> QuerySet[Match]:
    """The matches after (older than) the one at ``after`` (its finish time and id) in the newest-first order."""
    if after is None:
        return matches
    at, pk = after
    return matches.filter(Q(finished_at__lt=at) | Q(finished_at=at, pk__lt=pk))


# --- the cursor -----------------------------------------------------------------------------------------------


def cursor_of(match: Match) -> str:
    """An opaque cursor after ``match``: its finish time and id, so a page never skips or repeats a match
    however many end meanwhile."""
    assert match.finished_at is not None
    raw = f"{match.finished_at.isoformat()}|{match.pk}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def cursor_parse(cursor: str) -> tuple[datetime, int] | None:
    """The (finished_at, id) a cursor names, or None for anything this API did not hand out."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        when, pk = raw.split("|")
        at, match_id = datetime.fromisoformat(when), int(pk)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    if at.tzinfo is None or not 0 < match_id < 2**63:  # only what cursor_of writes
        return None
    return at, match_id


def matches_page(*, user: Any, filters: MatchFilters, after: tuple[datetime, int] | None,
                 limit: int) -> tuple[list[history.HistoryEntry], str | None]:
    """One page of ``user``'s public matches, after the cursor's match: the entries (as the profile's history
    shows them) and the cursor of the next page (None on the last)."""
    rows = list(_after(public_matches(user=user, filters=filters), after)[: limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    return history.entries_of(rows, user=user), (cursor_of(rows[-1]) if more and rows else None)


def export_chunk(*, user: Any, filters: MatchFilters,
                 after: tuple[datetime, int] | None) -> tuple[list[Match], tuple[datetime, int] | None]:
    """The next ``EXPORT_CHUNK`` of ``user``'s public matches after ``after`` (None: from the newest), and where
    the chunk after it starts (None: this was the last).

    One query that is read to its end: between two chunks no cursor stays open on the connection, so an export
    that the client abandons halfway leaves nothing behind (a ``QuerySet.iterator()`` would hold its cursor, a
    server-side one on PostgreSQL, until the stream is closed), and the chunks need no transaction around them.
    """
    # Without the table's ``state`` (the live game's JSON, kept after the end): the record never reads it, and
    # it made each match of a chunk weigh ~100 kB in memory (tracemalloc), 20 MB for a chunk of 200.
    matches = _after(public_matches(user=user, filters=filters), after).defer("table__state")
    chunk = list(matches[:EXPORT_CHUNK])
    if len(chunk) < EXPORT_CHUNK:
        return chunk, None
    last = chunk[-1]
    assert last.finished_at is not None
    return chunk, (last.finished_at, last.pk)
