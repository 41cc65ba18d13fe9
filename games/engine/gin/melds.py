"""Gin Rummy meld solver: the arrangement of a hand into sets and runs that leaves the least deadwood.

Cards are handled as bits of a 52-bit mask (bit = :func:`games.engine.cards.card_index`, suit-major, so a
run is a stretch of bits inside one suit's 13). Most hands have no card that both a run and a set want:
then every run stretch and every set is spread whole, read off lookup tables. For a 10- or 11-card hand
(:func:`best_melds`) the tangled ranks are tried each way to spread their set, each way scored by four
table look-ups; the mask solvers (:func:`deadwood_of`, :func:`arrange`) search the tangled rest (every
combination of up to three melds; a memoised recursion beyond eleven cards).

>>> best_melds(["7H", "7S", "7D", "8C", "9C", "TC", "2D", "3S", "KH", "QS"])
([['7D', '7H', '7S'], ['8C', '9C', 'TC']], 25)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from functools import lru_cache

from games.engine.cards import ALL_CARDS, check_card

#: Deadwood value of each card index: ace 1, 2–10 face value, J Q K 10.
VALUE: tuple[int, ...] = tuple(min(i % 13 + 1, 10) for i in range(52))
BIT: tuple[int, ...] = tuple(1 << i for i in range(52))
FULL_DECK = (1 << 52) - 1


def _build_tables() -> tuple[list[tuple[int, ...]], list[tuple[int, ...]], list[tuple[int, ...]]]:
    """Per card: the 3-card melds containing it, the sets in which it is the lowest bit, all melds with it."""
    small: list[list[int]] = [[] for _ in range(52)]
    sets_low: list[list[int]] = [[] for _ in range(52)]
    containing: list[list[int]] = [[] for _ in range(52)]
    for rank in range(13):
        cards = [s * 13 + rank for s in range(4)]
        for skip in range(4):  # the four 3-card sets of this rank
            trio = [c for i, c in enumerate(cards) if i != skip]
            mask = sum(BIT[c] for c in trio)
            for c in trio:
                small[c].append(mask)
                containing[c].append(mask)
            sets_low[trio[0]].append(mask)
        four = sum(BIT[c] for c in cards)
        sets_low[cards[0]].append(four)
        for c in cards:
            containing[c].append(four)
    for suit in range(4):
        for lo in range(13):
            for hi in range(lo + 2, 13):
                run = [suit * 13 + r for r in range(lo, hi + 1)]
                mask = sum(BIT[c] for c in run)
                for c in run:
                    containing[c].append(mask)
                    if hi == lo + 2:
                        small[c].append(mask)
    return ([tuple(x) for x in small], [tuple(x) for x in sets_low], [tuple(x) for x in containing])


_SMALL_MELDS, _SETS_LOW, _MELDS_WITH = _build_tables()
#: Memo of the least deadwood of a mask of meldable cards; bounded so a long-running process stays small.
_MEMO: dict[int, int] = {0: 0}
_MEMO_LIMIT = 2_000_000


def mask_of(cards: Iterable[str]) -> int:
    mask = 0
    bit_of = _BIT_OF
    for code in cards:
        mask |= bit_of[code]
    return mask


def _block_tables() -> tuple[tuple[tuple[int, ...], ...], ...]:
    block = range(1 << 13)
    return tuple(tuple(tuple(13 * suit + r for r in range(13) if b >> r & 1) for b in block) for suit in range(4))


#: Per suit, the card indexes of each 13-bit block: a mask's cards are four look-ups.
_INDEXES = _block_tables()
_BLOCK = (1 << 13) - 1


def indexes_of(mask: int) -> tuple[int, ...]:
    """Card indexes of a mask, in ascending order."""
    return (_INDEXES[0][mask & _BLOCK] + _INDEXES[1][(mask >> 13) & _BLOCK]
            + _INDEXES[2][(mask >> 26) & _BLOCK] + _INDEXES[3][mask >> 39])


def cards_of(mask: int) -> list[str]:
    """Codes of a mask, in index order (a run lowest first, a set in suit order C D H S)."""
    return [ALL_CARDS[i] for i in indexes_of(mask)]


_SUIT_BLOCK = (1 << 13) - 1
#: Bits where a 3-card run may start: ranks A..J of every suit (a run never crosses into the next suit).
_RUN_STARTS = sum(((1 << 11) - 1) << (13 * s) for s in range(4))


def _run_and_set_parts(mask: int) -> tuple[int, int]:
    """The cards of ``mask`` that lie in some 3-card run, and those in some 3-card set, within ``mask``."""
    starts = mask & (mask >> 1) & (mask >> 2) & _RUN_STARTS
    runs = starts | (starts << 1) | (starts << 2)
    a = mask & _SUIT_BLOCK
    b = (mask >> 13) & _SUIT_BLOCK
    c = (mask >> 26) & _SUIT_BLOCK
    d = mask >> 39
    ranks = (a & b & (c | d)) | (c & d & (a | b))
    sets = mask & (ranks | (ranks << 13) | (ranks << 26) | (ranks << 39))
    return runs, sets


def meldable_part(mask: int) -> int:
    """The cards of ``mask`` that belong to at least one meld made only of cards in ``mask``."""
    runs, sets = _run_and_set_parts(mask)
    return runs | sets


def _least(rem: int) -> int:
    """Least deadwood of the cards in ``rem`` (all of them meldable within the original hand)."""
    memo = _MEMO
    best = memo.get(rem)
    if best is not None:
        return best
    low = rem & -rem
    c = low.bit_length() - 1
    rest = rem ^ low
    best = VALUE[c] + _least(rest)
    if best:
        # Runs with c as their lowest card, as long as the suit goes on.
        rank = c % 13
        if rank <= 10 and rest & (low << 1) and rest & (low << 2):
            run = low | (low << 1) | (low << 2)
            length = 3
            while True:
                d = _least(rem ^ run)
                if d < best:
                    best = d
                    if not best:
                        break
                if rank + length > 12 or not rem & (low << length):
                    break
                run |= low << length
                length += 1
        if best:
            for meld in _SETS_LOW[c]:
                if rem & meld == meld:
                    d = _least(rem ^ meld)
                    if d < best:
                        best = d
                        if not best:
                            break
    if len(memo) > _MEMO_LIMIT:
        memo.clear()
        memo[0] = 0
    memo[rem] = best
    return best


_RANK_LINE = (1 << 0) | (1 << 13) | (1 << 26) | (1 << 39)


def _runs_of_ones(block: int) -> tuple[int, ...]:
    out = []
    while block:
        low = block & -block
        run = ((block + low) ^ block) & block  # the unbroken ones starting at the lowest
        out.append(run)
        block ^= run
    return tuple(out)


#: For each 13-bit suit block, its unbroken stretches of ones (a run never crosses into the next suit).
_STRETCHES: tuple[tuple[int, ...], ...] = tuple(_runs_of_ones(b) for b in range(1 << 13))


def _split(mask: int) -> tuple[list[int], int, int]:
    """Split ``mask`` into melds that are certainly best spread whole, the cards still to search, and the
    cards that fit no meld at all (certain deadwood).

    A maximal run with no card that a set also wants, and a set rank with no card that a run also
    wants, is spread whole in some best arrangement; only the tangled rest needs the search.
    """
    a = mask & _SUIT_BLOCK
    b = (mask >> 13) & _SUIT_BLOCK
    c = (mask >> 26) & _SUIT_BLOCK
    d = mask >> 39
    ra, rb, rc, rd = _RUN_PART[a], _RUN_PART[b], _RUN_PART[c], _RUN_PART[d]
    ranks = (a & b & (c | d)) | (c & d & (a | b))
    runs = ra | rb << 13 | rc << 26 | rd << 39
    sets = mask & ranks * _RANK_LINE
    blocks = _RUN_MASKS[0][ra] + _RUN_MASKS[1][rb] + _RUN_MASKS[2][rc] + _RUN_MASKS[3][rd]
    loose = mask & ~(runs | sets)
    if not runs & sets:
        return [*blocks, *(sets & (_RANK_LINE << r) for r in _INDEXES[0][ranks])], 0, loose
    whole: list[int] = []
    hard = 0
    for block in blocks:
        if block & sets:
            hard |= block
        else:
            whole.append(block)
    for r in _INDEXES[0][ranks]:
        group = sets & (_RANK_LINE << r)
        if group & runs:
            hard |= group
        else:
            whole.append(group)
    return whole, hard, loose


#: Deadwood points of each 13-bit suit block, so a mask's points are four table look-ups.
_BLOCK_POINTS: tuple[int, ...] = tuple(
    sum(min(r + 1, 10) for r in range(13) if block >> r & 1) for block in range(1 << 13)
)
#: Memo of whole-hand results (bots, views and legal actions ask about the same hands again and again).
_DEADWOOD: dict[int, int] = {}


def points_of(mask: int) -> int:
    """Deadwood points of all the cards of ``mask``."""
    return (_BLOCK_POINTS[mask & _SUIT_BLOCK] + _BLOCK_POINTS[(mask >> 13) & _SUIT_BLOCK]
            + _BLOCK_POINTS[(mask >> 26) & _SUIT_BLOCK] + _BLOCK_POINTS[mask >> 39])


def deadwood_of(mask: int) -> int:
    """Least deadwood of any set of cards given as a mask (any number of cards)."""
    known = _DEADWOOD.get(mask)
    if known is not None:
        return known
    a = mask & _SUIT_BLOCK
    b = (mask >> 13) & _SUIT_BLOCK
    c = (mask >> 26) & _SUIT_BLOCK
    d = mask >> 39
    ra, rb, rc, rd = _RUN_PART[a], _RUN_PART[b], _RUN_PART[c], _RUN_PART[d]
    ranks = (a & b & (c | d)) | (c & d & (a | b))
    if not ranks & (ra | rb | rc | rd):
        # No card is wanted by both a run and a set: every run stretch and every set melds whole.
        points = _BLOCK_POINTS
        keep = _SUIT_BLOCK ^ ranks
        total = points[a & keep ^ ra] + points[b & keep ^ rb] + points[c & keep ^ rc] + points[d & keep ^ rd]
    else:
        _, hard, loose = _split(mask)
        total = points_of(loose)
        total += points_of(hard) - _cover(hard)[0] if hard.bit_count() <= 11 else _least(hard)
    if len(_DEADWOOD) > _MEMO_LIMIT:
        _DEADWOOD.clear()
    _DEADWOOD[mask] = total
    return total


def _melds_in(rem: int, low: int) -> Iterator[int]:
    """Every meld inside ``rem`` whose lowest card is ``low`` (a bit of ``rem``)."""
    c = low.bit_length() - 1
    rank = c % 13
    if rank <= 10 and rem & (low << 1) and rem & (low << 2):
        run = low | (low << 1) | (low << 2)
        length = 3
        while True:
            yield run
            if rank + length > 12 or not rem & (low << length):
                break
            run |= low << length
            length += 1
    for meld in _SETS_LOW[c]:
        if rem & meld == meld:
            yield meld


def arrange(mask: int) -> tuple[list[int], int]:
    """A least-deadwood arrangement of ``mask``: (meld masks, deadwood)."""
    melds, deadwood = _arrange(mask)
    return list(melds), deadwood


def _cover(hard: int) -> tuple[int, tuple[int, ...]]:
    """The disjoint melds inside ``hard`` with the most points: (points melded, melds).

    Ten or eleven cards hold at most three melds, so three nested loops over the melds that fit try every
    combination; that beats a memoised recursion when nothing is cached yet.
    """
    a = hard & _SUIT_BLOCK
    b = (hard >> 13) & _SUIT_BLOCK
    c = (hard >> 26) & _SUIT_BLOCK
    d = hard >> 39
    melds = [*_SUB_RUNS[0][a], *_SUB_RUNS[1][b], *_SUB_RUNS[2][c], *_SUB_RUNS[3][d]]
    for r in _INDEXES[0][(a & b & (c | d)) | (c & d & (a | b))]:
        melds += _SUB_SETS[r][(a >> r & 1) | (b >> r & 1) << 1 | (c >> r & 1) << 2 | (d >> r & 1) << 3]
    meld_points = _MELD_POINTS
    values = [meld_points[m] for m in melds]
    everything = points_of(hard)  # once every card is melded nothing can beat it: stop there
    best = 0
    chosen: tuple[int, ...] = ()
    count = len(melds)
    for i in range(count):
        mi = melds[i]
        vi = values[i]
        if vi > best:
            best, chosen = vi, (mi,)
        for j in range(i + 1, count):
            mj = melds[j]
            if mi & mj:
                continue
            vij = vi + values[j]
            if vij > best:
                best, chosen = vij, (mi, mj)
                if best == everything:
                    return best, chosen
            mij = mi | mj
            for k in range(j + 1, count):
                if mij & melds[k]:
                    continue
                vijk = vij + values[k]
                if vijk > best:
                    best, chosen = vijk, (mi, mj, melds[k])
                    if best == everything:
                        return best, chosen
    return best, chosen


@lru_cache(maxsize=65536)
def _arrange(mask: int) -> tuple[tuple[int, ...], int]:
    melds, rem, loose = _split(mask)
    deadwood = points_of(loose)
    if rem and rem.bit_count() <= 11:  # at most three melds fit: the loops of _cover see them all
        melded, chosen = _cover(rem)
        melds.extend(chosen)
        deadwood += points_of(rem) - melded
        rem = 0
    while rem:
        target = _least(rem)
        low = rem & -rem
        for meld in _melds_in(rem, low):
            if _least(rem ^ meld) == target:
                melds.append(meld)
                rem ^= meld
                break
        else:
            rem ^= low  # the lowest open card is deadwood in every best arrangement of what is left
            deadwood += VALUE[low.bit_length() - 1]
    if len(melds) > 1:
        melds.sort(key=_MASK_ORDER.__getitem__)
    return tuple(melds), deadwood


def sort_melds(melds: Iterable[int]) -> list[int]:
    """Melds in display order: by the rank of their lowest card, then suit."""
    def key(meld: int) -> tuple[int, int]:
        first = (meld & -meld).bit_length() - 1
        return (first % 13, first // 13)
    return sorted(melds, key=key)


def all_arrangements(mask: int) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every way to spread melds from ``mask`` (each card in at most one meld, any card may stay out).

    Yields (meld masks, deadwood); the empty spread comes too. Used to choose the knocker's spread, where
    a higher-deadwood spread can be the better one.
    """
    meldable = meldable_part(mask)
    total = points_of(mask)

    def walk(rem: int) -> Iterator[tuple[int, ...]]:
        if not rem:
            yield ()
            return
        low = rem & -rem
        yield from walk(rem ^ low)
        for meld in _melds_in(rem, low):
            for tail in walk(rem ^ meld):
                yield (meld, *tail)

    for melds in walk(meldable):
        used = 0
        for meld in melds:
            used |= meld
        yield melds, total - points_of(used)


