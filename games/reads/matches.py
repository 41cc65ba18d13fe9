"""Reads for the pages about played matches: who may see a match, its players, its rounds and their deals
(the record is built by ``games.reads.records``), the score sheet, and head-to-head. What other apps add to
the match page (rating changes, the tournament) comes through ``games.panels``.

Read-only, keyword-only functions (selectors). Deals leave the server only for finished matches, and a match
at a private table only for its players; everything else here reads only what any profile shows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db.models import Count, Q
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.models import Profile
from accounts.protocols import Person
from games import registry
from games.models import Match, Move, Round, Table
from games.reads import selectors as games_selectors

#: Matches listed on a head-to-head page, newest first.
HEAD_TO_HEAD_MATCHES = 20


# --- who may see what ---------------------------------------------------------------------------------------


def match_visible(*, match_id: int | str, viewer: Person | None) -> Match | None:
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


def table_last_match(*, table_id: int | str, viewer: Person | None) -> Match | None:
    """The last match that ended at a table, if ``viewer`` may see its page (else ``None``)."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        return None
    match = (
        table.matches.exclude(status=Match.Status.PLAYING).filter(finished_at__isnull=False)
        .order_by("-number").first()
    )
    if match is None:
        return None
    return match_visible(match_id=match.pk, viewer=viewer)


def table_match(*, table: Table, number: int) -> Match | None:
    """The match of that number at ``table`` (an earlier one, before a rematch), or ``None``."""
    return table.matches.filter(number=number).first()


def _is_player(match: Match, viewer: Person | None) -> bool:
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


def forfeited_seats(*, matches: Iterable[Match]) -> dict[int, int]:
    """The seat that lost each of ``matches`` without playing, by match id (tournaments.md "Forfeit": a
    tournament's forfeit rule resigns for it, or its turn ran out three times): it left the match without one
    move of its own while the server had to move for it. A match that was played, or resigned by someone who
    had played, has none. One query for them all."""
    left = {m.pk: m.left_seats for m in matches
            if m.left_seats and m.ending in (Match.Ending.RESIGNED, Match.Ending.TIMEOUTS)}
    if not left:
        return {}
    moved: dict[tuple[int, int | None], set[str]] = {}
    for match_id, seat, by in Move.objects.filter(match_id__in=left).values_list("match_id", "seat", "by").distinct():
        moved.setdefault((match_id, seat), set()).add(by)
    found = {}
    for match_id, seats in left.items():
        for seat in seats:
            made = moved.get((match_id, seat), set())
            if Move.By.PLAYER not in made and Move.By.TIMEOUT in made:
                found[match_id] = seat
                break
    return found


def forfeited_seat(*, match: Match) -> int | None:
    """The seat that lost ``match`` by forfeit (``forfeited_seats``), or None."""
    return forfeited_seats(matches=[match]).get(match.pk)


def players_of(match: Match) -> list[Player]:
    """The seats of ``match`` with today's public names (one query)."""
    return players_of_many([match])[match.pk]


def players_of_many(matches: list[Match]) -> dict[int, list[Player]]:
    """``players_of`` of many matches in one query, by match id."""
    ids = {p["user_id"] for m in matches for p in m.players if p.get("user_id") is not None}
    users = {u.pk: u for u in get_user_model().objects.filter(pk__in=ids).select_related("profile")} if ids else {}
    return {m.pk: _players(m, users) for m in matches}


def _players(match: Match, users: dict[int, User]) -> list[Player]:
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


def active_user(*, username: str) -> User | None:
    """The active user of that user name (with the profile), or ``None``."""
    return get_user_model().objects.filter(username=username, is_active=True).select_related("profile").first()


def public_name(user: User) -> str:
    try:
        return user.profile.public_name
    except Profile.DoesNotExist:  # a user from before profiles existed
        return user.get_username()


# --- the record ---------------------------------------------------------------------------------------------


def finished_rounds(match: Match) -> list[Round]:
    """The match's rounds that have ended and whose deals may be shown, in order: at a same-deals table not
    those that another table dealt the same cards is still playing (``games.reads.selectors.deal_rounds_disclosed``)."""
    rounds = list(match.rounds.filter(finished_at__isnull=False).order_by("number"))
    shown = games_selectors.deal_rounds_disclosed(match=match, rounds=rounds)
    return [r for r in rounds if r.number in shown]


def finished_rounds_for_records(matches: list[Match]) -> dict[int, list[Round]]:
    """``finished_rounds`` of many matches (with their tables) in one query, by match id, with what a record
    needs of a round: not its deal nor its result (``deal_rounds_disclosed`` asks no more for a table that
    does not share its deals)."""
    by_match: dict[int, list[Round]] = {m.pk: [] for m in matches}
    rounds = (Round.objects.filter(match_id__in=list(by_match), finished_at__isnull=False)
              .defer("deal", "result").order_by("match_id", "number"))
    for rnd in rounds:
        by_match[rnd.match_id].append(rnd)
    out = {}
    for match in matches:
        shown = games_selectors.deal_rounds_disclosed(match=match, rounds=by_match[match.pk])
        out[match.pk] = [r for r in by_match[match.pk] if r.number in shown]
    return out


# --- the score sheet ----------------------------------------------------------------------------------------


def score_sheet(*, match: Match, rounds: list[Round]) -> dict:
    """The score sheet: a row per round and the totals, as the match's game writes them (gin: the bonuses and
    the final scores; Rommé: the list's totals and places, casual minus points or Masters Wertungspunkte,
    Augen and the list result)."""
    return registry.get(match.game).match_sheet(match.result or {}, rounds, len(match.players))


# --- head-to-head -------------------------------------------------------------------------------------------


@dataclass
class HeadToHead:
    a: User
    b: User
    games: list[dict]  # per game: label, played, a_wins, b_wins, others
    matches: list[dict]  # the latest matches they played together: id, game label, finished_at, winner name
    played: int = 0


def head_to_head(*, a: User, b: User, viewer: Person | None) -> HeadToHead:
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
