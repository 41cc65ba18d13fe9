"""Who sits with whom in a tournament, as pure functions: Rommé table sizes and seating, gin Swiss pairing
with its tie-breaks, knockout brackets with standard seeding, round robin by the circle method.

Standard library only, like ``tournaments.scoring``: players are opaque hashable values (the tournaments
app passes user ids), the rules are those of ``spec/tournaments.md``.

>>> romme_table_sizes(11, 4)
[4, 4, 3]
>>> bracket_order(8)
[1, 8, 4, 5, 2, 7, 3, 6]
>>> round_robin_rounds(["a", "b", "c", "d"])[0]
[('a', 'd'), ('b', 'c')]
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

Player = Hashable

# --------------------------------------------------------------------------------------------------
# Rommé series


def romme_table_sizes(n: int, table_size: int) -> list[int]:
    """Table sizes for ``n`` players at tables of ``table_size``: t = ⌈n / k⌉ tables, one fewer while
    n / t < 3 (and t > 1); sizes as equal as possible, the larger tables first."""
    if n < 1:
        raise ValueError(f"a series needs players, not {n}")
    if table_size < 2:
        raise ValueError(f"a table seats at least 2, not {table_size}")
    tables = math.ceil(n / table_size)
    while tables > 1 and n / tables < 3:
        tables -= 1
    base, extra = divmod(n, tables)
    return [base + 1] * extra + [base] * (tables - extra)


def romme_seating(ordered: Sequence[Player], sizes: Sequence[int]) -> list[list[Player]]:
    """Seat players in the order given (the standings): the first s₁ at table 1, the next s₂ at table 2…;
    within a table the better placed takes the lower seat."""
    if sum(sizes) != len(ordered):
        raise ValueError(f"{len(ordered)} players do not fill tables of {list(sizes)}")
    tables, start = [], 0
    for size in sizes:
        tables.append(list(ordered[start:start + size]))
        start += size
    return tables


def romme_seating_random(players: Sequence[Player], sizes: Sequence[int], rng: random.Random) -> list[list[Player]]:
    """The first series: seats drawn at random (``rng`` is the OS CSPRNG in play)."""
    shuffled = list(players)
    rng.shuffle(shuffled)
    return romme_seating(shuffled, sizes)


# --------------------------------------------------------------------------------------------------
# Gin: one match per pairing


@dataclass(frozen=True)
class GinResult:
    """One pairing of a round: ``winner`` beat ``loser`` by ``margin``; a bye has ``loser`` None.

    A *void* match (it ended without a result: called off, ended by staff) is a loss for both players:
    ``winner`` and ``loser`` are then just the two players in seat order, nobody scores a win, and they
    have met (they are not paired again).

    >>> GinResult.void_match("a", "b").players
    ('a', 'b')
    """

    winner: Player
    loser: Player | None
    margin: int = 0
    void: bool = False

    @classmethod
    def void_match(cls, a: Player, b: Player) -> GinResult:
        return cls(a, b, 0, void=True)

    @property
    def bye(self) -> bool:
        return self.loser is None

    @property
    def players(self) -> tuple[Player, Player | None]:
        return (self.winner, self.loser)


def swiss_rounds(n: int) -> int:
    """The default number of Swiss rounds: min(n − 1, max(3, ⌈log₂ n⌉))."""
    return max(1, min(n - 1, max(3, math.ceil(math.log2(n))))) if n > 1 else 1


def met(results: Iterable[GinResult]) -> set[frozenset]:
    """The pairs of players who have played each other (byes are not meetings)."""
    return {frozenset((r.winner, r.loser)) for r in results if not r.bye}


def had_bye(results: Iterable[GinResult]) -> set[Player]:
    return {r.winner for r in results if r.bye}


def match_points(results: Iterable[GinResult], *, win: int = 1, loss: int = 0, bye: int = 1) -> dict[Player, int]:
    """Match points per player: a win ``win``, a loss ``loss``, a bye ``bye`` (1, 0, 1 by default); a void
    match is a loss for both."""
    points: dict[Player, int] = {}
    for r in results:
        points[r.winner] = points.get(r.winner, 0) + (bye if r.bye else loss if r.void else win)
        if not r.bye:
            points[r.loser] = points.get(r.loser, 0) + loss
    return points


@dataclass
class _Search:
    """A bound on the Swiss search, so a hopeless group cannot keep the referee busy."""

    budget: int = 20000
    spent: int = field(default=0)

    def step(self) -> bool:
        self.spent += 1
        return self.spent <= self.budget


def swiss_pairings(
    ranked: Sequence[Player],
    points: dict[Player, int],
    history: Iterable[GinResult] = (),
) -> tuple[list[tuple[Player, Player]], Player | None]:
    """Pair one Swiss round. ``ranked``: every player to pair, best first (match points, then rating).

    Each score group's top half meets its bottom half (the first of the top half the first of the bottom
    half, and so on; when that would repeat a pairing, the bottom half is permuted, the least change first);
    who cannot be paired in their group floats down to the next (the lowest-placed first). Nobody meets the
    same opponent twice while that is possible. With an odd number the lowest-placed player who has had no
    bye gets it. Returns the pairs (better placed first) and the bye (or None).
    """
    results = list(history)
    seen = met(results)
    byes = had_bye(results)
    ranked = list(ranked)
    if len(set(ranked)) != len(ranked):
        raise ValueError("a player is listed twice")
    candidates: list[Player | None] = [None]
    if len(ranked) % 2:
        # The lowest-placed without a bye first; nobody gets two while someone else can take it.
        fresh = [p for p in reversed(ranked) if p not in byes]
        candidates = fresh + [p for p in reversed(ranked) if p in byes]
    for avoid_repeats in (True, False):
        for bye in candidates:
            rest = [p for p in ranked if p != bye]
            pairs = _pair_swiss(rest, points, seen if avoid_repeats else set())
            if pairs is not None:
                return pairs, bye
    raise AssertionError("an even number of players can always be paired when repeats are allowed")


def _score_groups(players: Sequence[Player], points: dict[Player, int]) -> list[list[Player]]:
    return [list(group) for _, group in itertools.groupby(players, key=lambda p: points.get(p, 0))]


def _pair_swiss(
    players: list[Player], points: dict[Player, int], seen: set[frozenset]
) -> list[tuple[Player, Player]] | None:
    search = _Search()
    pairs = _pair_groups(_score_groups(players, points), seen, search)
    if pairs is None and search.spent > search.budget:
        # The score-group search gave up; any pairing without repeats beats none.
        pairs = _pair_any(players, seen, _Search(budget=200000))
    return pairs


def _pair_groups(groups: list[list[Player]], seen: set[frozenset], search: _Search) -> list[tuple[Player, Player]] | None:
    if not groups:
        return []
    head, rest = groups[0], groups[1:]
    for pairs, floaters in _group_candidates(head, seen, search, last=not rest):
        following = [floaters + rest[0], *rest[1:]] if floaters else rest
        paired = _pair_groups(following, seen, search)
        if paired is not None:
            return pairs + paired
        if not search.step():
            return None
    return None


def _group_candidates(
    group: list[Player], seen: set[frozenset], search: _Search, *, last: bool
) -> Iterator[tuple[list[tuple[Player, Player]], list[Player]]]:
    """Ways to pair one score group, best first: the fewest floaters (the lowest-placed float), then the
    top half against the bottom half with the least permutation of the bottom half."""
    smallest = len(group) % 2
    for floats in range(smallest, len(group) + 1, 2):
        if last and floats:
            return  # nobody below to float to
        # Combinations of positions from the bottom: the lowest-placed float first.
        for chosen in itertools.combinations(range(len(group) - 1, -1, -1), floats):
            if not search.step():
                return
            staying = [p for i, p in enumerate(group) if i not in chosen]
            floaters = [group[i] for i in sorted(chosen)]
            half = len(staying) // 2
            top, bottom = staying[:half], staying[half:]
            for order in itertools.permutations(bottom):
                if not search.step():
                    return
                if all(frozenset(pair) not in seen for pair in zip(top, order, strict=True)):
                    yield list(zip(top, order, strict=True)), floaters


def _pair_any(players: list[Player], seen: set[frozenset], search: _Search) -> list[tuple[Player, Player]] | None:
    """Any complete pairing without repeats: the best-placed meets the next one they have not met."""
    if not players:
        return []
    first, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        if not search.step():
            return None
        if frozenset((first, other)) in seen:
            continue
        paired = _pair_any(rest[:i] + rest[i + 1:], seen, search)
        if paired is not None:
            return [(first, other), *paired]
    return None


@dataclass(frozen=True)
class GinStanding:
    player: Player
    place: int
    match_points: int
    buchholz: int
    margin: int


def _head_to_head_split(group: list[Player], results: list[GinResult]) -> list[list[Player]] | None:
    """Split a tie by the matches between the tied players, if every pair of them met; else None."""
    members = set(group)
    wins = {p: 0 for p in group}
    pairs_met = set()
    for r in results:
        if not r.bye and r.winner in members and r.loser in members:
            wins[r.winner] += 0 if r.void else 1
            pairs_met.add(frozenset((r.winner, r.loser)))
    if len(pairs_met) < len(group) * (len(group) - 1) // 2:
        return None
    ordered = sorted(group, key=lambda p: -wins[p])
    return [list(g) for _, g in itertools.groupby(ordered, key=lambda p: wins[p])]


def _ranked(
    order: list[Player], key: Callable[[Player], tuple], results: list[GinResult]
) -> list[tuple[int, Player]]:
    """Places from ``key`` (lower is better), then the direct encounter; still equal shares the place."""
    ordered = sorted(order, key=key)
    places: list[tuple[int, Player]] = []
    position = 1
    for _, tied_group in itertools.groupby(ordered, key=key):
        tied = list(tied_group)
        parts = _head_to_head_split(tied, results) if len(tied) > 1 else None
        for part in parts or [tied]:
            places += [(position, p) for p in part]
            position += len(part)
    return places


def swiss_standings(
    players: Sequence[Player], results: Iterable[GinResult], *, win: int = 1, loss: int = 0, bye: int = 1
) -> list[GinStanding]:
    """Swiss standings: match points; then Buchholz (the opponents' match points, a bye adds 0); then the
    sum of margins (won +, lost −); then the match between the tied players if they met; else shared."""
    results = list(results)
    points = {p: 0 for p in players} | match_points(results, win=win, loss=loss, bye=bye)
    buchholz = dict.fromkeys(players, 0)
    margin = dict.fromkeys(players, 0)
    for r in results:
        if r.bye:
            continue
        buchholz[r.winner] = buchholz.get(r.winner, 0) + points.get(r.loser, 0)
        buchholz[r.loser] = buchholz.get(r.loser, 0) + points.get(r.winner, 0)
        margin[r.winner] = margin.get(r.winner, 0) + r.margin
        margin[r.loser] = margin.get(r.loser, 0) - r.margin
    places = _ranked(list(players), lambda p: (-points[p], -buchholz[p], -margin[p]), results)
    return [GinStanding(p, place, points[p], buchholz[p], margin[p]) for place, p in places]


def round_robin_standings(
    players: Sequence[Player], results: Iterable[GinResult], *, win: int = 1, loss: int = 0, bye: int = 1
) -> list[GinStanding]:
    """Round robin: match points, then margins, then the match between the tied players."""
    results = list(results)
    points = {p: 0 for p in players} | match_points(results, win=win, loss=loss, bye=bye)
    margin = dict.fromkeys(players, 0)
    for r in results:
        if not r.bye:
            margin[r.winner] += r.margin
            margin[r.loser] -= r.margin
    places = _ranked(list(players), lambda p: (-points[p], -margin[p]), results)
    return [GinStanding(p, place, points[p], 0, margin[p]) for place, p in places]


# --------------------------------------------------------------------------------------------------
# Knockout


def bracket_size(n: int) -> int:
    """The next power of two ≥ n."""
    return 1 << max(0, n - 1).bit_length()


def bracket_order(size: int) -> list[int]:
    """Seeds (1-based) in bracket order for a bracket of ``size``: 1 meets the lowest seed, and seeds 1
    and 2 are in different halves, so they can only meet in the final."""
    if size < 1 or size & (size - 1):
        raise ValueError(f"a bracket has a power of two places, not {size}")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


def knockout_first_round(seeded: Sequence[Player]) -> list[tuple[Player, Player | None]]:
    """The first round's matches in bracket order, ``seeded`` best first; a missing seed is a bye, so the
    byes go to the top seeds."""
    size = bracket_size(len(seeded))
    order = bracket_order(size)
    slots = [seeded[s - 1] if s <= len(seeded) else None for s in order]
    return [(slots[i], slots[i + 1]) for i in range(0, size, 2)]


def knockout_next_round(winners: Sequence[Player]) -> list[tuple[Player, Player]]:
    """The next round: the winners of neighbouring matches of the bracket meet."""
    if len(winners) % 2:
        raise ValueError("a knockout round has an even number of winners (or one: the champion)")
    return [(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]


def knockout_rounds(n: int) -> int:
    return max(1, bracket_size(n).bit_length() - 1)


def knockout_place(*, rounds: int, lost_in: int | None) -> int:
    """Place of a player out in round ``lost_in`` (1-based) of ``rounds``; None: the winner. Final loser 2,
    semi-final losers share 3, quarter-final losers share 5, and so on."""
    if lost_in is None:
        return 1
    return 2 ** (rounds - lost_in) + 1


# --------------------------------------------------------------------------------------------------
# Round robin


def round_robin_rounds(players: Sequence[Player]) -> list[list[tuple[Player, Player | None]]]:
    """Everyone meets everyone once by the circle method: the first player stays, the others turn one place
    each round. n − 1 rounds for even n, n rounds with one bye each (a pair with None) for odd n."""
    circle: list[Player | None] = list(players)
    if len(circle) % 2:
        circle.append(None)
    n = len(circle)
    rounds = []
    for _ in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = circle[i], circle[n - 1 - i]
            if a is None:
                a, b = b, a
            pairs.append((a, b))
        rounds.append(pairs)
        circle = [circle[0], circle[-1], *circle[1:-1]]
    return rounds
