"""What a table allows besides play (chat, computer players, a rematch, calling a match off), decided here
and nowhere else: services enforce it, presenters and pages show it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from games import registry
from games.models import Table


@dataclass(frozen=True)
class TablePolicy:
    chat: bool
    bots: bool
    rematch: bool
    # A player may call the match off before its first move (tournament tables: never, tournaments.md).
    abort: bool


def table_policy(table: Table) -> TablePolicy:
    """Tournament tables: no chat, no computer players, no rematch, no abort (whoever does not play is
    handled by the turn timer, the timeout rules and the forfeit rule; only staff end such a table early).
    Ranked tables: people only. Masters scoring is tournament play, so its tables have no chat either
    (romme.md), as at a club's tournament evening."""
    masters = registry.get(table.game).masters_scoring(table.options)
    return TablePolicy(
        chat=not (table.tournament or masters),
        bots=not (table.tournament or table.ranked),
        rematch=not table.tournament,
        abort=not table.tournament,
    )


#: What a higher layer adds to the refusal of an abort at a tournament table (the tournament's own rules,
#: e.g. its forfeit time): ``note(table) -> str | None``, registered at start-up (``AppConfig.ready``).
ABORT_REFUSAL_NOTES: list[Callable[[Table], str | None]] = []


def abort_refusal_note_add(note: Callable[[Table], str | None]) -> None:
    if note not in ABORT_REFUSAL_NOTES:
        ABORT_REFUSAL_NOTES.append(note)


def abort_refusal(table: Table, *, timeouts_to_leave: int) -> str:
    """Why a player cannot call off the match at ``table`` and what happens if they do not play."""
    seconds = (table.options or {}).get("turn_seconds")
    turn = f"nach {seconds} Sekunden Zugzeit" if isinstance(seconds, int) else "nach Ablauf der Zugzeit"
    parts = [
        "Eine Turnierpartie kann nicht abgebrochen werden.",
        f"Wer nicht spielt: {turn} zieht der Server für dich; nach {timeouts_to_leave} Zeitüberschreitungen "
        "in Folge hast du die Partie verlassen und sie zählt als verloren.",
    ]
    for note in ABORT_REFUSAL_NOTES:
        extra = note(table)
        if extra:
            parts.append(extra)
    parts.append("Nur die Turnierleitung kann einen Turniertisch vorzeitig beenden.")
    return " ".join(parts)
