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
from games import selectors as games_selectors
from games.models import Game, Match, Round
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
    """The match's rounds that have ended and whose deals may be shown, in order: at a same-deals table not
    those that another table dealt the same cards is still playing (``games.selectors.deal_rounds_disclosed``)."""
    rounds = list(match.rounds.filter(finished_at__isnull=False).order_by("number"))
    shown = games_selectors.deal_rounds_disclosed(match=match, rounds=rounds)
    return [r for r in rounds if r.number in shown]


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
    resigned = (match.result or {}).get("resigned")
    if match.game == Game.GIN and isinstance(resigned, int):
        record["resigned"] = resigned
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


def _result_label(game: str, result: str | None, hand_romme: bool = False) -> str:
    labels = {
        "knock": _("Klopfen"),
        "undercut": _("Unterschnitt"),
        "gin": _("Gin"),
        "big_gin": _("Big Gin"),
        "dead": _("tote Runde"),
        "abandoned": _("abgebrochen"),
        "romme": _("Rommé"),
        "hand_romme": _("Hand-Rommé"),
    }
    if game == Game.ROMME and hand_romme:
        return labels["hand_romme"]
    return labels.get(result or "", result or "–")


@dataclass
class SheetRow:
    label: str
    cells: list = field(default_factory=list)
    note: str = ""
    winner: int | None = None
    kind: str = "round"  # round | total | bonus | final | place


def score_sheet(*, match: Match, rounds: list[Round]) -> dict:
    """The score sheet: a row per round and the totals, the bonuses and the final scores (gin) or the list's
    totals and places (Rommé casual: minus points; Masters: Wertungspunkte, Augen and the list result)."""
    result = match.result or {}
    seats = len(match.players)
    if match.game == Game.GIN:
        return _gin_sheet(result, rounds)
    return _romme_sheet(result, rounds, seats)


def _gin_sheet(result: dict, rounds: list[Round]) -> dict:
    rows = []
    for rnd in rounds:
        r = rnd.result or {}
        winner = r.get("winner")
        cells: list = ["", ""]
        if isinstance(winner, int) and r.get("points"):
            cells[winner] = r["points"]
        note = ""
        deadwood = r.get("deadwood")
        if isinstance(deadwood, list) and len(deadwood) == 2:
            note = _("Deadwood %(a)s : %(b)s") % {"a": deadwood[0], "b": deadwood[1]}
        rows.append(SheetRow(label=str(rnd.number), cells=cells, note=_result_label("gin", r.get("result")) +
                             (f" · {note}" if note else ""), winner=winner))
    totals = result.get("totals") or [0, 0]
    final = result.get("final") or totals
    sums = [
        SheetRow(label=_("Punkte"), cells=list(totals), kind="total"),
        SheetRow(label=_("Gewonnene Runden"), cells=list(result.get("boxes") or [0, 0]), kind="total"),
    ]
    columns = result.get("columns")
    if columns:  # Hollywood: three games at once, each with its own bonuses
        for index, column in enumerate(columns, start=1):
            sums.append(SheetRow(label=_("Spalte %(n)s") % {"n": index}, cells=list(column.get("final") or []),
                                 kind="bonus", winner=column.get("winner")))
    else:
        bonuses = [f - t for f, t in zip(final, totals, strict=False)]
        if any(bonuses):
            sums.append(SheetRow(label=_("Boni (Spiel und Runden)"), cells=bonuses, kind="bonus"))
    sums.append(SheetRow(label=_("Endstand"), cells=list(final), kind="final", winner=result.get("winner")))
    return {"mode": "gin", "rounds": rows, "sums": sums}