_BIT_OF: dict[str, int] = {code: BIT[i] for i, code in enumerate(ALL_CARDS)}


def check_hand(hand: object, *, sizes: tuple[int, ...] = (10, 11)) -> int:
    """Validate a hand of codes and return its mask; ValueError (InvalidCard for a bad code) says why."""
    if isinstance(hand, str | bytes) or not isinstance(hand, Iterable):
        raise ValueError(f"a hand is a list of card codes, not {type(hand).__name__}")
    codes = list(hand)
    mask = 0
    for code in codes:
        bit = _BIT_OF.get(code) if isinstance(code, str) else None
        if bit is None:
            check_card(code)  # raises InvalidCard with the reason
            raise AssertionError(f"no bit for the valid card {code!r}")
        mask |= bit
    if len(codes) not in sizes:
        wanted = " or ".join(str(s) for s in sizes)
        raise ValueError(f"a gin hand here has {wanted} cards, not {len(codes)}")
    if mask.bit_count() != len(codes):
        twice = sorted(code for code, copies in Counter(codes).items() if copies > 1)
        raise ValueError(f"duplicate card(s) in hand: {', '.join(twice)}")
    return mask


_ALL_MELDS = sorted({meld for melds in _MELDS_WITH for meld in melds})
#: Every possible meld's codes, so turning an arrangement into codes is a look-up per meld.
_MELD_CODES: dict[int, tuple[str, ...]] = {meld: tuple(cards_of(meld)) for meld in _ALL_MELDS}


