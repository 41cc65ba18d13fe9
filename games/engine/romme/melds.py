"""Rommé melds: checking one meld (``validate_meld``) and the solver that finds the best melds in a hand.

>>> meld = validate_meld(["QH", "KH", "JK"])
>>> meld.kind, meld.points, meld.stands_for
('run', 31, ('QH', 'KH', 'AH'))
>>> validate_meld(["KH", "AH", "2H"])
Traceback (most recent call last):
...
games.engine.romme.melds.InvalidMeld: no wrap-around: an ace is low before a 2 or high after a king, never between (KH AH 2H)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from games.engine.cards import JOKER, RANKS, SUITS, is_card

SET = "set"
RUN = "run"
#: Hand points (Augen) of a joker and of an ace in the hand.
JOKER_AUGEN = 20


class InvalidMeld(ValueError):
    """A group of cards that is not a valid Rommé meld; the message says exactly what is wrong."""


def _rank(code: str) -> int:
    return RANKS.index(code[0]) + 1


def position_value(position: int) -> int:
    """Meld value of the card standing at run position 1–14 (14 = the ace above a king)."""
    if position == 1:
        return 1
    if position == 14:
        return 11
    return min(position, 10)


def set_card_value(rank: int) -> int:
    """Meld value of a card of ``rank`` in a set (the ace counts 11 in a set of aces)."""
    return 11 if rank == 1 else min(rank, 10)


def _code(position: int, suit: str) -> str:
    return RANKS[(position - 1) % 13] + suit


@dataclass(frozen=True)
class Meld:
    """A valid meld as it lies on the table.

    ``cards`` are as laid (a run lowest first, jokers where they stand). ``stands_for`` gives, position by
    position, the card each one means: a natural card means itself, a joker in a run the card of its place;
    a joker in a set of three means its rank with one of two missing suits, shown as ``None`` until the set
    holds four cards. ``points`` is the meld's value towards the opening.
    """

    kind: str
    cards: tuple[str, ...]
    stands_for: tuple[str | None, ...]
    points: int
    rank: int | None = None  # sets
    suit: str | None = None  # runs
    low: int | None = None  # runs: position 1–14 of the first card
    open_suits: tuple[str, ...] = field(default=())  # sets: suits a joker of a 3-card set may mean

    @property
    def high(self) -> int | None:
        return None if self.low is None else self.low + len(self.cards) - 1

    def joker_meanings(self) -> list[dict]:
        """What each joker stands for, JSON-ready: ``{"position", "card", "rank", "suits"}``."""
        meanings = []
        for position, (card, meaning) in enumerate(zip(self.cards, self.stands_for, strict=True)):
            if card != JOKER:
                continue
            if meaning is not None:
                meanings.append({"position": position, "card": meaning, "rank": meaning[0], "suits": [meaning[1]]})
            else:
                assert self.rank is not None, "only a set's joker has an open meaning"
                meanings.append({"position": position, "card": None, "rank": RANKS[self.rank - 1],
                                 "suits": list(self.open_suits)})
        return meanings


def _check_codes(cards: object) -> list[str]:
    if isinstance(cards, str | bytes) or not isinstance(cards, Sequence):
        raise InvalidMeld("a meld is a list of card codes")
    codes = list(cards)
    for code in codes:
        if not is_card(code, allow_joker=True):
            raise InvalidMeld(f"not a card code: {code!r} (rank A23456789TJQK + suit CDHS, or JK)")
    return codes


def validate_meld(cards: Sequence[str]) -> Meld:
    """Check a meld and return it with its kind, its points and what each joker stands for.

    Raises :class:`InvalidMeld` (a ``ValueError``) naming what is wrong.
    """
    codes = _check_codes(cards)
    return _validated(tuple(codes))


# Views and bots re-read the same table melds after every move; a Meld is immutable, so it can be shared.
@lru_cache(maxsize=4096)
def _validated(cards: tuple[str, ...]) -> Meld:
    codes = list(cards)
    if len(codes) < 3:
        raise InvalidMeld(f"a meld needs at least 3 cards, not {len(codes)}")
    naturals = [c for c in codes if c != JOKER]
    jokers = len(codes) - len(naturals)
    if jokers >= len(naturals):
        raise InvalidMeld(
            f"a meld must have fewer jokers than natural cards ({jokers} joker{'s' if jokers != 1 else ''}, "
            f"{len(naturals)} natural)"
        )
    if len({c[0] for c in naturals}) == 1:
        return _validate_set(codes, naturals)
    if len({c[1] for c in naturals}) == 1:
        return _validate_run(codes)
    raise InvalidMeld(
        "neither a set (one rank, different suits) nor a run (one suit, consecutive): " + " ".join(codes)
    )


def _validate_set(codes: list[str], naturals: list[str]) -> Meld:
    suits = [c[1] for c in naturals]
    for suit in suits:
        if suits.count(suit) > 1:
            raise InvalidMeld(f"a set needs natural cards of different suits: {naturals[0][0]}{suit} is there twice")
    if len(codes) > 4:
        raise InvalidMeld(f"a set has at most 4 cards (one per suit), not {len(codes)}")
    rank = _rank(naturals[0])
    open_suits = tuple(s for s in "CSHD" if s not in suits)
    certain = len(codes) == 4
    stands_for = tuple(
        c if c != JOKER else (RANKS[rank - 1] + open_suits[0] if certain else None) for c in codes
    )
    return Meld(SET, tuple(codes), stands_for, set_card_value(rank) * len(codes), rank=rank,
                open_suits=open_suits)


def _run_error(codes: list[str]) -> str:
    """The first thing wrong with a would-be run of one suit (called only when no reading fits)."""
    shown = " ".join(codes)
    for a, b in zip(codes, codes[1:], strict=False):
        if a == JOKER and b == JOKER:
            return f"two jokers may never lie next to each other in a run ({shown})"
    placed = [(i, c) for i, c in enumerate(codes) if c != JOKER]
    ranks = [_rank(c) for _, c in placed]
    # Only the ace may be there twice: low as the first card and high as the last (A 2 … K A).
    inner = ranks[1:-1] if ranks[0] == ranks[-1] == 1 else ranks
    twice = next((r for r in inner if inner.count(r) > 1), None)
    if twice is not None:
        return f"a run cannot hold {RANKS[twice - 1]} twice ({shown})"
    for k, (_i, c) in enumerate(placed):
        if c[0] == "A" and 0 < k < len(placed) - 1:
            return f"no wrap-around: an ace is low before a 2 or high after a king, never between ({shown})"
    # Read an ace first as low, an ace last as high; then check the gaps between natural cards.
    values = []
    for k, (_, c) in enumerate(placed):
        r = _rank(c)
        if r == 1 and k == len(placed) - 1 and k > 0:
            r = 14
        values.append(r)
    for (i, a), (j, b), ra, rb in zip(placed, placed[1:], values, values[1:], strict=False):
        if rb < ra:
            if "A" in (a[0], b[0]):
                return (f"no wrap-around: an ace is low before a 2 or high after a king, never between "
                        f"({shown})")
            return f"a run is given lowest first: {b} cannot follow {a} ({shown})"
        if rb - ra != j - i:
            missing = rb - ra - 1
            between = j - i - 1
            if missing > between:
                return (f"not consecutive: between {a} and {b} {missing} card{'s are' if missing != 1 else ' is'}"
                        f" missing, only {between} joker{'s' if between != 1 else ''} fill the gap ({shown})")
            return f"not consecutive: too many cards between {a} and {b} ({shown})"
    start = values[0] - placed[0][0]
    end = start + len(codes) - 1
    if start < 1:
        return f"no wrap-around: nothing can stand below a low ace ({shown})"
    if end > 14:
        return f"no wrap-around: nothing can stand above a high ace ({shown})"
    return f"not a run ({shown})"  # not reached: every reading the checks above pass is a valid run


def _validate_run(codes: list[str]) -> Meld:
    suit = next(c[1] for c in codes if c != JOKER)
    first = next(i for i, c in enumerate(codes) if c != JOKER)
    r0 = _rank(codes[first])
    starts = [r0 - first] + ([14 - first] if r0 == 1 else [])
    n = len(codes)
    for start in starts:
        end = start + n - 1
        if start < 1 or end > 14:
            continue
        ok = True
        previous_joker = False
        for i, c in enumerate(codes):
            if c == JOKER:
                if previous_joker:
                    ok = False
                    break
                previous_joker = True
                continue
            previous_joker = False
            position = start + i
            if _rank(c) != (1 if position == 14 else position):
                ok = False
                break
        if ok:
            stands_for = tuple(_code(start + i, suit) for i in range(n))
            points = sum(position_value(start + i) for i in range(n))
            return Meld(RUN, tuple(codes), stands_for, points, suit=suit, low=start)
    raise InvalidMeld(_run_error(codes))


def hand_augen(card: str) -> int:
    """Augen of one card in the hand: joker 20, ace 11, K Q J 10 → 10, others face value."""
    if card == JOKER:
        return JOKER_AUGEN
    r = _rank(card)
    return 11 if r == 1 else min(r, 10)


# ---------------------------------------------------------------------------------------------------------
# The solver.
#
# A hand is a multiset over 52 card kinds (two decks: up to two copies) plus jokers. The search takes the
# lowest card kind still undecided and either leaves one copy in the hand or puts it into a meld in which it
# is the lowest undecided card: a set with higher suits of its rank, a run upwards in its suit (with at most
# one joker below it, since anything lower is decided; from a low ace it may reach the other ace above the
# king), or, for an ace, a run downwards from the ace above the king. Results are memoised on the multiset
# that is left. A branch is cut when the most its cards could still add (each natural card at its best, no
# more jokers than natural cards less one, a joker towards the opening at most one place above the highest
# card, one card kept back) cannot beat what the state has.

MODE_POINTS = 0  # meld value towards the opening
MODE_AUGEN = 1  # Augen taken out of the hand
MODE_CARDS = 2  # number of cards laid

# A card kind's index is rank-major: (rank - 1) * 4 + suit_index, so all cards of a rank sit together.


def _kind(code: str) -> int:
    return (_rank(code) - 1) * 4 + SUITS.index(code[1])


def _kind_code(kind: int) -> str:
    return RANKS[kind // 4] + SUITS[kind % 4]


def _augen_of_kind(kind: int) -> int:
    r = kind // 4 + 1
    return 11 if r == 1 else min(r, 10)


def _place_scores(mode: int) -> tuple[list[int], list[int]]:
    """What a natural card and a joker add to a run's score at each place 0–14, in ``mode``."""
    places = range(15)
    if mode == MODE_POINTS:
        return [position_value(p) if p else 0 for p in places], [position_value(p) if p else 0 for p in places]
    if mode == MODE_CARDS:
        return [1] * 15, [1] * 15
    return [11 if p in (1, 14) else min(p, 10) for p in places], [JOKER_AUGEN] * 15


