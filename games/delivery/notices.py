"""Notices to a person on every page they have open: a table is ready for them, their tournament started,
paused, went on or ended, a stage's break is over. The one place that sends them (after commit, through the
channel layer's per-person group, so they reach the person on any daphne); ``games.web.notice_consumers`` is the
socket that passes them on, and ``games.reads.selectors.notices_pending`` what a (re)connecting socket is told.

A notice names a kind and carries only public facts (the table's link, the game, the tournament's name and
stage): no cards, no state. The words are the page's (``games/static/games/notices.js`` with the catalogue
of ``games.templatetags.notice_tags``), so each person reads them in their own language.

Higher apps call :func:`notify` (the pool when it seats people, tournaments when they start, seat, pause
and finish) and may tell games which tournament a table belongs to (:func:`table_tournament_add`), for the
notices sent on reconnect and the lobby's table list; games imports neither of them.

>>> frame = notice_frame("tournament_paused", {"tournament": "Abendturnier", "tournament_url": "/turniere/3/"})
>>> frame["type"], frame["kind"], frame["tournament"]
('notice', 'tournament_paused', 'Abendturnier')
>>> notice_frame("hand_dealt", {})
Traceback (most recent call last):
...
ValueError: unknown notice kind 'hand_dealt' (known: table_ready, tournament_started, stage_started, tournament_paused, tournament_resumed, tournament_finished, tournament_cancelled, table_finished)
>>> notice_frame("table_ready", {"table_id": 4, "hand": ["AS"]})
Traceback (most recent call last):
...
ValueError: a notice carries no 'hand' (allowed: game, pending, stage, stage_label, table_id, tournament, tournament_url, url)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from django.urls import reverse

from games.delivery import events

if TYPE_CHECKING:
    from games.models import Table

#: What a notice can say. ``table_ready``: a seat is waiting for the person (pool or tournament);
#: ``stage_started``: a stage began (after its break) without a table for them (a bye); ``table_finished``: the
#: match at a table the site seated them at is over, so its ``table_ready`` banner is withdrawn (no banner).
KINDS = (
    "table_ready",
    "tournament_started",
    "stage_started",
    "tournament_paused",
    "tournament_resumed",
    "tournament_finished",
    "tournament_cancelled",
    "table_finished",
)

#: The only facts a notice may carry: links and names anyone may see, never a card or a game state.
#: ``stage_label``: the stage in its format's own words in each of the site's languages ({"de": "Serie 2",
#: "en": "Series 2"}), as the words of the page are its own: the page shows the one of its language.
FIELDS = frozenset({"table_id", "url", "game", "tournament", "tournament_url", "stage", "stage_label", "pending"})


def user_group(user_id: int) -> str:
    """Every notice socket of one person (one per open tab, on any daphne)."""
    return f"notices.user.{int(user_id)}"


def notice_frame(kind: str, payload: dict) -> dict:
    """The frame a notice socket sends: ``{"type": "notice", "kind": ..., **payload}``. Refuses an unknown
    kind or a field that is not one of :data:`FIELDS`."""
    if kind not in KINDS:
        raise ValueError(f"unknown notice kind {kind!r} (known: {', '.join(KINDS)})")
    for key in payload:
        if key not in FIELDS:
            raise ValueError(f"a notice carries no {key!r} (allowed: {', '.join(sorted(FIELDS))})")
    return {"type": "notice", "kind": kind, **payload}


def once_key(frame: dict) -> str | None:
    """What makes ``frame`` the same notice however often it is sent, or None for a notice that may repeat.

    A table is ready for a person once; the notice socket tells each key once. It is told twice when its
    connect-time read of the pending tables runs after a start has committed: the read finds the new table
    and the start's own notice then arrives on the group the socket joined just before (on Redis the join
    takes a round trip, so the start often falls in between). The key rides beside the frame on the channel
    layer, not in it: the client's frame stays as it is.

    >>> once_key({"type": "notice", "kind": "table_ready", "table_id": 4, "pending": True})
    'table_ready.4'
    >>> once_key({"type": "notice", "kind": "tournament_paused", "tournament": "Abendturnier"}) is None
    True
    """
    if frame["kind"] == "table_ready":
        return f"table_ready.{int(frame['table_id'])}"
    return None


def notice_message(frame: dict) -> dict:
    """The channel-layer message that carries ``frame`` to a notice socket (with its :func:`once_key`)."""
    message = {"type": "notice.frame", "frame": frame}
    key = once_key(frame)
    if key is not None:
        message["once"] = key
    return message


def notify(user_ids: Iterable[int | None], kind: str, payload: dict | None = None) -> None:
    """Tell each of ``user_ids`` (None is skipped: a computer player, a bye) once the current transaction has
    committed; nothing if it rolls back. Outside a transaction it goes out at once."""
    frame = notice_frame(kind, dict(payload or {}))
    recipients = sorted({int(uid) for uid in user_ids if uid is not None})
    if recipients:
        message = notice_message(frame)
        events.send_after_commit([(user_group(uid), message) for uid in recipients])


def table_url(table_id: int) -> str:
    return reverse("games:table", kwargs={"table_id": table_id})


def table_ready_payload(table: Table, *, tournament: dict | None = None) -> dict:
    """The facts of a ``table_ready`` notice for ``table``; ``tournament`` as :func:`table_tournaments` gives it."""
    payload = {"table_id": table.pk, "url": table_url(table.pk), "game": table.game}
    if tournament:
        payload.update({key: tournament[key] for key in ("tournament", "tournament_url", "stage", "stage_label")
                        if key in tournament})
    return payload


def table_ready(user_ids: Iterable[int | None], table: Table, *, tournament: dict | None = None) -> None:
    """Tell the people just seated at ``table`` that it is ready for them (after commit)."""
    notify(user_ids, "table_ready", table_ready_payload(table, tournament=tournament))


def table_finished(table: Table, user_ids: Iterable[int | None]) -> None:
    """The match at ``table`` is over: its players' pages withdraw the ``table_ready`` banner they may still show
    (after commit). Only tables the site seats people at (ranked, tournament) have such a banner."""
    if table.ranked or table.tournament:
        notify(user_ids, "table_finished", {"table_id": table.pk})


# --- which tournament a table belongs to (told by the tournaments app) -----------------------------------

#: ``fn(*, table_ids) -> {table_id: {"tournament": name, "tournament_url": url, "stage": n, "table": n}}``.
TABLE_TOURNAMENT: list[Callable[..., dict]] = []


def table_tournament_add(fn: Callable[..., dict]) -> None:
    """Register a source of tournament facts for tables (once: the same function again changes nothing)."""
    if fn not in TABLE_TOURNAMENT:
        TABLE_TOURNAMENT.append(fn)


def table_tournaments(table_ids: Iterable[int]) -> dict[int, dict]:
    """The tournament facts of each of ``table_ids`` that belongs to one (one query per registered source)."""
    ids = sorted({int(i) for i in table_ids})
    found: dict[int, dict] = {}
    if not ids:
        return found
    for fn in TABLE_TOURNAMENT:
        found.update(fn(table_ids=ids) or {})
    return found
