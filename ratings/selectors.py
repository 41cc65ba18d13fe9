"""Reads of ranked play: a person's rating, its history, one match's changes, the leaderboards, the
abandoning wait and the pool as the lobby shows it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone

from games import registry
from ratings.models import DEFAULT_MU, DEFAULT_SIGMA, PROVISIONAL_MATCHES, PoolEntry, Rating, RatingChange

#: The leaderboard shows players with a rated match of that game in this many days.
ACTIVE_DAYS = 30
#: "Change over the last 7 days" on the leaderboard.
CHANGE_DAYS = 7
#: Abandoning (ratings.md): this many left of the last ``ABANDON_WINDOW`` rated matches means a wait.
ABANDON_COUNT = 3
ABANDON_WINDOW = 10
ABANDON_FIRST_WAIT = timedelta(minutes=10)
ABANDON_MAX_WAIT = timedelta(hours=24)
ABANDON_DOUBLING = timedelta(hours=24)


def _signed_in(user) -> bool:
    return user is not None and getattr(user, "is_authenticated", False)


def rating_of(*, user, game: str) -> Rating:
    """``user``'s rating in ``game``: the stored one, or (never rated) an unsaved one at openskill's
    defaults, Wertungszahl 1500, provisional, 0 matches. Has ``.mu .sigma .display .provisional .matches``."""
    if not registry.is_game(game):
        raise ValueError(f"unknown game {game!r}")
    if _signed_in(user) or getattr(user, "pk", None) is not None:
        rating = Rating.objects.filter(user_id=user.pk, game=game).first()
        if rating is not None:
            return rating
    return Rating(user_id=getattr(user, "pk", None), game=game, mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)


def match_changes(*, match_id: int) -> dict[int, RatingChange]:
    """The rating changes one match made, by user id (empty for a match that was not rated)."""
    return {change.user_id: change for change in RatingChange.objects.filter(match_id=match_id)}


def rating_history(*, user, game: str) -> list[RatingChange]:
    """Every change of ``user``'s rating in ``game``, oldest first."""
    return list(RatingChange.objects.filter(user_id=user.pk, game=game).order_by("created_at", "pk"))


# --- leaderboards ---------------------------------------------------------------------------------------


def _eligible(*, game: str, now: datetime):
    # ``established__in=[True]``, not ``=True``: Django writes the latter as a bare column ("WHERE established"),
    # which SQLite cannot seek its index by; "IN (1)" it can.
    return Rating.objects.filter(
        game=game, established__in=[True], last_rated_at__gte=now - timedelta(days=ACTIVE_DAYS)
    )


def _with_week_start(ratings, *, game: str, now: datetime):
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


def leaderboard(*, game: str, user=None, limit: int = 100, now: datetime | None = None) -> dict:
    """The leaderboard of ``game``: ``rows`` (the top ``limit``, best first, each with place, user_id, name,
    display, matches, win_share, change_7d) and ``own`` (the signed-in ``user``'s row wherever they stand,
    None if they are not on the board); ``own_rating`` is their rating (None when signed out), so a page
    can say why they are not listed. A fixed number of queries: 1, and 2 more for a signed-in player."""
    if not registry.is_game(game):
        raise ValueError(f"unknown game {game!r}")
    now = now or timezone.now()
    eligible = _eligible(game=game, now=now)
    ranked = _with_week_start(eligible, game=game, now=now).order_by(*BOARD_ORDER)
    rows = [_row(values, place) for place, values in enumerate(ranked.values(*_ROW_FIELDS)[:limit], start=1)]
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
    left: int  # rated matches left among the last ``ABANDON_WINDOW``
    wait: timedelta


def abandon_wait(*, user, now: datetime | None = None) -> AbandonWait | None:
    """The wait ``user`` is serving for abandoning rated matches (ratings.md), or None.

    The wait starts when the match they last left ended, if that made ``ABANDON_COUNT`` of their last
    ``ABANDON_WINDOW`` rated matches (both games) left: 10 minutes, doubled for every earlier such abandon in
    the 24 hours before it, at most 24 hours.
    """
    if not _signed_in(user):
        return None
    now = now or timezone.now()
    # The last 200 rated matches judge every abandon of the last 48 hours against its own last ten.
    recent = list(
        RatingChange.objects.filter(user_id=user.pk).order_by("-created_at", "-pk").values_list("left", "created_at")[:200]
    )
    if not any(left and now - at < ABANDON_MAX_WAIT for left, at in recent):
        return None
    history = list(reversed(recent))  # oldest first
    triggering: list[tuple[datetime, int]] = []  # (when, left among the last ten) of abandons that count
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


def pool_entry_of(*, user) -> PoolEntry | None:
    """``user``'s pool entry (waiting, or paired with ``table`` set), or None."""
    if not _signed_in(user):
        return None
    return PoolEntry.objects.filter(user_id=user.pk).select_related("table").first()


def pool_waiting_count(*, game: str) -> int:
    return PoolEntry.objects.filter(game=game, table__isnull=True).count()
