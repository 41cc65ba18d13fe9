"""Settling a gin round that ends by a knock, gin or big gin: spreads, lay-offs and the round's points.

The server arranges both hands (players never arrange by hand): the knocker's spread is the one that gives
the knocker the best result after the defender's best reply, and the defender keeps the least deadwood
from their own melds plus lay-offs onto the knocker's melds (sets to four, runs at either end, chained).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from games.engine.gin.melds import (
    BIT,
    all_arrangements,
    arrange,
    cards_of,
    deadwood_of,
    points_of,
    sort_melds,
)

_RANK_LINE = (1 << 0) | (1 << 13) | (1 << 26) | (1 << 39)


@dataclass(frozen=True)
class Scoring:
    """The options that turn deadwood into points."""

    undercut_bonus: int = 25
    gin_bonus: int = 25
    big_gin_bonus: int = 31
    double: bool = False  # Oklahoma with a spade upcard: deadwood points count twice, bonuses do not


@dataclass(frozen=True)
class Settlement:
    result: str  # "knock" | "undercut" | "gin" | "big_gin"
    winner_is_knocker: bool
    points: int
    knocker_deadwood: int
    defender_deadwood: int
    knocker_melds: tuple[int, ...]
    defender_melds: tuple[int, ...]
    layoffs: int  # mask of the defender's cards laid off onto the knocker's melds

    def layoff_cards(self) -> list[str]:
        return cards_of(self.layoffs)


def is_set(meld: int) -> bool:
    first = (meld & -meld).bit_length() - 1
    return meld & (_RANK_LINE << (first % 13)) == meld


def layoff_choices(meld: int, defender: int) -> list[int]:
    """Every group of the defender's cards that can be laid off onto ``meld`` (the empty group first).

    A set of three takes its missing fourth card; a run takes an unbroken chain at either end (ace low, no
    wrap-around), so with ``4H 5H 6H`` spread, ``7H`` and then ``8H`` both go.
    """
    first = (meld & -meld).bit_length() - 1
    if is_set(meld):
        missing = (_RANK_LINE << (first % 13)) & ~meld
        if meld.bit_count() == 3 and defender & missing:
            return [0, missing]
        return [0]
    suit_base = first - first % 13
    lo = first % 13
    hi = lo + meld.bit_count() - 1
    downs = [0]
    chain = 0
    rank = lo - 1
    while rank >= 0 and defender & BIT[suit_base + rank]:
        chain |= BIT[suit_base + rank]
        downs.append(chain)
        rank -= 1
    ups = [0]
    chain = 0
    rank = hi + 1
    while rank <= 12 and defender & BIT[suit_base + rank]:
        chain |= BIT[suit_base + rank]
        ups.append(chain)
        rank += 1
    return [d | u for d in downs for u in ups]


def defender_reply(knocker_melds: tuple[int, ...], defender: int) -> tuple[int, int]:
    """The defender's least deadwood against a spread: (deadwood, mask of cards laid off).

    Each card serves the defender's own meld or a lay-off, whichever leaves less deadwood; on a tie the
    defender keeps their own melds (fewest lay-offs listed first).
    """
    choices = [layoff_choices(meld, defender) for meld in knocker_melds]
    best_deadwood = deadwood_of(defender)
    best_layoffs = 0
    if not best_deadwood:
        return 0, 0
    for combo in product(*choices):
        laid = 0
        for group in combo:
            if laid & group:  # two runs of one suit cannot both take the same card
                break
            laid |= group
        else:
            if not laid:
                continue
            deadwood = deadwood_of(defender ^ laid)
            if deadwood < best_deadwood:
                best_deadwood, best_layoffs = deadwood, laid
                if not deadwood:
                    break
    return best_deadwood, best_layoffs


def _knock_value(knocker_deadwood: int, defender_deadwood: int, scoring: Scoring) -> int:
    """Points for the knocker (negative: the defender's points on an undercut)."""
    factor = 2 if scoring.double else 1
    if defender_deadwood > knocker_deadwood:
        return factor * (defender_deadwood - knocker_deadwood)
    return -(factor * (knocker_deadwood - defender_deadwood) + scoring.undercut_bonus)


def settle_knock(*, knocker: int, defender: int, knock_limit: int, scoring: Scoring) -> Settlement:
    """Settle a knock (or gin) with the knocker's 10 cards after the discard and the defender's 10."""
    melds, deadwood = arrange(knocker)
    if deadwood > knock_limit:
        raise ValueError(f"deadwood {deadwood} is over the knock limit {knock_limit}")
    if deadwood == 0:
        defender_deadwood = deadwood_of(defender)
        own, _ = arrange(defender)
        factor = 2 if scoring.double else 1
        return Settlement("gin", True, factor * defender_deadwood + scoring.gin_bonus, 0, defender_deadwood,
                          tuple(melds), tuple(own), 0)
    best_key: tuple[int, int] | None = None
    best: tuple[tuple[int, ...], int, int, int] | None = None
    for spread, knocker_deadwood in all_arrangements(knocker):
        if knocker_deadwood > knock_limit:
            continue
        defender_deadwood, laid = defender_reply(spread, defender)
        key = (_knock_value(knocker_deadwood, defender_deadwood, scoring), -knocker_deadwood)
        if best_key is None or key > best_key:
            best_key, best = key, (spread, knocker_deadwood, defender_deadwood, laid)
    assert best is not None and best_key is not None  # the least-deadwood spread is within the limit
    spread, knocker_deadwood, defender_deadwood, laid = best
    own, _ = arrange(defender ^ laid)
    value = best_key[0]
    result = "knock" if value > 0 else "undercut"
    return Settlement(result, value > 0, abs(value), knocker_deadwood, defender_deadwood,
                      tuple(sort_melds(spread)), tuple(own), laid)


def settle_big_gin(*, knocker: int, defender: int, scoring: Scoring) -> Settlement:
    """Settle big gin: all 11 of the knocker's cards meld; no lay-offs."""
    melds, deadwood = arrange(knocker)
    if deadwood:
        raise ValueError("big gin needs all 11 cards melded")
    defender_deadwood = deadwood_of(defender)
    own, _ = arrange(defender)
    factor = 2 if scoring.double else 1
    return Settlement("big_gin", True, factor * defender_deadwood + scoring.big_gin_bonus, 0,
                      defender_deadwood, tuple(melds), tuple(own), 0)


__all__ = ["Scoring", "Settlement", "defender_reply", "layoff_choices", "settle_big_gin", "settle_knock",
           "points_of"]