def _long_stretches(block: int) -> int:
    return sum(x for x in _STRETCHES[block] if x.bit_count() >= 3)


#: Per 13-bit suit block: the cards lying in runs (stretches of three or more), and those runs' codes.
_RUN_PART: tuple[int, ...] = tuple(_long_stretches(b) for b in range(1 << 13))
def _sub_runs(block: int) -> tuple[int, ...]:
    """Every run (three or more in a row) made of cards of a 13-bit block."""
    out = []
    for stretch in _STRETCHES[block]:
        length = stretch.bit_count()
        if length < 3:
            continue
        lo = (stretch & -stretch).bit_length() - 1
        for start in range(lo, lo + length - 2):
            for size in range(3, lo + length - start + 1):
                out.append(((1 << size) - 1) << start)
    return tuple(out)


#: Per suit and 13-bit block: every run inside it; per rank and suit pattern: every set inside it.
_SUB_RUNS_0 = tuple(_sub_runs(b) for b in range(1 << 13))
_SUB_RUNS: tuple[tuple[tuple[int, ...], ...], ...] = (_SUB_RUNS_0,) + tuple(
    tuple(tuple(x << (13 * suit) for x in runs) for runs in _SUB_RUNS_0) for suit in (1, 2, 3)
)
_SUB_SETS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(
        tuple(m for m in (sum(1 << (13 * s + rank) for s in range(4) if keep >> s & 1) for keep in range(16))
              if m.bit_count() >= 3 and m & ~sum(1 << (13 * s + rank) for s in range(4) if pattern >> s & 1) == 0)
        for pattern in range(16)
    )
    for rank in range(13)
)
#: Per 13-bit suit block: the points of its cards outside runs.
_OFF_RUN_POINTS: tuple[int, ...] = tuple(_BLOCK_POINTS[b ^ _RUN_PART[b]] for b in range(1 << 13))
#: Per suit and 13-bit block: the masks of its runs (stretches of three or more).
_RUN_MASKS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(x << (13 * suit) for x in _STRETCHES[b] if x.bit_count() >= 3) for b in range(1 << 13))
    for suit in range(4)
)
_MELD_POINTS: dict[int, int] = {meld: points_of(meld) for meld in _ALL_MELDS}
_MASK_ORDER: dict[int, tuple[int, int]] = {
    meld: (((meld & -meld).bit_length() - 1) % 13, ((meld & -meld).bit_length() - 1) // 13) for meld in _ALL_MELDS
}


def _display_key(meld: int) -> int:
    """A meld's mask with its display position on top: sorting these plain ints puts melds in display order
    (rank of the lowest card, then suit) without a key function, and each still names its meld."""
    rank, suit = _MASK_ORDER[meld]
    return (rank * 4 + suit) << 52 | meld


#: The codes of every meld by its display key (see :func:`_display_key`).
_KEY_CODES: dict[int, tuple[str, ...]] = {_display_key(meld): codes for meld, codes in _MELD_CODES.items()}
#: Per suit and 13-bit block: the display keys of its runs (every stretch of three or more, spread whole).
_RUN_KEYS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(_display_key(run) for run in runs) for runs in _RUN_MASKS[suit]) for suit in range(4)
)
#: Per 13-bit mask of ranks: the 52-bit line of each of those ranks (its four cards), lowest rank first.
_RANK_LINES: tuple[tuple[int, ...], ...] = tuple(tuple(_RANK_LINE << r for r in _INDEXES[0][ranks])
                                                 for ranks in range(1 << 13))


