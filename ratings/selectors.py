"""Reads of ranked play: a person's rating, its history, one match's changes, the leaderboards, the
abandoning wait and the pool as the lobby shows it."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeGuard, TypeVar

from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from accounts.protocols import Person
from games import registry
from games.models import Match, Move
from ratings.models import DEFAULT_MU, DEFAULT_SIGMA, PROVISIONAL_MATCHES, PoolEntry, Rating, RatingChange

#: The leaderboard shows players with a rated match of that game in this many days.
ACTIVE_DAYS = 30
#: "Change over the last 7 days" on the leaderboard.
CHANGE_DAYS = 7
#: Abandoning (ratings.md): this many left or called off of the last ``ABANDON_WINDOW`` ranked matches means a wait.
ABANDON_COUNT = 3
ABANDON_WINDOW = 10
ABANDON_FIRST_WAIT = timedelta(minutes=10)
ABANDON_MAX_WAIT = timedelta(hours=24)
ABANDON_DOUBLING = timedelta(hours=24)


def _signed_in(user: Person | None) -> TypeGuard[Person]:
    return user is not None and getattr(user, "is_authenticated", False)


def rating_of(*, user: Person | None, game: str) -> Rating:
    """``user``'s rating in ``game``: the stored one, or (never rated) an unsaved one at openskill's
    defaults, Wertungszahl 1500, provisional, 0 matches. Has ``.mu .sigma .display .provisional .matches``."""
    if not registry.is_game(game):
        raise ValueError(f"unknown game {game!r}")
    user_id: Any = getattr(user, "pk", None)
    if _signed_in(user) or user_id is not None:
        rating = Rating.objects.filter(user_id=user_id, game=game).first()
        if rating is not None:
            return rating
    return Rating(user_id=user_id, game=game, mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)


def match_changes(*, match_id: int) -> dict[int, RatingChange]:
    """The rating changes one match made, by user id (empty for a match that was not rated)."""
    return {change.user_id: change for change in RatingChange.objects.filter(match_id=match_id)}


def rating_history(*, user: Person, game: str) -> list[RatingChange]:
    """Every change of ``user``'s rating in ``game``, oldest first."""
    return list(RatingChange.objects.filter(user_id=user.pk, game=game).order_by("created_at", "pk"))


# --- leaderboards ---------------------------------------------------------------------------------------


def _eligible(*, game: str, now: datetime) -> QuerySet[Rating]:
    # ``established__in=[True]``, not ``=True``: Django writes the latter as a bare column ("WHERE established"),
    # which SQLite cannot seek its index by; "IN (1)" it can.
    return Rating.objects.filter(
        game=game, established__in=[True], last_rated_at__gte=now - timedelta(days=ACTIVE_DAYS)
    )


def _with_week_start(ratings: QuerySet[Rating], *, game: str, now: datetime) -> QuerySet[Rating]:
    """Annotate each rating with its Wertungszahl before its first change of the last 7 days (None: none)."""
    first_in_week = RatingChange.objects.filter(
        user_id=OuterRef("user_id"), game=game, created_at__gte=now - timedelta(days=CHANGE_DAYS)
    ).order_by("created_at", "pk")
    return ratings.annotate(week_start=Subquery(first_in_week.values("display_before")[:1]))


_ROW_FIELDS = ("user_id", "display", "matches", "wins", "reached_at", "week_start",
               "user__username", "user__profile__display_name")
BOARD_ORDER = ("-display", "-matches", "reached_at", "user_id")


def _row(values: dict, place: int | None) -> dict:
    matches = values["matches"]
    week_start = values["week_start"]
    return {
        "place": place,
        "user_id": values["user_id"],
        "username": values["user__username"],
        "name": values["user__profile__display_name"] or values["user__username"],
        "display": values["display"],
        "matches": matches,
        "wins": values["wins"],
        "win_share": values["wins"] / matches if matches else 0.0,
        "change_7d": values["display"] - week_start if week_start is not None else 0,
    }