def _romme_sheet(result: dict, rounds: list[Round], seats: int) -> dict:
    masters = bool(result.get("tournament"))
    rows = []
    for rnd in rounds:
        r = rnd.result or {}
        winner = r.get("winner")
        if masters:
            wp = r.get("wertungspunkte") or [""] * seats
            augen = r.get("augen") if winner is not None else None
            augen = augen or [0] * seats
            cells = [f"{w} WP · {a}" for w, a in zip(wp, augen, strict=False)]
        else:
            cells = list(r.get("minus") or [""] * seats)
        rows.append(SheetRow(label=str(rnd.number), cells=cells, winner=winner,
                             note=_result_label("romme", r.get("result"), bool(r.get("hand_romme")))))
    sums = []
    if masters:
        sums += [
            SheetRow(label=_("Wertungspunkte"), cells=list(result.get("wertungspunkte") or []), kind="total"),
            SheetRow(label=_("Augen"), cells=list(result.get("augen") or []), kind="total"),
            SheetRow(label=_("Listenergebnis"), cells=list(result.get("final") or []), kind="final",
                     winner=result.get("winner")),
        ]
    else:
        sums.append(SheetRow(label=_("Minuspunkte"), cells=list(result.get("minus") or result.get("final") or []),
                             kind="final", winner=result.get("winner")))
    sums.append(SheetRow(label=_("Gewonnene Runden"), cells=list(result.get("rounds_won") or []), kind="total"))
    sums.append(SheetRow(label=_("Platz"), cells=list(result.get("places") or []), kind="place"))
    return {"mode": "masters" if masters else "casual", "rounds": rows, "sums": sums}


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
    panels = {game: GamePanel(game=game, label=label) for game, label in Game.choices}
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
    masters_wp: list[int] = []
    masters_result: list[int] = []
    for match_id, game, players, result in matches.values_list("pk", "game", "players", "result"):
        seat = next((p["seat"] for p in players if p.get("user_id") == user.pk), None)
        if seat is None or game not in panels:
            continue
        seat_of[match_id], game_of[match_id] = seat, game
        panels[game].matches += 1
        result = result or {}
        if game == Game.ROMME and result.get("tournament"):
            wp, final = result.get("wertungspunkte") or [], result.get("final") or []
            if seat < len(wp) and seat < len(final):
                masters_wp.append(wp[seat])
                masters_result.append(final[seat])
    gin = {"gins": 0, "undercuts_given": 0, "undercuts_suffered": 0, "knocks": 0, "deadwood_sum": 0}
    romme = {"hand_rommes": 0, "rounds_won": 0}
    if seat_of:
        rounds = Round.objects.filter(match__in=matches, finished_at__isnull=False).values_list(
            "match_id", "result__result", "result__winner", "result__knocker", "result__deadwood",
            "result__hand_romme",
        )
        for match_id, kind, winner, knocker, deadwood, hand_romme in rounds:
            seat = seat_of.get(match_id)
            if seat is None:
                continue
            if game_of[match_id] == Game.GIN:
                if kind in ("gin", "big_gin") and winner == seat:
                    gin["gins"] += 1
                if kind == "undercut":
                    if winner == seat:
                        gin["undercuts_given"] += 1
                    elif knocker == seat:
                        gin["undercuts_suffered"] += 1
                # Gin is a knock with no deadwood, so it counts towards the average too.
                if knocker == seat and isinstance(deadwood, list) and seat < len(deadwood):
                    gin["knocks"] += 1
                    gin["deadwood_sum"] += deadwood[seat]
            else:
                if winner == seat:
                    romme["rounds_won"] += 1
                    if hand_romme:
                        romme["hand_rommes"] += 1
    gin["deadwood_average"] = gin["deadwood_sum"] / gin["knocks"] if gin["knocks"] else None
    romme["masters_lists"] = len(masters_wp)
    romme["masters_wp_average"] = sum(masters_wp) / len(masters_wp) if masters_wp else None
    romme["masters_result_average"] = sum(masters_result) / len(masters_result) if masters_result else None
    panels[Game.GIN].stats = gin
    panels[Game.ROMME].stats = romme


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
    for game, label in Game.choices:
        row = per_game.get(game)
        if row:
            games.append({"game": game, "label": label, "played": row["played"], "a_wins": row["a_wins"],
                          "b_wins": row["b_wins"], "others": row["played"] - row["a_wins"] - row["b_wins"]})
    names = {a.pk: public_name(a), b.pk: public_name(b)}
    recent = []
    for match_id, game, finished_at, winner_id, players in together.order_by("-finished_at", "-pk").values_list(
        "pk", "game", "finished_at", "winner_id", "players"
    )[:HEAD_TO_HEAD_MATCHES]:
        # Someone else's win is shown as such, without a name: only the two compared are named here.
        winner = names.get(winner_id, "")
        recent.append({"match_id": match_id, "label": Game(game).label, "finished_at": finished_at,
                       "winner_id": winner_id, "winner": winner, "seats": len(players)})
    return HeadToHead(a=a, b=b, games=games, matches=recent, played=sum(g["played"] for g in games))
