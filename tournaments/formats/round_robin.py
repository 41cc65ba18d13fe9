"""Round robin (gin): everyone meets everyone once, by the circle method."""

from __future__ import annotations

from typing import Any, cast

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games import glossary
from tournaments import pairing
from tournaments.formats.base import PairedFormat, Rating, Seating

#: The most players a round robin takes (spec/tournaments.md: n ≤ 10).
MAX_ROUND_ROBIN = 10


class RoundRobinFormat(PairedFormat):
    """n − 1 rounds (n even) or n rounds with one bye each (n odd). Standings: match points, then margins,
    then the match between the tied players. A removed player's later matches are walkovers (byes) for
    their opponents.

    A void match is a loss for both (see :class:`PairedFormat`): the schedule is fixed, so it is not
    replayed; neither gets the win's points."""

    name = "round_robin"
    label = gettext_lazy("Jeder gegen jeden")
    max_players = MAX_ROUND_ROBIN

    @classmethod
    def check_settings(cls, s: dict[str, Any]) -> None:
        super().check_settings(s)
        # No limit given is the format's own: more than ten is refused, never cut silently.
        if s["max_players"] is None:
            s["max_players"] = MAX_ROUND_ROBIN

    def stage_count(self, players: int | None = None) -> int:
        if players is None:
            players = len(self.participants())
        return players - 1 if players % 2 == 0 else players

    def seating(self, number: int, rating: Rating) -> Seating:
        schedule = cast(list[list[tuple[int, int | None]]],
                        pairing.round_robin_rounds([e.user_id for e in self.participants()]))
        removed = self.removed()
        seats: Seating = []
        for a, b in schedule[number - 1]:
            if a in removed and (b is None or b in removed):
                continue
            seats.append([b, None] if a in removed else [a, None] if b in removed or b is None else [a, b])
        return seats

    def description(self) -> str:
        return _("Jeder gegen jeden")

    def crosstable(self, standings: list[dict], names: dict[int, str]) -> dict:
        """Rows and columns in the order of the standings; a cell is the row player's result against the column
        player ("+13" won by 13, "−5" lost by 5; ``None`` not played yet), the diagonal is ``self``."""
        order = [row["user_id"] for row in standings]
        rows = []
        for row in standings:
            met = {e["opponent"]: e for e in row["stages"] if e and e.get("opponent")}
            cells = []
            for other in order:
                entry = met.get(other)
                if other == row["user_id"]:
                    cells.append({"self": True, "text": "×", "won": None})
                elif entry is None:
                    cells.append({"self": False, "text": "", "won": None})
                else:
                    margin = entry["margin"] if entry["won"] else -entry["margin"]
                    cells.append({"self": False, "text": glossary.signed(margin), "won": entry["won"]})
            rows.append({"place": row["place"], "name": names.get(row["user_id"], "?"), "cells": cells})
        return {"columns": [names.get(u, "?") for u in order], "rows": rows}
