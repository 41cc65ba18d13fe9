"""Reads for the pages about played matches: one match's page (score sheet, rating changes, rounds and their
deals), its record, a player's rating panels with the game's own statistics, and head-to-head.

Read-only, keyword-only functions (selectors). Deals leave the server only for finished matches, and a match
at a private table only for its players; everything else here reads only what any profile shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db.models import Count, IntegerField, OuterRef, Q, Subquery
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.models import Profile
from games import registry
from games.models import Match, Round
from ratings.models import PROVISIONAL_MATCHES, Rating, RatingChange

#: Rated matches listed on a profile panel, newest first.
RECENT_MATCHES = 5
#: Matches listed on a head-to-head page, newest first.
HEAD_TO_HEAD_MATCHES = 20


# --- who may see what ---------------------------------------------------------------------------------------


def match_visible(*, match_id, viewer) -> Match | None:
    """The match if ``viewer`` may see its page: finished or aborted (never a running one: its deal is
    secret), and at a private table only for its players. ``None`` looks like no match at all."""
    try:
        match = Match.objects.select_related("table").get(pk=int(match_id))
    except (Match.DoesNotExist, TypeError, ValueError):
        return None
    if match.status == Match.Status.PLAYING or match.finished_at is None:
        return None
    if match.table.private and not _is_player(match, viewer):
        return None
    return match


def _is_player(match: Match, viewer) -> bool:
    if viewer is None or not getattr(viewer, "is_authenticated", False):
        return False
    return any(p.get("user_id") == viewer.pk for p in match.players)


# --- names --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Player:
    """A seat of a match as pages show it: the public name now (a deleted account has none), a link."""

    seat: int
    name: str
    user_id: int | None = None
    bot: str = ""
    profile_url: str = ""


def players_of(match: Match) -> list[Player]:
    """The seats of ``match`` with today's public names (one query)."""
    ids = [p["user_id"] for p in match.players if p.get("user_id") is not None]
    users = {u.pk: u for u in get_user_model().objects.filter(pk__in=ids).select_related("profile")}
    out = []
    for p in match.players:
        if p.get("bot"):
            level = _("Experte") if p["bot"] == "expert" else _("Einfach")
            name = _("Computer %(n)s (%(level)s)") % {"n": p["seat"] + 1, "level": level}
            out.append(Player(seat=p["seat"], name=name, bot=p["bot"]))
            continue
        user = users.get(p.get("user_id"))
        if user is None:
            out.append(Player(seat=p["seat"], name="?"))
            continue
        url = reverse("accounts:public", kwargs={"username": user.get_username()}) if user.is_active else ""
        out.append(Player(seat=p["seat"], name=public_name(user), user_id=user.pk, profile_url=url))
    return out


def public_name(user) -> str:
    try:
        return user.profile.public_name
    except Profile.DoesNotExist:  # a user from before profiles existed
        return user.get_username()


# --- the record ---------------------------------------------------------------------------------------------


def finished_rounds(match: Match) -> list[Round]:
    """The match's rounds that have ended (their deals may be shown), in order."""
    return list(match.rounds.filter(finished_at__isnull=False).order_by("number"))


def match_record(*, match: Match, rounds: list[Round] | None = None, players: list[Player] | None = None) -> dict:
    """The records.md record of a finished match: every round played to its end, and (gin) a resignation, so
    that replaying it gives the match's result."""
    rounds = finished_rounds(match) if rounds is None else rounds
    players = players_of(match) if players is None else players
    record = {
        "game": match.game,
        "options": match.options,
        "players": [p.name for p in players],
        "rounds": [r.record for r in rounds if r.record],
    }
    record.update(registry.get(match.game).record_extras(match.result or {}))
    return record


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
    rated_so_far = (
        RatingChange.objects.filter(user=OuterRef("user"), game=OuterRef("game"))
        .filter(Q(created_at__lt=OuterRef("created_at")) | Q(created_at=OuterRef("created_at"), pk__lte=OuterRef("pk")))
        .order_by()
        .values("user")
        .annotate(n=Count("pk"))
        .values("n")
    )
    rows = (
        RatingChange.objects.filter(match_id=match_id)
        .annotate(rated=Subquery(rated_so_far, output_field=IntegerField()))
        .values_list("user_id", "display_before", "display_after", "rated")
    )
    return {
        user_id: Change(user_id=user_id, before=before, after=after, provisional=(rated or 0) < PROVISIONAL_MATCHES)
        for user_id, before, after, rated in rows
    }


