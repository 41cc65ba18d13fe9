"""What ratings adds to games' match page and exported records, registered at start-up (``RatingsConfig.ready``)
through ``games.panels``: each seat's change ("+14") and new Wertungszahl, both players' Wertungszahl on the
head-to-head page, and in the record each seat's Wertungszahl before and after (records.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _

from games import panels
from ratings import profile_selectors, selectors

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from games.models import Match, Table
    from games.reads.matches import Player


def match_seat_columns(*, match: Match, players: list[Player]) -> list[panels.Column]:
    """The change and the new Wertungszahl beside each rated seat; nothing for an unrated match."""
    changes = profile_selectors.match_changes(match_id=match.pk)
    if not changes:
        return []
    delta: dict[int, panels.Cell] = {}
    rating: dict[int, panels.Cell] = {}
    for player in players:
        change = changes.get(player.user_id) if player.user_id is not None else None
        if change is None:
            continue
        trend = " is-up" if change.delta > 0 else " is-down" if change.delta < 0 else ""
        delta[player.seat] = panels.Cell(text=change.delta_text, css="mp-delta" + trend)
        rating[player.seat] = panels.Cell(text=change.after_text)
    note = ""
    if any(change.provisional for change in changes.values()):
        note = _("Ein „?“ hinter der Wertungszahl: vorläufig, weniger als 10 gewertete Partien.")
    return [
        panels.Column(key="delta", header=_("Änderung"), cells=delta),
        panels.Column(key="rating", header=_("Wertungszahl"), cells=rating, note=note),
    ]


def head_to_head_ratings(*, a: User, b: User, games: list[str]) -> list[panels.Column]:
    """Both players' Wertungszahl in each game they played together ("1514? : 1486")."""
    cells = {}
    for game in games:
        texts = []
        for user in (a, b):
            rating = selectors.rating_of(user=user, game=game)
            texts.append(f"{rating.display}?" if rating.provisional else str(rating.display))
        cells[game] = panels.Cell(text=" : ".join(texts))
    return [panels.Column(key="ratings", header=_("Wertungszahl"), cells=cells)]


def record_ratings(*, match: Match, players: list[Player]) -> dict[str, Any] | None:
    """``{"ratings": [{"before": 1500, "after": 1514}, ...]}`` per seat (``None`` for a seat that was not
    rated, such as a computer player); nothing for an unrated match."""
    return _record_ratings(profile_selectors.match_changes(match_id=match.pk), players)


def record_ratings_many(*, matches: list[Match], players: dict[int, list[Player]]) -> dict[int, dict[str, Any]]:
    """``record_ratings`` of many matches (an export's chunk) in one query, by match id."""
    changes = profile_selectors.matches_changes(match_ids=[m.pk for m in matches])
    out = {}
    for match in matches:
        fields = _record_ratings(changes.get(match.pk, {}), players[match.pk])
        if fields:
            out[match.pk] = fields
    return out


def _record_ratings(changes: dict[int, profile_selectors.Change], players: list[Player]) -> dict[str, Any] | None:
    if not changes:
        return None
    seats = []
    for player in sorted(players, key=lambda p: p.seat):
        change = changes.get(player.user_id) if player.user_id is not None else None
        seats.append(None if change is None else {"before": change.before, "after": change.after})
    return {"ratings": seats}


def farming_note(*, cap: selectors.FarmingCap, names: dict[int, str]) -> str:
    """"Ungewertet: anna und ben haben in den letzten 24 Stunden schon 3 gewertete Partien gegeneinander
    gespielt." (ratings.md "Farming")."""
    a, b = (names.get(uid, "?") for uid in cap.user_ids)
    return _(
        "Ungewertet: %(a)s und %(b)s haben in den letzten 24 Stunden schon %(count)s gewertete Partien "
        "gegeneinander gespielt; diese Partie zählt nicht für die Wertungszahl."
    ) % {"a": a, "b": b, "count": cap.count}


def table_farming(*, table: Table) -> list[panels.HeadLink]:
    """Under the title of a ranked table outside a tournament whose match is (or will be) played unrated
    because two of its people were rated against each other 3 times in 24 hours: before the first move,
    as ratings.md asks. Nothing for other tables (no query for a casual or tournament table)."""
    from games.models import Seat

    if not table.ranked or table.tournament:
        return []
    match = table.current_match
    if match is not None and table.status != table.Status.OPEN:
        cap = selectors.match_farming_cap(match)
        names = {p["user_id"]: p.get("name") or "?" for p in match.players or [] if p.get("user_id")}
        if cap is not None and not all(uid in names and names[uid] != "?" for uid in cap.user_ids):
            names = dict(Seat.objects.filter(table=table, user__isnull=False).values_list("user_id", "user__username"))
    else:
        names = dict(Seat.objects.filter(table=table, user__isnull=False).values_list("user_id", "user__username"))
        cap = selectors.farming_cap(user_ids=list(names))
    if cap is None:
        return []
    return [panels.HeadLink(text=farming_note(cap=cap, names=names), url="")]


def register() -> None:
    panels.register(panels.TABLE_HEAD, table_farming)
    panels.register(panels.MATCH_SEATS, match_seat_columns)
    panels.register(panels.HEAD_TO_HEAD, head_to_head_ratings)
    panels.register(panels.RECORD, record_ratings)
    panels.register(panels.RECORD_MANY, record_ratings_many)