def leaderboard(*, game: str, user: Person | None = None, limit: int = 100, offset: int = 0,
                now: datetime | None = None) -> dict:
    """The leaderboard of ``game``: ``rows`` (``limit`` rows from place ``offset + 1`` on, best first, each
    with place, user_id, name, display, matches, win_share, change_7d) and ``own`` (the signed-in ``user``'s
    row wherever they stand, None if they are not on the board); ``own_rating`` is their rating (None when signed out), so a page
    can say why they are not listed. A fixed number of queries: 1, and 2 more for a signed-in player."""
    if not registry.is_game(game):
        raise ValueError(f"unknown game {game!r}")
    now = now or timezone.now()
    eligible = _eligible(game=game, now=now)
    offset = max(0, int(offset))
    # The page's ratings are picked first, bare (the board's index, no joins), and only they are annotated and
    # joined: an OFFSET over the annotated rows would work out the week's change of every row it skips.
    page = eligible.order_by(*BOARD_ORDER).values("pk")[offset : offset + limit]
    ranked = _with_week_start(Rating.objects.filter(pk__in=page), game=game, now=now).order_by(*BOARD_ORDER)
    rows = [_row(values, place) for place, values in enumerate(ranked.values(*_ROW_FIELDS), start=offset + 1)]
    own = own_rating = None
    if _signed_in(user):
        own_values = (
            _with_week_start(Rating.objects.filter(user_id=user.pk, game=game), game=game, now=now)
            .values(*_ROW_FIELDS, "last_rated_at")
            .first()
        )
        if own_values is not None:
            own_rating = {
                "display": own_values["display"],
                "matches": own_values["matches"],
                "provisional": own_values["matches"] < PROVISIONAL_MATCHES,
                "last_rated_at": own_values["last_rated_at"],
            }
        cutoff = now - timedelta(days=ACTIVE_DAYS)
        listed = own_values is not None and own_values["matches"] >= PROVISIONAL_MATCHES and (
            own_values["last_rated_at"] is not None and own_values["last_rated_at"] >= cutoff
        )
        if listed:
            own = next((row for row in rows if row["user_id"] == user.pk), None)
            if own is None:
                d, m, r = own_values["display"], own_values["matches"], own_values["reached_at"]
                ahead = eligible.filter(
                    Q(display__gt=d)
                    | Q(display=d, matches__gt=m)
                    | Q(display=d, matches=m, reached_at__lt=r)
                    | Q(display=d, matches=m, reached_at=r, user_id__lt=user.pk)
                ).count()
                own = _row(own_values, ahead + 1)
    return {"game": game, "rows": rows, "own": own, "own_rating": own_rating}


# --- abandoning -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AbandonWait:
    """Why and until when someone may not start a rated match."""

    until: datetime
    left: int  # ranked matches left or called off among the last ``ABANDON_WINDOW``
    wait: timedelta


#: How many of a person's latest ranked matches (rated ones and ones they called off) judge their abandons.
ABANDON_LOOKBACK = 200


def ranked_aborts(*, user: Person, limit: int = ABANDON_LOOKBACK) -> list[datetime]:
    """When ``user`` called off a ranked match before its first move (newest first). The abort step names
    the seat that called it off in ``Match.left_seats``; a table staff ended names nobody."""
    rows = (
        Match.objects.filter(users=user.pk, ranked=True, status=Match.Status.ABORTED, finished_at__isnull=False)
        .order_by("-finished_at", "-pk")
        .values_list("players", "left_seats", "finished_at")[:limit]
    )
    return [
        at for players, left_seats, at in rows
        if at is not None and any(p.get("user_id") == user.pk and p.get("seat") in (left_seats or []) for p in players or [])
    ]


def early_resignations(*, user: Person, limit: int = ABANDON_LOOKBACK) -> list[datetime]:
    """When ``user`` resigned a ranked match that was not rated (the farming cap), before a move of their
    own (newest first). ratings.md "Farming": that counts as an abandon, like calling it off. (A rated
    match they resigned is an abandon already, through its rating change.)"""
    rows = (
        Match.objects.filter(users=user.pk, ranked=True, status=Match.Status.FINISHED, finished_at__isnull=False)
        .exclude(Exists(RatingChange.objects.filter(match_id=OuterRef("pk"))))
        .order_by("-finished_at", "-pk")
        .values_list("pk", "players", "left_seats", "finished_at")[:limit]
    )
    seats = {
        match_id: (seat, at) for match_id, players, left_seats, at in rows
        for seat in [next((p.get("seat") for p in players or [] if p.get("user_id") == user.pk), None)]
        if seat is not None and seat in (left_seats or [])
    }
    if not seats:
        return []
    moved = {
        (match_id, seat) for match_id, seat in
        Move.objects.filter(match_id__in=seats, by=Move.By.PLAYER).values_list("match_id", "seat").distinct()
    }
    resigned = {
        (match_id, seat) for match_id, seat in
        Move.objects.filter(match_id__in=seats, by=Move.By.RESIGN).values_list("match_id", "seat")
    }
    return sorted(
        (at for match_id, (seat, at) in seats.items()
         if at is not None and (match_id, seat) in resigned and (match_id, seat) not in moved),
        reverse=True,
    )


def abandon_history(*, user: Person) -> list[tuple[bool, datetime]]:
    """``user``'s latest ranked matches, oldest first, as (abandoned, when): every rated match (abandoned if
    they left it) and every ranked match they called off (always abandoned; ratings.md "Abandoning")."""
    rated = list(
        RatingChange.objects.filter(user_id=user.pk)
        .order_by("-created_at", "-pk")
        .values_list("left", "created_at")[:ABANDON_LOOKBACK]
    )
    aborted = [(True, at) for at in ranked_aborts(user=user) + early_resignations(user=user)]
    if len(rated) == ABANDON_LOOKBACK:  # older aborts than the rated matches read would judge nothing read
        aborted = [(left, at) for left, at in aborted if at >= rated[-1][1]]
    return sorted(rated + aborted, key=lambda row: row[1])[-ABANDON_LOOKBACK:]