# --- the score sheet ----------------------------------------------------------------------------------------


def score_sheet(*, match: Match, rounds: list[Round]) -> dict:
    """The score sheet: a row per round and the totals, as the match's game writes them (gin: the bonuses and
    the final scores; Rommé: the list's totals and places, casual minus points or Masters Wertungspunkte,
    Augen and the list result)."""
    return registry.get(match.game).match_sheet(match.result or {}, rounds, len(match.players))


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
    def provisional(self) -> bool:
        return self.rating is None or self.rating.matches < PROVISIONAL_MATCHES

    @property
    def display_text(self) -> str:
        if self.rating is None:
            return "–"
        return f"{self.rating.display}?" if self.provisional else str(self.rating.display)


def player_panels(*, user, viewer) -> list[GamePanel]:
    """Per game: the rating, its history, recent rated matches and the statistics of ``user``'s finished
    matches (at private tables only on their own page). Four queries, however many matches were played."""
    own = viewer is not None and getattr(viewer, "is_authenticated", False) and viewer.pk == user.pk
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


def _game_statistics(*, user, own: bool, panels: dict[str, GamePanel]) -> None:
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
    played: dict[str, list[tuple]] = {game: [] for game in panels}
    if seat_of:
        rounds = Round.objects.filter(match__in=matches, finished_at__isnull=False).values_list(
            "match_id", "result__result", "result__winner", "result__knocker", "result__deadwood",
            "result__hand_romme",
        )
        for match_id, *facts in rounds:
            seat = seat_of.get(match_id)
            if seat is not None:
                played[game_of[match_id]].append((seat, *facts))
    for game, panel in panels.items():
        panel.stats = registry.get(game).profile_statistics(matches=finished[game], rounds=played[game])


# --- head-to-head -------------------------------------------------------------------------------------------


@dataclass
class HeadToHead:
    a: object
    b: object
    games: list[dict]  # per game: label, played, a_wins, b_wins, others
    matches: list[dict]  # the latest matches they played together: id, game label, finished_at, winner name
    played: int = 0


def head_to_head(*, a, b, viewer) -> HeadToHead:
    """The finished matches ``a`` and ``b`` played at the same table, and who won them; matches at private
    tables count only for a viewer who played them (three queries)."""
    together = Match.objects.filter(status=Match.Status.FINISHED, users=a).filter(users=b)
    viewer_id = viewer.pk if viewer is not None and getattr(viewer, "is_authenticated", False) else None
    if viewer_id not in (a.pk, b.pk):
        together = together.filter(table__private=False)
    per_game = {
        row["game"]: row
        for row in together.order_by().values("game").annotate(
            played=Count("pk", distinct=True),
            a_wins=Count("pk", filter=Q(winner=a), distinct=True),
            b_wins=Count("pk", filter=Q(winner=b), distinct=True),
        )
    }
    games = []
    for entry in registry.entries():
        row = per_game.get(entry.name)
        if row:
            games.append({"game": entry.name, "label": entry.label, "played": row["played"], "a_wins": row["a_wins"],
                          "b_wins": row["b_wins"], "others": row["played"] - row["a_wins"] - row["b_wins"]})
    names = {a.pk: public_name(a), b.pk: public_name(b)}
    recent = []
    for match_id, game, finished_at, winner_id, players in together.order_by("-finished_at", "-pk").values_list(
        "pk", "game", "finished_at", "winner_id", "players"
    )[:HEAD_TO_HEAD_MATCHES]:
        # Someone else's win is shown as such, without a name: only the two compared are named here.
        winner = names.get(winner_id, "")
        recent.append({"match_id": match_id, "label": registry.get(game).label, "finished_at": finished_at,
                       "winner_id": winner_id, "winner": winner, "seats": len(players)})
    return HeadToHead(a=a, b=b, games=games, matches=recent, played=sum(g["played"] for g in games))
