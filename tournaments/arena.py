"""The arena's rules as pure functions (spec/tournaments.md "Arena"): who of the free players sits with whom
on a pass of the referee's clock, and what each match is worth with the streak ("on fire").

No Django, no clock, no database: players are opaque hashable values (the tournaments app passes user ids),
and the pairing of two-seat tables is a minimum-cost matching by networkx (``min_weight_matching``: a
matching of the most pairs, of least cost among those), not a hand-written matcher.

>>> free = [FreePlayer(1, rank=1, rating=1600), FreePlayer(2, rank=2, rating=1500),
...         FreePlayer(3, rank=3, rating=1550), FreePlayer(4, rank=4, rating=1450)]
>>> arena_tables(free, sizes=(2,))
[[1, 2], [3, 4]]
>>> arena_score([Outcome(1, 2), Outcome(1, 2), Outcome(1, 2), Outcome(2, 2)]).strip
[2, 2, 4, 0]
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from statistics import fmean

import networkx as nx

Player = Hashable

#: The most free players one matching looks at: the players in order of rank are cut into groups of this
#: many, so that a pass over a thousand players is ten small matchings, not one of a thousand.
GROUP_SIZE = 100
#: The cost of a pair: this much per place of arena rank apart, plus the Wertungszahl apart, plus
#: :data:`REMATCH_COST` when they met in their previous match.
RANK_COST = 1000
REMATCH_COST = 10_000
#: How far down the rank order a player's possible partners reach in the matching (a partner further down
#: costs that many places of rank more): a group of 100 is then a sparse graph, a tenth of a second to match
#: where the complete graph takes most of a second. Whoever it leaves over is matched again with the rest.
REACH = 12
#: Seconds two players left over wait before they play a table of the game's smallest size (Rommé: 2).
SMALL_TABLE_WAIT = 60.0


@dataclass(frozen=True)
class FreePlayer:
    """A player the arena may seat now: present, not paused, at no table."""

    player: Player
    #: Their place in the arena's standings now, among everyone in them (1 the best; players equal in the
    #: standings share a place).
    rank: int
    #: Their Wertungszahl in the arena's game.
    rating: int
    #: The opponent(s) of their previous match in this arena.
    last: frozenset = field(default_factory=frozenset)
    #: How long they have been free, in seconds.
    waited: float = 0.0


def pair_cost(a: FreePlayer, b: FreePlayer) -> int:
    """``|Δrank| × 1000 + |ΔWertungszahl| + 10000 if they met last match``.

    >>> pair_cost(FreePlayer("a", rank=1, rating=1500), FreePlayer("b", rank=3, rating=1420, last=frozenset("a")))
    12080
    """
    met = b.player in a.last or a.player in b.last
    return abs(a.rank - b.rank) * RANK_COST + abs(a.rating - b.rating) + (REMATCH_COST if met else 0)


def met_last(a: FreePlayer, b: FreePlayer) -> bool:
    return b.player in a.last or a.player in b.last


def in_rank_order(free: Iterable[FreePlayer]) -> list[FreePlayer]:
    """Best rank first, then the higher Wertungszahl; players equal in both keep the order given."""
    return sorted(free, key=lambda p: (p.rank, -p.rating))


def groups(ordered: Sequence[FreePlayer], size: int = GROUP_SIZE) -> list[list[FreePlayer]]:
    """The players (in rank order) cut into consecutive groups of ``size``, the last one the rest.

    >>> [len(g) for g in groups([FreePlayer(n, rank=n, rating=1500) for n in range(250)])]
    [100, 100, 50]
    """
    if size < 2:
        raise ValueError(f"a group holds at least two players, not {size}")
    return [list(ordered[start:start + size]) for start in range(0, len(ordered), size)]


def table_sizes(n: int, sizes: Sequence[int]) -> list[int]:
    """How ``n`` players sit at tables of the ``sizes`` given (largest first): as many seated as can be,
    and among those ways the most tables of the larger sizes. Who is left over waits.

    >>> table_sizes(11, (4, 3)), table_sizes(6, (4, 3)), table_sizes(5, (4, 3)), table_sizes(2, (4, 3))
    ([4, 4, 3], [3, 3], [4], [])
    """
    ordered = sorted(set(sizes), reverse=True)
    # best[m]: the table sizes that seat the most of m players, with the larger tables first (a tuple
    # compares size by size, so the lexicographically largest is the one with most large tables).
    best: list[tuple[int, tuple[int, ...]]] = [(0, ())]
    for m in range(1, n + 1):
        options = [best[m - 1]]  # one player of the m left over
        for size in ordered:
            if size <= m:
                seated, tables = best[m - size]
                options.append((seated + size, tuple(sorted((*tables, size), reverse=True))))
        best.append(max(options))
    return list(best[n][1])


def _pairs(group: Sequence[FreePlayer], *, rematch: bool, first_minute: bool) -> list[list[FreePlayer]]:
    """Two-seat tables from one group (in rank order): the most pairs, of least total cost, each player's
    partner among the :data:`REACH` next in rank order (never two who met last unless ``rematch``). In the
    arena's first minute, neighbours in rank order instead."""
    if first_minute:
        left, pairs = list(group), []
        while left:
            a = left.pop(0)
            b = next((b for b in left if rematch or not met_last(a, b)), None)
            if b is not None:
                left.remove(b)
                pairs.append([a, b])
        if len(group) - 2 * len(pairs) < 2:
            return pairs
        # Neighbour by neighbour left two or more waiting (two who met last took each other's turn): the
        # matching of the most pairs, each as near in rank order as it can be, if it seats more.
        matched = _matching(group, lambda i, j: j - i, rematch=rematch)
        return matched if len(matched) > len(pairs) else pairs
    return _matching(group, lambda i, j: pair_cost(group[i], group[j]), rematch=rematch)


