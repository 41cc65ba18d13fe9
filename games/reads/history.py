"""A player's match history for the profile pages: finished matches, newest first, as the player fared in them.

Read-only (a selector). Names come from the players' profiles as they are now, never from the names stored
when the match began, so a deleted account shows as "Gelöschter Spieler" and not under its old user name.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.urls import reverse

from accounts.models import Profile
from accounts.protocols import Person
from games import registry
from games.models import BotLevel, Match
from games.reads import selectors
from games.reads.matches import forfeited_seats

#: How the player fared: won, lost, drawn (a shared first place), or left (resigned or timed out); a match
#: the other seat lost without playing is won by forfeit, and one the player lost so, lost by forfeit.
WON, LOST, DRAWN, LEFT = "won", "lost", "drawn", "left"
WON_BY_FORFEIT, LOST_BY_FORFEIT = "won_by_forfeit", "lost_by_forfeit"


@dataclass(frozen=True)
class Opponent:
    """Another seat of the match: a person (``name`` is their public name) or a computer player."""

    name: str
    bot_level: str = ""
    # Link to the public profile; empty for computer players and accounts without a public page.
    profile_url: str = ""


@dataclass(frozen=True)
class HistoryEntry:
    """One finished match from the player's side."""

    match_id: int
    number: int
    game: str
    game_label: str
    finished_at: datetime | None  # never None: the match is finished
    opponents: list[Opponent]
    seat: int
    # The player's final score: gin points, Rommé minus points (casual) or the list result (Masters scoring).
    score: int | None
    score_kind: str  # "points" | "minus" | "result"
    outcome: str
    place: int | None
    seats: int
    ranked: bool
    table_url: str
    record_url: str


def finished_matches(*, user: User, viewer: Person | None = None) -> QuerySet[Match]:
    """The finished matches ``user`` played that ``viewer`` may see (None: anyone), newest first (``-finished_at``,
    ``-pk``): the one visibility rule of every list of a player's matches, the profile's history and the public
    API's list and export alike.

    Matches at private tables are the players' own business: only ``user`` sees them. Nor does anyone else see
    a list of a same-deals stage still being played: it tells the other tables how their deals go.
    """
    finished = (
        Match.objects.filter(users=user, status=Match.Status.FINISHED)
        .select_related("table")
        .order_by("-finished_at", "-pk")
    )
    if not _own(user, viewer):
        finished = finished.filter(table__private=False).exclude(table__deal_group__in=selectors.deal_groups_open())
    return finished


def _own(user: User, viewer: Person | None) -> bool:
    return bool(viewer is not None and getattr(viewer, "is_authenticated", False) and viewer.pk == user.pk)


def matches_for_user(*, user: User, viewer: Person | None = None, limit: int = 20) -> list[HistoryEntry]:
    """The finished matches ``user`` played that ``viewer`` may see (``finished_matches``), newest first, at most
    ``limit``. A private table's links carry the invitation for its own player, so they keep working after the
    seat is given up."""
    matches = list(finished_matches(user=user, viewer=viewer)[: max(0, int(limit))])
    return entries_of(matches, user=user, own=_own(user, viewer))


def entries_of(matches: list[Match], *, user: User, own: bool = False) -> list[HistoryEntry]:
    """``matches`` as ``user`` fared in them, with the opponents' names as they are now (one query for them);
    ``own``: ``user`` is the one looking (private tables' links carry the invitation)."""
    people = {
        player["user_id"]
        for match in matches
        for player in match.players
        if player.get("user_id") is not None and player["user_id"] != user.pk
    }
    others = {other.pk: other for other in get_user_model().objects.filter(pk__in=people).select_related("profile")}
    forfeits = forfeited_seats(matches=matches)
    return [_entry(match, user=user, others=others, own=own, forfeit=forfeits.get(match.pk)) for match in matches]


def _entry(match: Match, *, user: User, others: dict, own: bool, forfeit: int | None) -> HistoryEntry:
    seat = next(p["seat"] for p in match.players if p.get("user_id") == user.pk)
    result = match.result or {}
    places = result.get("places") or []
    place = places[seat] if seat < len(places) else None
    if forfeit == seat:
        outcome = LOST_BY_FORFEIT
    elif seat in (match.left_seats or []):
        outcome = LEFT
    elif match.winner_seat == seat:
        outcome = WON_BY_FORFEIT if forfeit is not None else WON
    elif match.winner_seat is None and place == 1:
        outcome = DRAWN
    else:
        outcome = LOST
    finals = match.final_scores or []
    entry = registry.get(match.game)
    # The match's options as they were stored (an old match's ``tournament`` flag counts as Masters scoring).
    score_kind = entry.score_kind(match.options or {})
    invite = {"einladung": match.table.invite_token} if own and match.table.private else {}
    table_url = reverse("games:table", kwargs={"table_id": match.table_id})
    record_url = reverse("games:record", kwargs={"table_id": match.table_id})
    return HistoryEntry(
        match_id=match.pk,
        number=match.number,
        game=match.game,
        game_label=entry.label,
        finished_at=match.finished_at,
        opponents=[_opponent(p, others) for p in match.players if p.get("seat") != seat],
        seat=seat,
        score=finals[seat] if seat < len(finals) else None,
        score_kind=score_kind,
        outcome=outcome,
        place=place,
        seats=len(match.players),
        ranked=match.ranked,
        table_url=f"{table_url}?{urlencode(invite)}" if invite else table_url,
        record_url=f"{record_url}?{urlencode({'partie': match.number, **invite})}",
    )


def _opponent(player: dict, others: dict) -> Opponent:
    if player.get("bot"):
        level = player["bot"] if player["bot"] in BotLevel.values else BotLevel.SIMPLE
        return Opponent(name="", bot_level=level)
    other = others.get(player.get("user_id"))
    if other is None:  # every seat of a started match is taken, so this is a user row gone from the database
        return Opponent(name="?")
    try:
        name = other.profile.public_name
    except Profile.DoesNotExist:  # a user from before profiles existed
        name = other.get_username()
    # Deleted and deactivated accounts have no public page (and a deleted one no name).
    url = reverse("accounts:public", kwargs={"username": other.get_username()}) if other.is_active else ""
    return Opponent(name=name, profile_url=url)
