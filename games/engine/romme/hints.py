"""Hints for a hand at the table: a way to go out this turn (a Hand-Rommé included), built on the solver;
and the meld a set of chosen cards makes (the meld builder's preview).

>>> lay, discard = going_out(["2H", "3H", "4H", "5C", "5S", "5D", "9C"], [])
>>> lay["action"], sorted(lay["melds"]), discard
('lay', [['2H', '3H', '4H'], ['5C', '5D', '5S']], {'action': 'discard', 'card': '9C'})
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from games.engine.cards import JOKER, RANKS, is_card
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


#: The most readings ``meld_preview`` checks (``validate_meld`` calls): a bound on its work that holds for
#: any input, whatever it is. The readings that can be melds are few (the jokers of a run stand in its gaps,
#: at most one at either end), so real cards stay far below it: 14 cards with 4 jokers need about a dozen.
PREVIEW_BUDGET = 200


def meld_preview(cards: list[str], *, budget: int = PREVIEW_BUDGET) -> dict:
    """What ``cards``, chosen in any order, make as one Rommé meld: the order it is laid in and its points,
    or why it is none. Read-only, for the page's meld builder (the page knows no rules).

    The candidate orders are the natural cards by rank (each ace low or high) with the jokers placed in
    every way; ``validate_meld`` alone decides which are melds. Of several readings the one worth most
    points is given (a joker at the top end of a run rather than the bottom; a set's jokers last). Only the
    orders that could be melds are checked (``_meld_places``): a set's jokers stand anywhere, a run's fill its
    gaps exactly plus at most one at each end; when none is a meld, the reason is the last order's. At most
    ``budget`` orders are checked, so that no input costs more (an answer then says so).

    >>> meld_preview(["7H", "JK", "5H"])
    {'meld': ['5H', 'JK', '7H'], 'points': 18, 'kind': 'run'}
    """
    naturals = [c for c in cards if c != JOKER]
    jokers = len(cards) - len(naturals)
    aces = [c for c in naturals if c[0] == "A"]
    others = sorted((c for c in naturals if c[0] != "A"), key=lambda c: RANKS.find(c[0]))
    lines: list[tuple[str, ...]] = []
    for high in range(len(aces) + 1):
        line = tuple(aces[high:] + others + aces[:high])  # aces below the 2, or above the king
        if line not in lines:  # the same cards in the same order: the same readings
            lines.append(line)
    length = len(naturals) + jokers
    last = _last_joker_places(length, jokers)
    if last is None:  # the jokers cannot stand apart: no order to read
        return {"meld": None, "points": None, "error": "no cards"}
    best = None
    for line in lines:
        for places in _meld_places(line, jokers):
            budget -= 1
            if budget < 0:
                return {"meld": None, "points": None,
                        "error": f"too many ways to read these {len(cards)} cards; lay fewer at once"}
            try:
                meld = validate_meld(_laid(line, places))
            except InvalidMeld:
                continue
            # Among equals the last reading wins: jokers as far up as they go (a set's at its end).
            if best is None or meld.points >= best.points:
                best = meld
    if best is None:
        try:
            validate_meld(_laid(lines[-1], last))
        except InvalidMeld as exc:
            return {"meld": None, "points": None, "error": str(exc)}
        raise AssertionError("a valid reading was left out")  # pragma: no cover: _meld_places misses none
    return {"meld": list(best.cards), "points": best.points, "kind": best.kind}


def _laid(line: Sequence[str], places: frozenset[int]) -> list[str]:
    """The natural cards of ``line`` in order, with jokers at ``places``."""
    rest = iter(line)
    return [JOKER if i in places else next(rest) for i in range(len(line) + len(places))]


def _apart(places: Sequence[int]) -> bool:
    return all(b - a >= 2 for a, b in zip(places, places[1:], strict=False))


def _last_joker_places(length: int, jokers: int) -> frozenset[int] | None:
    """The last set ``_joker_places`` gives (the jokers as far up as they go), or None if it gives none."""
    if jokers == 0:
        return frozenset()
    first = length - 2 * jokers + 1
    return frozenset(range(first, length, 2)) if first >= 0 else None


def _meld_places(line: tuple[str, ...], jokers: int) -> list[frozenset[int]]:
    """The joker places (as ``_joker_places`` gives them, in its order) at which ``line`` may be a meld: every
    order ``validate_meld`` accepts is among them; most of the others are left out unread.

    A set (one rank) reads the same with its jokers anywhere, and has at most 4 cards. A run (one suit) puts
    each natural card at its rank's position (an ace at 1 or 14), so the jokers between two of them are
    exactly the positions missing there; only the spare ones are free, below the first card or above the last.
    """
    length = len(line) + jokers
    if length < 3 or jokers >= len(line) or not all(is_card(c) for c in line):
        return []  # validate_meld refuses every order of these
    if len({c[0] for c in line}) == 1:
        return list(_joker_places(length, jokers)) if length <= 4 else []
    if len({c[1] for c in line}) != 1:
        return []
    found: set[tuple[int, ...]] = set()

    def assign(k: int, previous: int, gaps: list[int]) -> None:
        if k == len(line):
            spare = jokers - sum(gaps)
            for below in range(spare + 1):
                places, i = list(range(below)), below
                for gap in gaps:
                    i += 1  # the natural card
                    places.extend(range(i, i + gap))
                    i += gap
                places.extend(range(i + 1, i + 1 + spare - below))
                if _apart(places):
                    found.add(tuple(places))
            return
        rank = RANKS.index(line[k][0]) + 1
        for position in (rank, 14) if rank == 1 else (rank,):
            if position > previous:
                gap = position - previous - 1 if k else 0
                if sum(gaps) + gap <= jokers:
                    assign(k + 1, position, [*gaps, gap] if k else gaps)

    assign(0, 0, [])
    return [frozenset(places) for places in sorted(found)]


def _joker_places(length: int, jokers: int) -> Iterator[frozenset[int]]:
    """Every set of ``jokers`` positions out of ``length`` with no two side by side (the rules never allow it)."""
    def choose(start: int, left: int, taken: tuple[int, ...]) -> Iterator[frozenset[int]]:
        if left == 0:
            yield frozenset(taken)
            return
        for i in range(start, length - 2 * (left - 1)):
            yield from choose(i + 2, left - 1, (*taken, i))
    yield from choose(0, jokers, ())