_PLACE_SCORES = {mode: _place_scores(mode) for mode in (MODE_POINTS, MODE_AUGEN, MODE_CARDS)}


def _run_cards(shape: tuple) -> tuple[str, ...]:
    """The cards of a run from its shape: (suit, first place, length, joker bit mask, direction)."""
    suit, low, length, jmask, step = shape
    cards = tuple(JOKER if jmask >> i & 1 else _code(low + i * step, suit) for i in range(length))
    return cards if step == 1 else cards[::-1]


def _meld_options(counts: bytearray, first: int, jokers: int, mode: int) -> list[tuple]:
    """Every meld in which kind ``first`` is the lowest undecided card, as (kinds, jokers, cards, score).

    A run's ``cards`` are its shape (suit, first place, length, joker bit mask, direction) until
    ``_run_cards`` lays them out.

    Melds that take the same cards and the same number of jokers leave the same hand behind, so only the
    best-scoring arrangement of each is kept (jokers at different places of a run, for instance).
    """
    found: dict[tuple[tuple[int, ...], int], tuple] = {}

    def keep(kinds: tuple[int, ...], j: int, cards: tuple[str, ...], score: int) -> None:
        key = (kinds, j)
        old = found.get(key)
        if old is None or score > old[3]:
            found[key] = (kinds, j, cards, score)

    r, suit_index = divmod(first, 4)
    r += 1
    suit = SUITS[suit_index]
    own = RANKS[r - 1] + suit
    own_augen = _augen_of_kind(first)
    # Sets: other suits above this one (lower suits of this rank are decided already).
    others = [s for s in range(suit_index + 1, 4) if counts[(r - 1) * 4 + s]]
    value = set_card_value(r)
    n_o = len(others)
    subsets: list[tuple[int, ...]] = []
    for a in range(n_o):
        subsets.append((others[a],))
        for b in range(a + 1, n_o):
            subsets.append((others[a], others[b]))
            for c in range(b + 1, n_o):
                subsets.append((others[a], others[b], others[c]))
    for sub in subsets:
        size = 1 + len(sub)
        kinds = tuple((r - 1) * 4 + s for s in sub)
        codes = (own,) + tuple(RANKS[r - 1] + SUITS[s] for s in sub)
        for j in range(0, min(jokers, size - 1, 4 - size) + 1):
            if size + j < 3:
                continue
            score = (value * (size + j), own_augen * size + JOKER_AUGEN * j, size + j)[mode]
            keep(kinds, j, codes + (JOKER,) * j, score)
    # Runs upwards from this card; an ace here is the low ace (a high ace above a king is handled below).
    # The run grows one place at a time with a natural card or a joker; its score is carried along, and
    # which places hold jokers is a bit mask, so a run becomes cards only if it is part of the answer.
    natural_score, joker_score = _PLACE_SCORES[mode]

    def extend(place: int, joker_last: bool, kinds: tuple[int, ...], j_used: int, naturals: int, length: int,
               jmask: int, step: int, low: int, score: int) -> None:
        nxt = place + step
        if nxt < 1 or nxt > 14:
            return
        # A natural ace above the king is found only upwards from the low ace, the other copy of its kind
        # (for any higher first card the aces are decided). Downwards from the high ace only a joker may
        # stand for the low ace: a natural one gives the same run as the search upwards from it.
        if step == 1 or nxt > 1:
            kind = ((nxt - 1) % 13) * 4 + suit_index
            if counts[kind]:
                more = kinds + (kind,)
                gained = score + natural_score[nxt]
                if length >= 2 and j_used <= naturals:
                    emit(more, j_used, gained, (suit, low, length + 1, jmask, step))
                extend(nxt, False, more, j_used, naturals + 1, length + 1, jmask, step, low, gained)
        if not joker_last and j_used < jokers:
            gained = score + joker_score[nxt]
            if length >= 2 and j_used + 1 < naturals:
                emit(kinds, j_used + 1, gained, (suit, low, length + 1, jmask | 1 << length, step))
            extend(nxt, True, kinds, j_used + 1, naturals, length + 1, jmask | 1 << length, step, low, gained)

    def emit(kinds: tuple[int, ...], j_used: int, score: int, shape: tuple) -> None:
        key = (kinds if shape[4] == 1 else kinds[::-1], j_used)
        old = found.get(key)
        if old is None or old[3] < score:
            found[key] = (key[0], j_used, shape, score)

    extend(r, False, (), 0, 1, 1, 0, 1, r, natural_score[r])
    if r >= 2 and jokers:
        # A joker just below: nothing lower than this card is left in the hand.
        extend(r, False, (), 1, 1, 2, 1, 1, r - 1, joker_score[r - 1] + natural_score[r])
    if r == 1:
        extend(14, False, (), 0, 1, 1, 0, -1, 14, natural_score[14])
    return list(found.values())


