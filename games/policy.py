"""What a table allows besides play (chat, computer players, a rematch), decided here and nowhere else:
services enforce it, presenters and pages show it."""

from __future__ import annotations

from dataclasses import dataclass

from games import engines
from games.models import Table


@dataclass(frozen=True)
class TablePolicy:
    chat: bool
    bots: bool
    rematch: bool


def table_policy(table: Table) -> TablePolicy:
    """Tournament tables: no chat, no computer players, no rematch. Ranked tables: people only. Masters
    scoring is tournament play, so its tables have no chat either (romme.md), as at a club's tournament
    evening."""
    masters = engines.masters_scoring(table.game, table.options)
    return TablePolicy(
        chat=not (table.tournament or masters),
        bots=not (table.tournament or table.ranked),
        rematch=not table.tournament,
    )