def abandon_wait(*, user: Person | None, now: datetime | None = None) -> AbandonWait | None:
    """The wait ``user`` is serving for abandoning ranked matches (ratings.md), or None.

    An abandon is leaving a rated match (resigning, three timeouts) or calling a ranked match off before its
    first move. The wait starts when the match they last abandoned ended, if that made ``ABANDON_COUNT`` of
    their last ``ABANDON_WINDOW`` ranked matches (both games) abandoned: 10 minutes, doubled for every
    earlier such abandon in the 24 hours before it, at most 24 hours.
    """
    if not _signed_in(user):
        return None
    now = now or timezone.now()
    history = abandon_history(user=user)
    if not any(left and now - at < ABANDON_MAX_WAIT for left, at in history):
        return None
    triggering: list[tuple[datetime, int]] = []  # (when, abandoned among the last ten) of abandons that count
    for index, (left, at) in enumerate(history):
        if not left:
            continue
        window = history[max(0, index - ABANDON_WINDOW + 1): index + 1]
        count = sum(1 for was_left, _at in window if was_left)
        if count >= ABANDON_COUNT:
            triggering.append((at, count))
    if not triggering:
        return None
    last_at, count = triggering[-1]
    earlier = sum(1 for at, _count in triggering[:-1] if last_at - at <= ABANDON_DOUBLING)
    wait = min(ABANDON_FIRST_WAIT * (2**earlier), ABANDON_MAX_WAIT)
    until = last_at + wait
    if until <= now:
        return None
    return AbandonWait(until=until, left=count, wait=wait)


# --- the pool -------------------------------------------------------------------------------------------


def pool_entry_of(*, user: Person | None) -> PoolEntry | None:
    """``user``'s pool entry (waiting, or paired with ``table`` set), or None."""
    if not _signed_in(user):
        return None
    return PoolEntry.objects.filter(user_id=user.pk).select_related("table").first()


def pool_waiting_count(*, game: str) -> int:
    return PoolEntry.objects.filter(game=game, table__isnull=True).count()


# --- farming --------------------------------------------------------------------------------------------

#: ratings.md "Farming": the same two people are rated against each other at most this many times ...
FARMING_CAP = 3
#: ... in any this long (outside tournaments; tournament matches always count and are always rated).
FARMING_WINDOW = timedelta(hours=24)


@dataclass(frozen=True)
class FarmingCap:
    """Two people who have been rated against each other ``count`` times in the ``FARMING_WINDOW`` before
    ``at``: a further match between them outside a tournament is played unrated."""

    user_ids: tuple[int, int]
    count: int
    at: datetime


def farming_cap(*, user_ids: Iterable[int | None], at: datetime | None = None) -> FarmingCap | None:
    """The first pair of ``user_ids`` (in their order) who already have ``FARMING_CAP`` rated matches against
    each other (either game; a Rommé list counts for every two people at it) that ended in the 24 hours
    before ``at``; None when every pair may still be rated. Two queries at most."""
    people = [uid for uid in dict.fromkeys(user_ids) if uid is not None]
    if len(people) < 2:
        return None
    at = at or timezone.now()
    return farming_caps(groups={0: people}, at=at).get(0)


K = TypeVar("K", bound=Hashable)


def farming_caps(*, groups: Mapping[K, Iterable[int | None]], at: datetime) -> dict[K, FarmingCap]:
    """``farming_cap`` for many groups of people at once (the lobby's tables), in one query: the key of
    every group that has a pair at the cap, with its ``FarmingCap``."""
    everyone = {uid for people in groups.values() for uid in people if uid is not None}
    if not everyone:
        return {}
    rows = RatingChange.objects.filter(
        user_id__in=everyone, created_at__gte=at - FARMING_WINDOW, created_at__lt=at
    ).values_list("match_id", "user_id")
    by_match: dict[int, set[int]] = {}
    for match_id, user_id in rows:
        by_match.setdefault(match_id, set()).add(user_id)
    caps: dict[K, FarmingCap] = {}
    for key, people in groups.items():
        cap = _pair_at_cap([uid for uid in dict.fromkeys(people) if uid is not None], by_match, at)
        if cap is not None:
            caps[key] = cap
    return caps


def _pair_at_cap(people: list[int], by_match: dict[int, set[int]], at: datetime) -> FarmingCap | None:
    for index, a in enumerate(people):
        for b in people[index + 1:]:
            count = sum(1 for users in by_match.values() if a in users and b in users)
            if count >= FARMING_CAP:
                return FarmingCap(user_ids=(a, b), count=count, at=at)
    return None


def match_farming_cap(match: Match) -> FarmingCap | None:
    """Why ``match`` (ranked, outside a tournament) is played unrated, judged at its start (so the table can
    say so before the first move, and the rating at its end agrees); None for a tournament match."""
    if match.table.tournament:
        return None
    return farming_cap(user_ids=[p.get("user_id") for p in match.players or [] if not p.get("bot")],
                       at=match.started_at)