def _neighbours(kind: int, counts: bytearray) -> list[int]:
    """Card kinds in the hand that could share a meld with ``kind``: same rank in another suit, or same suit
    within two ranks (a gap of one may hold a joker; the ace is also next to the king)."""
    r, suit = divmod(kind, 4)
    found = [r * 4 + s for s in range(4) if s != suit and counts[r * 4 + s]]
    positions = (r + 1, 14) if r == 0 else (r + 1,)
    for p in positions:
        for d in (-2, -1, 1, 2):
            q = p + d
            if 1 <= q <= 14:
                k = ((q - 1) % 13) * 4 + suit
                if k != kind and counts[k] and k not in found:
                    found.append(k)
    return found


def _components(counts: bytearray) -> tuple[list[list[int]], list[int]]:
    """Split the natural cards into groups that can never share a meld; cards that fit nowhere go apart."""
    kinds = [k for k in range(52) if counts[k]]
    parent = {k: k for k in kinds}

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    isolated = []
    for k in kinds:
        near = _neighbours(k, counts)
        if not near:
            isolated.append(k)
        for n in near:
            parent[root(n)] = root(k)
    groups: dict[int, list[int]] = {}
    for k in kinds:
        if k not in isolated:
            groups.setdefault(root(k), []).append(k)
    return list(groups.values()), isolated