def _matching(group: Sequence[FreePlayer], cost: Callable[[int, int], int], *, rematch: bool) -> list[list[FreePlayer]]:
    """The most pairs of ``group`` (in rank order), of least total ``cost(i, j)`` (positions, i < j), each
    player's partner among the :data:`REACH` next in rank order (never two who met last unless ``rematch``)."""
    graph = nx.Graph()
    graph.add_nodes_from(range(len(group)))
    graph.add_weighted_edges_from(
        (i, j, cost(i, j))
        for i in range(len(group)) for j in range(i + 1, min(len(group), i + 1 + REACH))
        if rematch or not met_last(group[i], group[j]))
    matching = nx.min_weight_matching(graph)
    return sorted(([group[min(i, j)], group[max(i, j)]] for i, j in matching),
                  key=lambda pair: group.index(pair[0]))


def _conflicts(table: Sequence[FreePlayer]) -> int:
    return sum(1 for i, a in enumerate(table) for b in table[i + 1:] if met_last(a, b))


def _tables(group: Sequence[FreePlayer], sizes: Sequence[int]) -> list[list[FreePlayer]]:
    """Tables of several seats from one group: neighbours in rank order fill the tables of
    :func:`table_sizes`; then two who met in their previous match are parted by swapping one of them with
    a player of another table, where that leaves fewer such meetings at both."""
    tables, start = [], 0
    for size in table_sizes(len(group), sizes):
        tables.append(list(group[start:start + size]))
        start += size
    for t, table in enumerate(tables):
        for i in range(len(table)):
            if not any(met_last(table[i], other) for other in table if other is not table[i]):
                continue
            # The nearest tables first: the swap costs the least rank.
            for u in sorted((u for u in range(len(tables)) if u != t), key=lambda u: abs(u - t)):
                swapped = next((j for j in range(len(tables[u]))
                                if _conflicts(table[:i] + [tables[u][j]] + table[i + 1:])
                                + _conflicts(tables[u][:j] + [table[i]] + tables[u][j + 1:])
                                < _conflicts(table) + _conflicts(tables[u])), None)
                if swapped is not None:
                    table[i], tables[u][swapped] = tables[u][swapped], table[i]
                    break
    return tables


def _seat(group: Sequence[FreePlayer], sizes: Sequence[int], *, rematch: bool,
          first_minute: bool) -> list[list[FreePlayer]]:
    if tuple(sizes) == (2,):
        return _pairs(group, rematch=rematch, first_minute=first_minute)
    return _tables(group, sizes)


def arena_tables(
    free: Sequence[FreePlayer], *, sizes: Sequence[int], late_size: int | None = None,
    first_minute: bool = False, group_size: int = GROUP_SIZE, late_wait: float = SMALL_TABLE_WAIT,
) -> list[list[Player]]:
    """The tables one pass seats, each a list of players (the better ranked first).

    ``sizes`` are the tables the arena forms every pass, largest first (gin ``(2,)``: pairs; Rommé
    ``(4, 3)``). The free players in rank order are cut into groups of ``group_size``; each group is seated
    (pairs: a minimum-cost matching of :func:`pair_cost`, in the first minute neighbours in rank order;
    larger tables: neighbours, parted from their previous opponents where a swap can), then whoever a group
    left over is seated with the other groups' left-overs. At two-seat tables, two who met in their previous
    match are never paired while a third player is free. Exactly ``late_size`` players left over (Rommé: 2) play a table of
    their own once one of them has waited ``late_wait`` seconds; others left over wait for the next pass.
    """
    ordered = in_rank_order(free)
    if len({p.player for p in ordered}) != len(ordered):
        raise ValueError("a player is free once")
    rematch = len(ordered) <= 2  # the last opponent only when nobody else is free
    seated: list[list[FreePlayer]] = []
    leftover: list[FreePlayer] = []
    for group in groups(ordered, group_size):
        tables = _seat(group, sizes, rematch=rematch, first_minute=first_minute)
        seated += tables
        placed = {p.player for table in tables for p in table}
        leftover += [p for p in group if p.player not in placed]
    if min(sizes) <= len(leftover) < len(ordered):  # the groups' left-overs, once more among themselves
        for group in groups(leftover, group_size):
            tables = _seat(group, sizes, rematch=rematch, first_minute=first_minute)
            seated += tables
            placed = {p.player for table in tables for p in table}
            leftover = [p for p in leftover if p.player not in placed]
    if (late_size is not None and len(leftover) == late_size and max(p.waited for p in leftover) >= late_wait
            and (rematch or _conflicts(leftover) == 0)):
        seated.append(leftover)
    return [[p.player for p in table] for table in seated]


