"""The scoring arithmetic of the rules, as pure functions: Rommé Masters Wertungspunkte, list results and
gin match bonuses (romme.md, gin.md). A pure leaf of the tournaments app, where the design card and api.md put
it: the standard library only, no Django, so the live layer (each game's ``points``), the replays and the tournaments
all use it without importing anything else of the site.

>>> winner_wertungspunkte(hand_romme=True, others_opened=False, laid_off=False)
12
>>> loser_wertungspunkte(points=24, opened=True)
2
>>> list_result(wertungspunkte=[12, 3, -1], points=[0, 8, 104])
28
>>> list_result(wertungspunkte=[5], points=[30], aborted=True)
-700
>>> gin_match_bonuses(rounds_won=[3, 0], winner=0)
[275, 0]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: What a player who abandons a list (Abbruch) gets for it.
ABBRUCH_RESULT = -700


def winner_wertungspunkte(*, hand_romme: bool, others_opened: bool, laid_off: bool) -> int:
    """Wertungspunkte (WP) of a round's winner.

    ``hand_romme``: the winner laid everything out in the winning turn. ``others_opened``: another player had
    laid out before. ``laid_off``: the winner laid off (or swapped a joker) on other players' melds.
    """
    if not hand_romme:
        return 5
    if not others_opened:
        return 12
    return 8 if laid_off else 10


def loser_wertungspunkte(*, points: int, opened: bool) -> int:
    """Wertungspunkte of a player who did not win the round, from the Augen left in hand."""
    if points < 0:
        raise ValueError(f"points (Augen) cannot be negative: {points}")
    if opened:
        if points <= 10:
            return 3
        if points <= 30:
            return 2
        return 1
    return 0 if points <= 100 else -1


def list_result(*, wertungspunkte: Sequence[int], points: Sequence[int], aborted: bool = False) -> int:
    """A player's result for a list: 10 × (sum of WP) − (sum of Augen); −700 for an Abbruch."""
    if aborted:
        return ABBRUCH_RESULT
    if len(wertungspunkte) != len(points):
        raise ValueError("wertungspunkte and points need one entry per round each")
    return 10 * sum(wertungspunkte) - sum(points)


@dataclass(frozen=True)
class ListStanding:
    """One player's line of a finished list, as the ranking needs it."""

    player: object
    result: int
    wertungspunkte: int
    augen: int
    rounds_won: int

    @property
    def sort_key(self) -> tuple[int, int, int, int]:
        # Higher result, then more WP, then fewer Augen, then more rounds won.
        return (-self.result, -self.wertungspunkte, self.augen, -self.rounds_won)


def rank_list(standings: Sequence[ListStanding]) -> list[tuple[int, ListStanding]]:
    """Places (1-based) for a list's standings; players equal on every criterion share a place.

    >>> a = ListStanding("a", 100, 20, 100, 2); b = ListStanding("b", 100, 20, 100, 2)
    >>> c = ListStanding("c", 100, 20, 90, 1)
    >>> [(place, s.player) for place, s in rank_list([a, b, c])]
    [(1, 'c'), (2, 'a'), (2, 'b')]
    """
    ordered = sorted(standings, key=lambda s: s.sort_key)
    ranked: list[tuple[int, ListStanding]] = []
    for position, standing in enumerate(ordered, start=1):
        if ranked and ranked[-1][1].sort_key == standing.sort_key:
            ranked.append((ranked[-1][0], standing))
        else:
            ranked.append((position, standing))
    return ranked


def gin_match_bonuses(
    *,
    rounds_won: Sequence[int],
    winner: int | None,
    game_bonus: int = 100,
    box_bonus: int = 25,
) -> list[int]:
    """Match bonuses per seat at the end of a gin match (or of one Hollywood column).

    Every player gets ``box_bonus`` (Rundenbonus) for each round won; the match winner gets ``game_bonus``
    (Partiebonus), doubled for a shutout (the loser won no round). ``winner=None`` (a drawn or unfinished
    match) gives only the box bonuses.
    """
    bonuses = [box_bonus * won for won in rounds_won]
    if winner is not None:
        if not 0 <= winner < len(rounds_won):
            raise ValueError(f"winner must be a seat index or None, not {winner!r}")
        losers_won = sum(won for seat, won in enumerate(rounds_won) if seat != winner)
        bonuses[winner] += game_bonus * (2 if losers_won == 0 else 1)
    return bonuses
