"""Round robin (gin): everyone meets everyone once, by the circle method."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from tournaments import pairing
from tournaments.formats.base import PairedFormat, Rating, Seating, int_setting

#: The most players a round robin takes (spec/tournaments.md: n ≤ 10).
MAX_ROUND_ROBIN = 10


class RoundRobinFormat(PairedFormat):
    """n − 1 rounds (n even) or n rounds with one bye each (n odd). Standings: match points, then margins,
    then the match between the tied players. A removed player's later matches are walkovers (byes) for
    their opponents.

    A void match is a loss for both (see :class:`PairedFormat`): the schedule is fixed, so it is not
    replayed; neither gets the win's points."""

    name = "round_robin"
    label = "Jeder gegen jeden"

    @classmethod
    def check_settings(cls, s: dict[str, Any]) -> None:
        super().check_settings(s)
        cap = MAX_ROUND_ROBIN if s["max_players"] is None else min(s["max_players"], MAX_ROUND_ROBIN)
        s["max_players"] = int_setting("max_players", cap, 2, MAX_ROUND_ROBIN)

    def stage_count(self, players: int | None = None) -> int:
        if players is None:
            players = len(self.participants())
        return players - 1 if players % 2 == 0 else players

    def seating(self, number: int, rating: Rating) -> Seating:
        schedule = pairing.round_robin_rounds([e.user_id for e in self.participants()])
        removed = self.removed()
        seats: Seating = []
        for a, b in schedule[number - 1]:
            if a in removed and (b is None or b in removed):
                continue
            seats.append([b, None] if a in removed else [a, None] if b in removed or b is None else [a, b])
        return seats

    def description(self) -> str:
        return _("Jeder gegen jeden")