def _set_choices(group: int) -> tuple[int, ...]:
    """The ways to spread the three or four cards of one rank in ``group``: all, each three of four, none.

    All comes first, so among equally good arrangements the one melding the most cards wins.
    """
    cards = [1 << i for i in range(52) if group >> i & 1]
    if len(cards) == 3:
        return (group, 0)
    return (group, *(group ^ card for card in cards), 0)


#: Per possible set (three or four cards of a rank, as a mask): its display key and its spreading choices.
_SET_KEY: dict[int, int] = {meld: _display_key(meld) for meld in _ALL_MELDS
                            if len({i % 13 for i in indexes_of(meld)}) == 1}
_SET_CHOICES: dict[int, tuple[int, ...]] = {meld: _set_choices(meld) for meld in _SET_KEY}


_RUN_KEYS_C, _RUN_KEYS_D, _RUN_KEYS_H, _RUN_KEYS_S = _RUN_KEYS
#: Per suit and 13-bit block: the codes of its runs (a hand with one run needs no key to sort by).
_RUN_CODES_C, _RUN_CODES_D, _RUN_CODES_H, _RUN_CODES_S = (
    tuple(tuple(_KEY_CODES[key] for key in keys) for keys in _RUN_KEYS[suit]) for suit in range(4)
)
_BIT_OF_CODE = _BIT_OF.__getitem__


