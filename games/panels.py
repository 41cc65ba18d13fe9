"""The hook through which higher apps add to games' match page, table page and exported records without games importing
them (DESIGN.md "Seams"): ratings registers the rating changes, tournaments the tournament a match belongs to,
each from its ``AppConfig.ready``. Games asks for whatever is registered in a slot and shows it.

A slot is one of the names below; a panel is a keyword-only function of the match (and, where said, its
players). It returns ``None`` (or an empty list) when it has nothing to add to that match.

>>> def venue(*, match, players):
...     return {"venue": "Kneipe"}
>>> register(RECORD, venue)
>>> venue in _panels[RECORD]
True
>>> unregister(RECORD, venue)
>>> venue in _panels[RECORD]
False
>>> register("sidebar", venue)
Traceback (most recent call last):
...
ValueError: unknown panel slot 'sidebar' (known: match_seats, head_to_head, match_head, table_head, record, record_many, analysis_held)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: Columns of the match page's seat table, cells by seat: ``fn(*, match, players) -> list[Column] | None``.
MATCH_SEATS = "match_seats"
#: Columns of the head-to-head page's table of games, cells by game: ``fn(*, a, b, games) -> list[Column] | None``.
HEAD_TO_HEAD = "head_to_head"
#: Links under the match page's heading: ``fn(*, match) -> list[HeadLink] | None``.
MATCH_HEAD = "match_head"
#: Lines under the table page's title (e.g. the tournament a table belongs to): ``fn(*, table) -> list[HeadLink] | None``.
TABLE_HEAD = "table_head"
#: Top-level fields of the exported record (records.md): ``fn(*, match, players) -> dict | None``.
#: They are signed with the rest; a panel may not replace a field games writes.
RECORD = "record"
#: The same fields for many matches at once (an export's chunk, in one query rather than one a match), by match
#: id: ``fn(*, matches, players) -> dict[int, dict]`` (``players`` by match id). A ``RECORD`` panel registers
#: its counterpart here too; ``games.reads.records.records_export`` asks this slot, ``record_export`` the other.
RECORD_MANY = "record_many"
#: Why the match page holds a finished match's analysis back for now (e.g. its tournament stage still runs):
#: ``fn(*, match) -> str | None``, the reason in the page's language; None: no reason.
ANALYSIS_HELD = "analysis_held"

SLOTS = (MATCH_SEATS, HEAD_TO_HEAD, MATCH_HEAD, TABLE_HEAD, RECORD, RECORD_MANY, ANALYSIS_HELD)

Panel = Callable[..., Any]

_panels: dict[str, list[Panel]] = {slot: [] for slot in SLOTS}


@dataclass(frozen=True)
class Cell:
    """One cell of a column: its text and extra CSS classes (e.g. ``"mp-delta is-up"``)."""

    text: str
    css: str = ""


@dataclass(frozen=True)
class Column:
    """A column of a page's table: ``cells`` by row (a seat, or a game); ``key`` names its cells
    (``data-role``); a row without a cell shows "–"; ``note`` is one line under the table (e.g. what a "?"
    means), empty for none."""

    key: str
    header: str
    cells: dict[Any, Cell] = field(default_factory=dict)
    note: str = ""


@dataclass(frozen=True)
class HeadLink:
    """A line under the match page's (or the table page's) heading: its text, and where it links (empty: no
    link)."""

    text: str
    url: str = ""


def _slot(slot: str) -> list[Panel]:
    if slot not in _panels:
        raise ValueError(f"unknown panel slot {slot!r} (known: {', '.join(SLOTS)})")
    return _panels[slot]


def register(slot: str, panel: Panel) -> None:
    """Add ``panel`` to ``slot`` (once: registering the same function again changes nothing)."""
    panels = _slot(slot)
    if panel not in panels:
        panels.append(panel)


def unregister(slot: str, panel: Panel) -> None:
    """Take ``panel`` out of ``slot`` (a test's own panel, when the test ends)."""
    panels = _slot(slot)
    if panel in panels:
        panels.remove(panel)


def collect(slot: str, **kwargs: Any) -> list[Any]:
    """What every panel of ``slot`` gives for ``kwargs``, in the order they registered; nothing for ``None``."""
    out = []
    for panel in _slot(slot):
        result = panel(**kwargs)
        if result:
            out.append(result)
    return out
