"""Building Rommé positions for the rule tests: hands, table melds and whose turn, written out as cards."""

from __future__ import annotations

import itertools

from games.engine.romme.melds import InvalidMeld, validate_meld
from games.engine.romme.round import DISCARD, DRAW, Round, TableMeld


def position(
    hands: list[str],
    *,
    upcard: str = "2C",
    stock: str = "3C 4C 5C 6C",
    melds: tuple[tuple[int, str], ...] = (),
    opened: tuple[int, ...] = (),
    to_act: int = 0,
    drawn: str | None = None,
    opening_points: int = 40,
) -> Round:
    """A round where seat ``to_act`` is to draw (or, with ``drawn``, has just drawn that card from the stock).

    ``hands`` are space-separated cards per seat; ``melds`` are (owner, "cards") already on the table.
    """
    seats = len(hands)
    r = Round(seats=seats, dealer=(to_act - 1) % seats, hands=[h.split() for h in hands], upcard=upcard,
              stock=stock.split(), opening_points=opening_points)
    for owner, cards in melds:
        r.melds.append(TableMeld(len(r.melds) + 1, owner, validate_meld(cards.split())))
        r.opened[owner] = True
    for seat in opened:
        r.opened[seat] = True
    r.opened_before_turn = r.opened[to_act]
    if drawn is not None:
        r.hands[to_act].append(drawn)
        r.drawn_from, r.drawn_card = "stock", drawn
        r.phase = DISCARD
    else:
        r.phase = DRAW
    return r


def hand_of(r: Round, seat: int) -> list[str]:
    return sorted(r.hands[seat])


def brute_force_melds(cards: tuple[str, ...]) -> list[tuple[tuple[str, ...], int, int]]:
    """Every valid meld (as an arrangement) that can be made from a subset of ``cards``: (cards, points, size)."""
    found = {}
    for size in range(3, len(cards) + 1):
        for combo in set(itertools.combinations(sorted(cards), size)):
            for arrangement in set(itertools.permutations(combo)):
                try:
                    meld = validate_meld(list(arrangement))
                except InvalidMeld:
                    continue
                key = tuple(sorted(combo))
                if key not in found or meld.points > found[key][1]:
                    found[key] = (arrangement, meld.points, size)
    return list(found.values())


def brute_force_best(cards: list[str], score) -> int:
    """The best total ``score(points, cards)`` over disjoint melds from ``cards``, keeping one card (exhaustive)."""
    melds = brute_force_melds(tuple(cards))
    best = 0

    def rec(start: int, left: list[str], total: int) -> None:
        nonlocal best
        if len(left) >= 1:
            best = max(best, total)
        for i in range(start, len(melds)):
            arrangement, points, _ = melds[i]
            rest = list(left)
            try:
                for c in arrangement:
                    rest.remove(c)
            except ValueError:
                continue
            if not rest:
                continue
            rec(i, rest, total + score(points, arrangement))

    rec(0, list(cards), 0)
    return best
