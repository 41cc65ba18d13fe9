"""Rommé scoring by the rules of romme.md: hand points (Augen), casual minus points and casual places.

The Masters Wertungspunkte, list results and ranking are ``tournaments.scoring``'s; ``games.kinds.romme.points`` turns
the facts of each round (who went out, Hand-Rommé, who had opened, who laid off, Augen) into them.

>>> hand_points(["JK", "AS", "KD", "5C"])
46
>>> casual_places([30, 12, 30, 0])
[3, 2, 3, 1]
"""

from __future__ import annotations

from collections.abc import Sequence

from games.engine.cards import check_cards
from games.engine.romme.melds import hand_augen


def hand_points(cards: Sequence[str]) -> int:
    """Augen of the cards in a hand: joker 20, ace 11, K Q J 10 → 10, others face value.

    A bad code raises ``InvalidCard`` (a ``ValueError``).
    """
    return sum(hand_augen(c) for c in check_cards(cards, allow_joker=True))


def casual_minus(*, augen: Sequence[int], winner: int | None, hand_romme: bool) -> list[int]:
    """Minus points of one round: the winner 0, the others their Augen, doubled after a Hand-Rommé."""
    if winner is None:
        return [0] * len(augen)
    factor = 2 if hand_romme else 1
    return [0 if seat == winner else points * factor for seat, points in enumerate(augen)]


def casual_places(totals: Sequence[int], *, left: Sequence[bool] = ()) -> list[int]:
    """Places of a casual list: fewest minus points first, equal totals share a place, leavers last.

    Players who left (Abbruch) come after everyone who stayed, ordered among themselves the same way.
    """
    left = list(left) or [False] * len(totals)
    keys = [(left[seat], totals[seat]) for seat in range(len(totals))]
    return [1 + sum(1 for other in keys if other < key) for key in keys]
