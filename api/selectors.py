"""Reads the API adds to the apps' own selectors: a player's public finished matches with the API's filters
and a cursor, and the same matches as one iterator for the NDJSON export.

Everything here reads as a visitor who is signed in as nobody: the API is public, so a private table's match
is never listed, whoever asks. The visibility rule is the one ``games.reads.history.matches_for_user`` applies
for a visitor (no private tables, no list of a same-deals stage still being played); a test holds the two
lists equal.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet

from games.models import Match
from games.reads import history
from games.reads import selectors as games_selectors
from games.reads.matches import active_user

#: Matches the export reads from the database at a time (``QuerySet.iterator(chunk_size=...)``).
EXPORT_CHUNK = 200


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
    matches = (
        Match.objects.filter(users=user, status=Match.Status.FINISHED, table__private=False)
        .exclude(table__deal_group__in=games_selectors.deal_groups_open())
        .select_related("table")
        .order_by("-finished_at", "-pk")
    )
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
    matches = public_matches(user=user, filters=filters)
    if after is not None:
        at, pk = after
        matches = matches.filter(Q(finished_at__lt=at) | Q(finished_at=at, pk__lt=pk))
    rows = list(matches[: limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    people = {p["user_id"] for m in rows for p in m.players if p.get("user_id") not in (None, user.pk)}
    others = {o.pk: o for o in get_user_model().objects.filter(pk__in=people).select_related("profile")}
    # The profile's own builder of an entry (outcome, place, score, opponents' public names).
    entries = [history._entry(m, user=user, others=others, own=False) for m in rows]
    return entries, (cursor_of(rows[-1]) if more and rows else None)


def export_matches(*, user: Any, filters: MatchFilters | None = None) -> Iterator[Match]:
    """Every public finished match of ``user``, newest first, read ``EXPORT_CHUNK`` at a time: the server
    never holds the whole list."""
    return public_matches(user=user, filters=filters).iterator(chunk_size=EXPORT_CHUNK)