# The most a card can add to a score in each mode (a joker at most an ace's 11 towards the opening).
_MAX_POINTS = [11 if k // 4 == 0 else min(k // 4 + 1, 10) for k in range(52)]
_MAX = {MODE_POINTS: (_MAX_POINTS, 11), MODE_AUGEN: (_MAX_POINTS, JOKER_AUGEN), MODE_CARDS: ([1] * 52, 1)}
# Towards the opening a joker is worth its place, and it lies next to a natural card of its run or shares the
# rank of its set: so no joker is worth more than the place above the highest natural card left, by length
# of ``bytes(counts)`` without its trailing zeros (an ace, the lowest kind, is handled apart).
_JOKER_POINTS_BELOW = [0] + [position_value(min(k // 4 + 2, 14)) for k in range(52)]


# Maps a card count to "is there": the melds open to a card depend on which cards are there, not how many.
_PRESENT = bytes([0, 1, 1] + [1] * 253)


def _search(counts: bytearray, jokers: int, mode: int, *, keep_one: bool = False,
            budgets: Sequence[int] | None = None, options_memo: dict | None = None) -> list[tuple[int, tuple]]:
    """Memoised search over the lowest undecided card, with branch and bound.

    Returns the best (score, melds) for each joker budget in ``budgets`` (default: all jokers). A branch is
    skipped when even laying every card it leaves could not beat the best found for the same state, so
    every memoised value stays exact. ``keep_one``: at least one card (natural or joker) stays in the hand.
    ``options_memo`` may be shared by searches of one hand in one mode (see ``_options``).
    """
    card_max, joker_max = _MAX[mode]
    points = mode == MODE_POINTS
    memo: dict[tuple, tuple[int, tuple]] = {}
    impossible = (-(10**9), ())
    if options_memo is None:
        options_memo = {}

    def options_for(first: int, jk: int, left: bytes) -> list[tuple]:
        # Many states differ only in cards that cannot join a meld with ``first``: they share its options.
        # Those that can are its own suit above it and its own rank in higher suits (lower ones are decided),
        # and for an ace its other copy (the high ace of a run A 2 … K A).
        key = (first, jk, left[first + 4::4].translate(_PRESENT),
               left[first + 1:first - first % 4 + 4].translate(_PRESENT), first < 4 and left[first] > 1)
        found = options_memo.get(key)
        if found is None:
            found = []
            for kinds, used, cards, value in _meld_options(counts, first, jk, mode):
                # ``drop``: how much this meld's natural cards take out of the most the rest could still add.
                drop = 0
                for k in kinds:
                    drop += card_max[k]
                found.append((kinds, used, cards, value, drop))
            found.sort(key=lambda o: -o[3])
            options_memo[key] = found
        return found

    def rec(start: int, jk: int, kept: bool, naturals: int) -> tuple[int, tuple]:
        """The best for the cards from ``start`` on and ``jk`` jokers; ``naturals``: the most the natural
        cards left could add."""
        while start < 52 and not counts[start]:
            start += 1
        if start == 52:
            return (0, ()) if kept or jk or not keep_one else impossible
        left = bytes(counts)
        key = (left, jk, kept)
        hit = memo.get(key)
        if hit is not None:
            return hit
        count = sum(left)
        if count < 2:
            return (0, ())  # no meld is left to make (two natural cards and a joker are the least), a card stays
        joker = joker_max
        if points and start >= 4:
            joker = _JOKER_POINTS_BELOW[len(left.rstrip(b"\0"))]
        # Every meld holds more natural cards than jokers, so of ``count`` naturals at most ``count - 1``
        # jokers can be laid.
        potential = naturals + min(jk, count - 1) * joker
        ceiling = potential
        if keep_one and not kept:
            # A card must stay in the hand, so the best can be no more than all but the least card left;
            # a hand that nearly fits stops at that as soon as it is found. Above the aces a card's most
            # grows with its kind, so the least is the lowest kind left beyond the aces, an ace or a joker.
            least = card_max[start] if start < 4 else 10**9
            if jk:
                least = min(least, joker)
            k = max(start, 4)
            while k < 52 and not counts[k]:
                k += 1
            if k < 52:
                least = min(least, card_max[k])
            ceiling -= least
        counts[start] -= 1
        rest = naturals - card_max[start]
        best = impossible
        for kinds, used, cards, value, drop in options_for(start, jk, left):
            after = rest - drop
            count_after = count - 1 - len(kinds)
            if count_after < 2:
                if value <= best[0]:
                    continue
            elif value + after + min(jk - used, count_after - 1) * joker <= best[0]:
                continue
            for k in kinds:
                counts[k] -= 1
            sub = rec(start, jk - used, kept, after)
            for k in kinds:
                counts[k] += 1
            if sub[0] + value > best[0]:
                best = (sub[0] + value, (cards,) + sub[1])
                if best[0] >= ceiling:
                    break
        if (rest + min(jk, count - 2) * joker if count > 2 else 0) > best[0]:
            sub = rec(start, jk, keep_one, rest)  # this card stays in the hand
            if sub[0] > best[0]:
                best = sub
        counts[start] += 1
        memo[key] = best
        return best

    naturals = sum(card_max[k] * counts[k] for k in range(52))
    found = [rec(0, j, False, naturals) for j in (budgets if budgets is not None else [jokers])]
    # A set's cards are laid out already; a run's shape (its second item a number) is laid out now.
    return [(score, tuple(_run_cards(m) if isinstance(m[1], int) else m for m in melds)) for score, melds in found]


def _solve_group(counts: bytearray, jokers: int, mode: int, only_all: bool = False) -> list[tuple[int, tuple]]:
    """For one group of cards: the best (score, melds) using at most j jokers, for j = 0 … jokers."""
    return _search(counts, jokers, mode, budgets=[jokers] if only_all else range(jokers + 1))


def _solve(counts: bytearray, jokers: int, mode: int) -> tuple[int, tuple[tuple[str, ...], ...]]:
    """Best total of ``mode`` over disjoint melds from the hand; returns (score, melds).

    Groups of cards that cannot share a meld are solved apart, for every number of jokers they might get,
    and the jokers are then shared out between the groups (a small knapsack).
    """
    groups, _ = _components(counts)
    # best[j]: the best (score, melds) of the groups so far using at most j jokers.
    best: list[tuple[int, tuple]] = [(0, ())] * (jokers + 1)
    for group in groups:
        part = bytearray(52)
        for k in group:
            part[k] = counts[k]
        if len(groups) == 1:
            return _solve_group(part, jokers, mode, only_all=True)[-1]
        options = _solve_group(part, jokers, mode)
        merged = []
        for j in range(jokers + 1):
            top = best[j]
            for g in range(1, j + 1):
                score = best[j - g][0] + options[g][0]
                if score > top[0]:
                    top = (score, best[j - g][1] + options[g][1])
            score = best[j][0] + options[0][0]
            if score >= top[0]:
                top = (score, best[j][1] + options[0][1])
            merged.append(top)
        best = merged
    return best[jokers]


def _counts(hand: Iterable[str]) -> tuple[bytearray, int]:
    counts = bytearray(52)
    jokers = 0
    for card in hand:
        if card == JOKER:
            jokers += 1
        else:
            counts[_kind(card)] += 1
    return counts, jokers


def _without(hand: Sequence[str], melds: Iterable[Sequence[str]]) -> list[str]:
    rest = list(hand)
    for meld in melds:
        for card in meld:
            rest.remove(card)
    return rest


@dataclass(frozen=True)
class Opening:
    """The best opening a hand could lay now: its value, its melds and whether it reaches the limit."""

    value: int
    melds: tuple[tuple[str, ...], ...]
    reaches: bool

    def to_json(self) -> dict:
        return {"value": self.value, "melds": [list(m) for m in self.melds], "reaches": self.reaches}


def _best(hand: Sequence[str], mode: int, *, keep_one: bool) -> tuple[int, tuple[tuple[str, ...], ...]]:
    return _best_cached(tuple(sorted(hand)), mode, keep_one)


# Views, hints and bots ask about the same hands again and again (every seat's view after every move).
@lru_cache(maxsize=8192)
def _best_cached(hand: tuple[str, ...], mode: int, keep_one: bool) -> tuple[int, tuple[tuple[str, ...], ...]]:
    counts, jokers = _counts(hand)
    if keep_one and hand:
        groups, isolated = _components(counts)
        if len(groups) == 1 and not isolated:
            # One tangle of cards that might all fit: search once, keeping a card, instead of twice.
            return _solve_keeping_one(counts, jokers, mode)
    score, melds = _solve(counts, jokers, mode)
    if keep_one and hand and sum(len(m) for m in melds) >= len(hand):
        return _solve_keeping_one(counts, jokers, mode)
    return score, melds


def _solve_keeping_one(counts: bytearray, jokers: int, mode: int) -> tuple[int, tuple[tuple[str, ...], ...]]:
    """Like ``_solve``, for a hand that would fit entirely: the best that still keeps a card to discard."""
    return _search(counts, jokers, mode, keep_one=True)[0]


def best_opening(hand: Sequence[str], *, opening_points: int = 40) -> Opening:
    """The highest-valued set of melds the hand could lay in one action, keeping a card to discard.

    >>> best_opening(["QH", "KH", "JK", "7S", "7C", "7D", "2C"]).value
    52
    """
    value, melds = _best(list(hand), MODE_POINTS, keep_one=True)
    return Opening(value, melds, bool(melds) and value >= opening_points)


def best_layout(hand: Sequence[str]) -> tuple[tuple[tuple[str, ...], ...], int]:
    """The melds that leave the fewest Augen in the hand (keeping a card to discard), and those Augen."""
    removed, melds = _best(list(hand), MODE_AUGEN, keep_one=True)
    return melds, sum(hand_augen(c) for c in hand) - removed


def most_cards_layout(hand: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """The melds that lay the most cards of the hand, keeping a card to discard."""
    return _best(list(hand), MODE_CARDS, keep_one=True)[1]


def meld_codes_sorted(cards: Iterable[str]) -> list[str]:
    """Cards in the spec's sort order: Kreuz, Pik, Herz, Karo; rank; jokers last."""
    order = {s: i for i, s in enumerate("CSHD")}
    return sorted(cards, key=lambda c: (1, 0, 0) if c == JOKER else (0, order[c[1]], _rank(c)))
