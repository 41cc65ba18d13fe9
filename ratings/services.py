"""Rating a match: openskill's PlackettLuce (library defaults) called once per rated match, its answer
stored as one ``RatingChange`` per player and the players' ``Rating`` rows, in one transaction with those
rows locked. Idempotent: a match is rated once, however often its end is announced."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import cast

from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet
from openskill.models import PlackettLuce

from games import registry
from games.models import Match
from ratings import selectors
from ratings.models import PROVISIONAL_MATCHES, Rating, RatingChange, wertungszahl

logger = logging.getLogger(__name__)

#: The one model: openskill's defaults (μ 25, σ 25/3, β 25/6, τ 25/300), as ratings.md asks.
MODEL = PlackettLuce()

#: Endings that are rated; an aborted match (called off before its first move) never is.
RATED_ENDINGS = (Match.Ending.FINISHED, Match.Ending.RESIGNED, Match.Ending.TIMEOUTS)


def seat_places(*, places: Sequence[int], left_seats: Sequence[int]) -> list[int]:
    """The places openskill gets, per seat (1 best, equal means shared).

    ``places`` are the match's own (gin: winner 1, loser 2; Rommé: the list's places, casual or Masters);
    whoever left is put below everyone who stayed, several leavers sharing the last place; those who stayed
    keep their order among themselves.

    >>> seat_places(places=[2, 1, 3, 4], left_seats=[1])
    [1, 4, 2, 3]
    """
    left = set(left_seats)
    stayed = [seat for seat in range(len(places)) if seat not in left]
    return [
        1 + len(stayed) if seat in left else 1 + sum(1 for other in stayed if places[other] < places[seat])
        for seat in range(len(places))
    ]


def match_is_rated(match: Match) -> bool:
    """Ranked matches and tournament tables' matches that ended with a result (not aborted), people only."""
    if match.status != Match.Status.FINISHED or match.ending not in RATED_ENDINGS:
        return False
    if not (match.ranked or match.table.tournament):
        return False
    players = match.players or []
    if len(players) < 2 or not isinstance(match.result, dict) or len(match.result.get("places") or []) != len(players):
        return False
    return all(p.get("user_id") and not p.get("bot") for p in players)


def _won(match: Match, seat: int, place: int, left: bool) -> bool:
    """Whether a seat that stayed won, as its game counts a win (gin: the match; Rommé: the list, a shared
    first place included)."""
    if left:
        return False
    assert match.result is not None  # a rated match has its result (match_is_rated)
    return registry.get(match.game).won(match.result, seat, place)


def match_rate(*, match_id: int) -> bool:
    """Rate one ended match if it is rated and not rated yet. True if this call rated it."""
    with transaction.atomic():
        match = Match.objects.select_related("table").filter(pk=match_id).first()
        if match is None or not match_is_rated(match):
            return False
        if RatingChange.objects.filter(match_id=match.pk).exists():
            return False
        if selectors.match_farming_cap(match) is not None:
            # ratings.md "Farming": a fourth match of the same two people within 24 hours is played unrated
            # (the table said so before its first move).
            return False
        players = sorted(match.players, key=lambda p: p["seat"])
        user_ids = [p["user_id"] for p in players]
        # Created (if new) and locked in one order, by user, so two matches sharing players cannot deadlock.
        Rating.objects.bulk_create(
            [Rating(user_id=uid, game=match.game) for uid in sorted(user_ids)], ignore_conflicts=True
        )
        ratings = {
            r.user_id: r
            for r in Rating.objects.select_for_update().filter(user_id__in=user_ids, game=match.game).order_by("user_id")
        }
        # Checked again under the locks: a racing worker may have rated it while we waited.
        if RatingChange.objects.filter(match_id=match.pk).exists():
            return False
        left_seats = list(match.left_seats or [])
        # match_is_rated: a finished match, with its result and its end time.
        assert match.result is not None and match.finished_at is not None
        places = seat_places(places=match.result["places"], left_seats=left_seats)
        teams = [[MODEL.create_rating([ratings[uid].mu, ratings[uid].sigma], name=str(uid))] for uid in user_ids]
        rated = MODEL.rate(teams, ranks=cast(list[float], places))  # int places: the model reads them as numbers
        when = match.finished_at
        changes = []
        for seat, (uid, team) in enumerate(zip(user_ids, rated, strict=True)):
            rating = ratings[uid]
            after = team[0]
            left = seat in left_seats
            display_after = wertungszahl(after.mu)
            changes.append(
                RatingChange(
                    match=match, user_id=uid, game=match.game, place=places[seat], left=left,
                    mu_before=rating.mu, sigma_before=rating.sigma, display_before=rating.display,
                    mu_after=after.mu, sigma_after=after.sigma, display_after=display_after, created_at=when,
                )
            )
            if display_after != rating.display or rating.reached_at is None:
                rating.reached_at = when
            rating.mu, rating.sigma, rating.display = after.mu, after.sigma, display_after
            rating.matches += 1
            rating.established = rating.matches >= PROVISIONAL_MATCHES
            rating.wins += _won(match, seat, places[seat], left)
            if rating.last_rated_at is None or when > rating.last_rated_at:
                rating.last_rated_at = when
        RatingChange.objects.bulk_create(changes)
        Rating.objects.bulk_update(
            ratings.values(), ["mu", "sigma", "display", "matches", "established", "wins", "last_rated_at", "reached_at"]
        )
    return True


def matches_unrated_before(*, match: Match) -> QuerySet[Match]:
    """Rated matches of ``match``'s players that ended before it and whose announcement was lost (so they
    are not rated yet), oldest first: rated first, they keep ratings in the order matches end."""
    user_ids = [p["user_id"] for p in match.players or [] if p.get("user_id")]
    return (
        Match.objects.filter(
            announced_at__isnull=True, finished_at__isnull=False, finished_at__lt=match.finished_at,
            status=Match.Status.FINISHED, ending__in=RATED_ENDINGS, users__in=user_ids,
        )
        .exclude(Exists(RatingChange.objects.filter(match_id=OuterRef("pk"))))
        .exclude(pk=match.pk)
        .distinct()
        .order_by("finished_at", "pk")
    )


def match_ended_rate(*, match_id: int) -> int:
    """What the end of a match does to ratings: rate the players' earlier unannounced matches (in the order
    they ended), then this one. Returns how many matches were rated now."""
    match = Match.objects.filter(pk=match_id).only("pk", "players", "finished_at").first()
    if match is None or match.finished_at is None:
        return 0
    rated = 0
    for earlier in list(matches_unrated_before(match=match).values_list("pk", flat=True)[:50]):
        rated += match_rate(match_id=earlier)
    return rated + match_rate(match_id=match_id)
