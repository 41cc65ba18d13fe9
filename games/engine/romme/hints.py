"""Hints for a hand at the table: a way to go out this turn (a Hand-Rommé included), built on the solver;
and the meld a set of chosen cards makes (the meld builder's preview).

>>> lay, discard = going_out(["2H", "3H", "4H", "5C", "5S", "5D", "9C"], [])
>>> lay["action"], sorted(lay["melds"]), discard
('lay', [['2H', '3H', '4H'], ['5C', '5D', '5S']], {'action': 'discard', 'card': '9C'})
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from games.engine.cards import JOKER, RANKS
from games.engine.romme.melds import InvalidMeld, Meld, hand_augen, most_cards_layout, validate_meld
from games.engine.romme.round import extended, layoff_ends


def table_melds(melds: Sequence[dict]) -> list[tuple[int, int, Meld]]:
    """(number, owner, meld) for the melds of a view (``view["melds"]``)."""
    table = []
    for t in melds:
        try:
            table.append((t["number"], t["owner"], validate_meld(t["cards"])))
        except (InvalidMeld, KeyError, TypeError):
            continue
    return table


def plan_layoffs(cards: Sequence[str], table: Sequence[tuple[int, int, Meld]], *, keep: int = 1
                 ) -> tuple[list[dict], list[str]]:
    """Lay off as many of ``cards`` as fit (one after another, melds growing), keeping ``keep`` cards.

    Greedy: highest cards first, jokers last. Returns the lay-offs (``{"card", "meld"(, "end")}``) and the
    cards left.
    """
    melds = {number: meld for number, _, meld in table}
    rest = list(cards)
    plans: list[dict] = []
    changed = True
    while changed and len(rest) > keep:
        changed = False
        for card in sorted(rest, key=lambda c: (c == JOKER, -hand_augen(c))):
            if len(rest) <= keep:
                break
            for number, meld in melds.items():
                ends = layoff_ends(meld, card)
                if not ends:
                    continue
                item: dict = {"card": card, "meld": number}
                if len(ends) > 1:
                    item["end"] = ends[0]
                longer = extended(meld, card, ends[0])
                assert longer is not None, "layoff_ends named this end"
                melds[number] = longer
                plans.append(item)
                rest.remove(card)
                changed = True
                break
    return plans, rest


def going_out(hand: Sequence[str], table: Sequence[tuple[int, int, Meld]], *, opened: bool = True,
              next_number: int | None = None) -> list[dict] | None:
    """Actions that end the round this turn from a drawn hand, or None if the solver finds no way.

    The melds that lay the most cards, then lay-offs on the table (and on the new melds), then the discard
    of the last card: one ``lay`` action (with ``lay_offs``) when there are new melds, so it is also a
    valid Hand-Rommé for a player who has not opened; else single ``lay_off`` actions (the player must have
    opened). The meld search is exact; the lay-offs are greedy.
    """
    hand = list(hand)
    if next_number is None:
        next_number = max((number for number, _, _ in table), default=0) + 1
    melds = most_cards_layout(hand) if len(hand) >= 4 else ()
    rest = list(hand)
    for meld in melds:
        for card in meld:
            rest.remove(card)
    grown = list(table) + [(next_number + i, -1, validate_meld(list(m))) for i, m in enumerate(melds)]
    lay_offs, rest = plan_layoffs(rest, grown)
    if len(rest) != 1:
        return None
    discard = {"action": "discard", "card": rest[0]}
    if not melds and not opened:
        return None  # lay-offs alone need an opening first
    if melds:
        lay: dict = {"action": "lay", "melds": [list(m) for m in melds]}
        if lay_offs:
            lay["lay_offs"] = lay_offs
        return [lay, discard]
    return [{"action": "lay_off", **item} for item in lay_offs] + [discard]


def meld_preview(cards: list[str]) -> dict:
    """What ``cards``, chosen in any order, make as one Rommé meld: the order it is laid in and its points,
    or why it is none. Read-only, for the page's meld builder (the page knows no rules).

    The candidate orders are the natural cards by rank (each ace low or high) with the jokers placed in
    every way; ``validate_meld`` alone decides which are melds. Of several readings the one worth most
    points is given (a joker at the top end of a run rather than the bottom; a set's jokers last).

    >>> meld_preview(["7H", "JK", "5H"])
    {'meld': ['5H', 'JK', '7H'], 'points': 18, 'kind': 'run'}
    """
    naturals = [c for c in cards if c != JOKER]
    jokers = len(cards) - len(naturals)
    aces = [c for c in naturals if c[0] == "A"]
    others = sorted((c for c in naturals if c[0] != "A"), key=lambda c: RANKS.find(c[0]))
    best = None
    error = "no cards"
    seen: set[tuple[str, ...]] = set()
    for high in range(len(aces) + 1):
        line = aces[high:] + others + aces[:high]  # aces below the 2, or above the king
        for places in _joker_places(len(line) + jokers, jokers):
            order, rest = [], iter(line)
            for i in range(len(line) + jokers):
                order.append(JOKER if i in places else next(rest))
            key = tuple(order)
            if key in seen:
                continue
            seen.add(key)
            try:
                meld = validate_meld(order)
            except InvalidMeld as exc:
                error = str(exc)
                continue
            # Among equals the last reading wins: jokers as far up as they go (a set's at its end).
            if best is None or meld.points >= best.points:
                best = meld
    if best is None:
        return {"meld": None, "points": None, "error": error}
    return {"meld": list(best.cards), "points": best.points, "kind": best.kind}


def _joker_places(length: int, jokers: int) -> Iterator[frozenset[int]]:
    """Every set of ``jokers`` positions out of ``length`` with no two side by side (the rules never allow it)."""
    def choose(start: int, left: int, taken: tuple[int, ...]) -> Iterator[frozenset[int]]:
        if left == 0:
            yield frozenset(taken)
            return
        for i in range(start, length - 2 * (left - 1)):
            yield from choose(i + 2, left - 1, (*taken, i))
    yield from choose(0, jokers, ())