# --- points and streaks -------------------------------------------------------------------------------

#: What a win is worth (gin: the match won; Rommé: place 1), and on fire (after two wins in a row) twice that.
WIN_POINTS = 2
#: Place 2 at a table of three or more.
SECOND_POINTS = 1
#: Wins in a row after which each further win counts double.
FIRE_AFTER = 2
#: The performance's weight of (wins − losses) per match.
PERFORMANCE_WEIGHT = 400


@dataclass(frozen=True)
class Outcome:
    """One player's finished arena match: their ``place`` at a table of ``seats`` (1 the best; a shared
    place is the same number), whether they ``left`` it (a forfeit or an abandon), and the Wertungszahl of
    the opponents they met there."""

    place: int
    seats: int
    left: bool = False
    opponents: tuple[int, ...] = ()

    @property
    def won(self) -> bool:
        """A win: place 1 (gin: the match won; Rommé: the list won, a shared first place too), not left."""
        return self.place == 1 and not self.left

    @property
    def lost(self) -> bool:
        """A loss: a match that scored nothing (a forfeit, an abandon, a place below the points)."""
        return base_points(self) == 0


def base_points(outcome: Outcome) -> int:
    """A match's points before the streak: place 1 gets 2, place 2 gets 1 at a table of three or more, the
    rest 0; a forfeit or an abandon 0.

    >>> base_points(Outcome(1, 2)), base_points(Outcome(2, 2)), base_points(Outcome(2, 3)), base_points(Outcome(3, 4))
    (2, 0, 1, 0)
    """
    if outcome.left:
        return 0
    if outcome.place == 1:
        return WIN_POINTS
    if outcome.place == 2 and outcome.seats >= 3:
        return SECOND_POINTS
    return 0


@dataclass(frozen=True)
class ArenaScore:
    """A player's arena so far: the points, each match's points in order (the strip), whether they are on
    fire now, and the counts the standings' tie-breaks use."""

    points: int
    strip: list[int]
    on_fire: bool
    wins: int
    losses: int
    matches: int
    opponents: tuple[int, ...]

    @property
    def performance(self) -> int:
        """The mean Wertungszahl of the opponents met + 400 × (wins − losses) / matches (0 before a match)."""
        if not self.matches:
            return 0
        mean = fmean(self.opponents) if self.opponents else 0
        return round(mean + PERFORMANCE_WEIGHT * (self.wins - self.losses) / self.matches)


def arena_score(outcomes: Sequence[Outcome]) -> ArenaScore:
    """The points of a player's matches in the order they ended. After two wins in a row a player is on
    fire: each further win counts double, until a match that is not a win (a forfeit or an abandon too)."""
    strip: list[int] = []
    in_a_row = 0
    for outcome in outcomes:
        points = base_points(outcome)
        if outcome.won:
            strip.append(points * 2 if in_a_row >= FIRE_AFTER else points)
            in_a_row += 1
        else:
            strip.append(points)
            in_a_row = 0
    return ArenaScore(
        points=sum(strip), strip=strip, on_fire=in_a_row >= FIRE_AFTER,
        wins=sum(1 for o in outcomes if o.won), losses=sum(1 for o in outcomes if o.lost), matches=len(outcomes),
        opponents=tuple(r for o in outcomes for r in o.opponents))


def arena_places(scores: dict[Player, ArenaScore]) -> list[tuple[int, Player]]:
    """The standings' order: points, then performance, then more matches played; still equal shares the place
    (1, 2, 2, 4). Players equal in all keep the order given."""
    def key(player: Player) -> tuple[int, int, int]:
        s = scores[player]
        return (-s.points, -s.performance, -s.matches)

    ordered = sorted(scores, key=key)
    places: list[tuple[int, Player]] = []
    for i, player in enumerate(ordered):
        if i and key(player) == key(ordered[i - 1]):
            places.append((places[-1][0], player))
        else:
            places.append((i + 1, player))
    return places