def _suit_split(used: int) -> tuple[int, int, int, int]:
    return used & _SUIT_BLOCK, (used >> 13) & _SUIT_BLOCK, (used >> 26) & _SUIT_BLOCK, used >> 39


#: Per possible set: its spreading choices as (display keys of the set spread, none or one; cards used per
#: suit block).
_SET_SPLIT_CHOICES: dict[int, tuple[tuple[tuple[int, ...], int, int, int, int], ...]] = {
    meld: tuple(((_SET_KEY[used],) if used else (), *_suit_split(used)) for used in choices)
    for meld, choices in _SET_CHOICES.items()
}


def _spread(keys: tuple[int, ...] | list[int]) -> list[list[str]]:
    """Fresh code lists of the melds with these display keys, in display order (no caller shares a table)."""
    codes = _KEY_CODES
    if len(keys) == 2:
        first, second = keys
        if first > second:
            first, second = second, first
        return [[*codes[first]], [*codes[second]]]
    return [[*codes[k]] for k in sorted(keys)]


def best_melds(hand: Iterable[str]) -> tuple[list[list[str]], int]:
    """The least-deadwood arrangement of a 10- or 11-card hand: (melds as lists of codes, deadwood).

    For 11 cards the deadwood counts all 11 (no discard is assumed). A bad code, a duplicate or a wrong
    count raises ValueError with a clear message.

    Every arrangement is a choice, per rank holding three or four cards, of which of them form a set, the
    rest of each suit then melding its stretches of three or more whole. A set whose cards no run wants is
    always spread whole, so only the ranks a run also wants are tried each way (at most 6 × 6 × 2 choices
    in eleven cards), each scored by four table look-ups.

    >>> best_melds(["AS", "2S", "3S", "4S", "5D", "5H", "5C", "KD", "KH", "QS"])
    ([['AS', '2S', '3S', '4S'], ['5C', '5D', '5H']], 30)
    """
    # The fast path for a well-formed list; anything odd goes through check_hand for the exact error. A sum
    # of n distinct bits has n bits set, and a repeated bit carries into fewer, so the count check below
    # also catches duplicates.
    try:
        count = len(hand)  # type: ignore[arg-type]  # before iterating: a generator fails here and goes to check_hand unconsumed
        mask = sum(map(_BIT_OF_CODE, hand))
    except (KeyError, TypeError):
        mask = check_hand(hand)  # a string, a generator, a bad code...: validated (and consumed) once
        count = mask.bit_count()
    if (count != 10 and count != 11) or mask.bit_count() != count:
        mask = check_hand(hand)
    a = mask & _SUIT_BLOCK
    b = (mask >> 13) & _SUIT_BLOCK
    c = (mask >> 26) & _SUIT_BLOCK
    d = mask >> 39
    off = _OFF_RUN_POINTS
    ranks = (a & b & (c | d)) | (c & d & (a | b))
    if not ranks:
        # No set at all (most hands): the runs are read off the tables.
        runs = _RUN_CODES_C[a] + _RUN_CODES_D[b] + _RUN_CODES_H[c] + _RUN_CODES_S[d]
        if not runs:
            return [], off[a] + off[b] + off[c] + off[d]
        if len(runs) == 1:
            return [[*runs[0]]], off[a] + off[b] + off[c] + off[d]
        run_keys = _RUN_KEYS_C[a] + _RUN_KEYS_D[b] + _RUN_KEYS_H[c] + _RUN_KEYS_S[d]
        return _spread(run_keys), off[a] + off[b] + off[c] + off[d]
    run_part = _RUN_PART
    tangled = ranks & (run_part[a] | run_part[b] | run_part[c] | run_part[d])
    set_key = _SET_KEY
    if not tangled:
        # No run wants a card of any set: every set is spread whole, then every run.
        keys = []
        for line in _RANK_LINES[ranks]:  # a loop: a comprehension costs a function call (Python 3.11)
            keys.append(set_key[mask & line])
        keep = _SUIT_BLOCK ^ ranks
        a &= keep
        b &= keep
        c &= keep
        d &= keep
    elif not tangled & (tangled - 1):
        # One rank both a set and a run want: try each way to spread it, scored on the four suit blocks.
        loose = ranks ^ tangled
        keys = []
        for line in _RANK_LINES[loose]:
            keys.append(set_key[mask & line])
        keep = _SUIT_BLOCK ^ loose
        a &= keep
        b &= keep
        c &= keep
        d &= keep
        best = 1000
        for choice in _SET_SPLIT_CHOICES[mask & (_RANK_LINE << tangled.bit_length() - 1)]:
            _, used_a, used_b, used_c, used_d = choice
            points = off[a ^ used_a] + off[b ^ used_b] + off[c ^ used_c] + off[d ^ used_d]
            if points < best:
                best = points
                chosen = choice
                if not points:
                    break
        spread, used_a, used_b, used_c, used_d = chosen
        keys += spread
        a ^= used_a
        b ^= used_b
        c ^= used_c
        d ^= used_d
    else:
        # Two or three tangled ranks: every way to spread the first against every way to spread the others.
        loose = ranks ^ tangled
        keys = []
        for line in _RANK_LINES[loose]:
            keys.append(set_key[mask & line])
        keep = _SUIT_BLOCK ^ loose
        a &= keep
        b &= keep
        c &= keep
        d &= keep
        split = _SET_SPLIT_CHOICES
        first, second, *third = (split[mask & line] for line in _RANK_LINES[tangled])
        if third:
            second = tuple([(k2 + k3, a2 | a3, b2 | b3, c2 | c3, d2 | d3)
                            for k2, a2, b2, c2, d2 in second for k3, a3, b3, c3, d3 in third[0]])
        best = 1000
        for one in first:
            _, a1, b1, c1, d1 = one
            a1 ^= a
            b1 ^= b
            c1 ^= c
            d1 ^= d
            for other in second:
                _, a2, b2, c2, d2 = other
                points = off[a1 ^ a2] + off[b1 ^ b2] + off[c1 ^ c2] + off[d1 ^ d2]
                if points < best:
                    best = points
                    chosen_pair = (one, other)
        for spread, used_a, used_b, used_c, used_d in chosen_pair:
            keys += spread
            a ^= used_a
            b ^= used_b
            c ^= used_c
            d ^= used_d
    run_keys = _RUN_KEYS_C[a] + _RUN_KEYS_D[b] + _RUN_KEYS_H[c] + _RUN_KEYS_S[d]
    if run_keys:
        keys += run_keys
    if len(keys) == 1:
        return [[*_KEY_CODES[keys[0]]]], off[a] + off[b] + off[c] + off[d]
    return _spread(keys), off[a] + off[b] + off[c] + off[d]


def clear_caches() -> None:
    """Forget every memoised result (for cold-cache measurements); best_melds itself keeps none."""
    _MEMO.clear()
    _MEMO[0] = 0
    _DEADWOOD.clear()
    _arrange.cache_clear()
