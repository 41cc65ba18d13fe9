"""Reads for what ratings shows on other apps' pages: one match's rating changes as the match page shows them
("+14" beside the new Wertungszahl) and a player's rating panels with the game's own statistics (profiles).

Read-only, keyword-only functions (selectors); a fixed number of queries each.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth.models import User
from django.db.models import Count, IntegerField, OuterRef, Q, Subquery

from accounts.protocols import Person
from games import registry
from games.models import Match, Round
from ratings.models import PROVISIONAL_MATCHES, Rating, RatingChange

#: Rated matches listed on a profile panel, newest first.
RECENT_MATCHES = 5


# --- rating changes -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """One seat's rating change in one match, as "+14" beside the new Wertungszahl."""

    user_id: int
    before: int
    after: int
    provisional: bool  # the player had fewer than 10 rated matches after this one

    @property
    def delta(self) -> int:
        return self.after - self.before

    @property
    def delta_text(self) -> str:
        if self.delta > 0:
            return f"+{self.delta}"
        if self.delta < 0:
            return f"\u2212{-self.delta}"  # a real minus sign
        return "±0"

    @property
    def after_text(self) -> str:
        return f"{self.after}?" if self.provisional else str(self.after)


def match_changes(*, match_id: int) -> dict[int, Change]:
    """Each rated player's change in the match, by user id (one query; empty for an unrated match)."""
    return matches_changes(match_ids=[match_id]).get(match_id, {})


def matches_changes(*, match_ids: list[int]) -> dict[int, dict[int, Change]]:
    """``match_changes`` of many matches in one query: by match id, then by user id (a match nobody was
    rated in is missing)."""
    rated_so_far = (
        RatingChange.objects.filter(user=OuterRef("user"), game=OuterRef("game"))
        .filter(Q(created_at__lt=OuterRef("created_at")) | Q(created_at=OuterRef("created_at"), pk__lte=OuterRef("pk")))
        .order_by()
        .values("user")
        .annotate(n=Count("pk"))
        .values("n")
    )
    rows = (
        RatingChange.objects.filter(match_id__in=match_ids)
        .annotate(rated=Subquery(rated_so_far, output_field=IntegerField()))
        .values_list("match_id", "user_id", "display_before", "display_after", "rated")
    )
    out: dict[int, dict[int, Change]] = {}
    for match_id, user_id, before, after, rated in rows:
        out.setdefault(match_id, {})[user_id] = Change(
            user_id=user_id, before=before, after=after, provisional=(rated or 0) < PROVISIONAL_MATCHES)
    return out


# --- a player's ratings and statistics ----------------------------------------------------------------------


@dataclass
class RecentMatch:
    match_id: int
    at: datetime
    change: Change


@dataclass
class GamePanel:
    """One game on a profile: the Wertungszahl and its history, and the game's own statistics."""

    game: str
    label: str
    rating: Rating | None = None
    history: list[int] = field(default_factory=list)  # Wertungszahl before the first rated match, then after each
    recent: list[RecentMatch] = field(default_factory=list)
    matches: int = 0  # finished matches of this game (rated or not) the statistics cover
    stats: dict = field(default_factory=dict)

    @property
    def wins_label(self) -> str:
        return str(registry.get(self.game).profile_wins_label)

    @property
    def facts(self) -> list[tuple[str, str, str]]:
        """The game's own lines (slug, label, value), as its registry entry writes them."""
        return registry.get(self.game).profile_facts(self.stats)

    @property
    def provisional(self) -> bool:
        return self.rating is None or self.rating.matches < PROVISIONAL_MATCHES

    @property
    def display_text(self) -> str:
        if self.rating is None:
            return "–"
        return f"{self.rating.display}?" if self.provisional else str(self.rating.display)


def player_panels(*, user: User, viewer: Person | None) -> list[GamePanel]:
    """Per game: the rating, its history, recent rated matches and the statistics of ``user``'s finished
    matches (at private tables only on their own page). Four queries, however many matches were played."""
    own = bool(viewer is not None and getattr(viewer, "is_authenticated", False) and viewer.pk == user.pk)
    panels = {entry.name: GamePanel(game=entry.name, label=entry.label) for entry in registry.entries()}
    for rating in Rating.objects.filter(user=user):
        if rating.game in panels:
            panels[rating.game].rating = rating
    changes = (
        RatingChange.objects.filter(user=user)
        .order_by("created_at", "pk")
        .values_list("game", "match_id", "display_before", "display_after", "created_at")
    )
    counts: dict[str, int] = {}
    for game, match_id, before, after, at in changes:
        panel = panels.get(game)
        if panel is None:
            continue
        if not panel.history:
            panel.history.append(before)
        panel.history.append(after)
        counts[game] = counts.get(game, 0) + 1
        change = Change(user_id=user.pk, before=before, after=after, provisional=counts[game] < PROVISIONAL_MATCHES)
        panel.recent.append(RecentMatch(match_id=match_id, at=at, change=change))
    for panel in panels.values():
        panel.recent = panel.recent[-RECENT_MATCHES:][::-1]
    _game_statistics(user=user, own=own, panels=panels)
    return list(panels.values())


def _game_statistics(*, user: User, own: bool, panels: dict[str, GamePanel]) -> None:
    matches = Match.objects.filter(users=user, status=Match.Status.FINISHED)
    if not own:
        matches = matches.filter(table__private=False)
    seat_of: dict[int, int] = {}
    game_of: dict[int, str] = {}
    finished: dict[str, list[tuple[int, dict]]] = {game: [] for game in panels}
    for match_id, game, players, result in matches.values_list("pk", "game", "players", "result"):
        seat = next((p["seat"] for p in players if p.get("user_id") == user.pk), None)
        if seat is None or game not in panels:
            continue
        seat_of[match_id], game_of[match_id] = seat, game
        panels[game].matches += 1
        finished[game].append((seat, result or {}))
    played: dict[str, list[tuple[int, dict]]] = {game: [] for game in panels}
    if seat_of:
        # Each game names the fields of a stored round result its statistics read: one query reads them all.
        wanted = {game: registry.get(game).profile_round_facts for game in panels}
        fields = sorted({name for names in wanted.values() for name in names})
        rounds = Round.objects.filter(match__in=matches, finished_at__isnull=False).values_list(
            "match_id", *(f"result__{name}" for name in fields))
        for match_id, *values in rounds:
            seat = seat_of.get(match_id)
            if seat is not None:
                game = game_of[match_id]
                facts = dict(zip(fields, values, strict=True))
                played[game].append((seat, {name: facts[name] for name in wanted[game]}))
    for game, panel in panels.items():
        panel.stats = registry.get(game).profile_statistics(matches=finished[game], rounds=played[game])


