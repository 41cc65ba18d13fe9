"""Card codes, decks and shuffling, shared by both games.

A card is a two-character code: rank ``A23456789TJQK`` then suit ``C D H S`` (Kreuz, Karo, Herz, Pik);
Rommé adds the joker ``JK``. Codes are what records, views and the API speak; engines may map them to
small integers internally.

>>> rank_of("TD"), suit_of("TD"), card_index("TD")
(10, 'D', 22)
>>> card_from_index(22)
'TD'
>>> len(gin_deck()), len(romme_deck()), romme_deck().count("JK")
(52, 110, 6)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from games.engine.errors import InvalidCard

RANKS = "A23456789TJQK"
SUITS = "CDHS"
JOKER = "JK"

_RANK_NUMBER = {r: i + 1 for i, r in enumerate(RANKS)}
ALL_CARDS: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
_INDEX = {code: i for i, code in enumerate(ALL_CARDS)}


def is_card(code: object, *, allow_joker: bool = False) -> bool:
    """True for a valid card code (``JK`` only with ``allow_joker``)."""
    if not isinstance(code, str):
        return False
    return code in _INDEX or (allow_joker and code == JOKER)


def check_card(code: object, *, allow_joker: bool = False) -> str:
    """Return ``code`` if it is a card, else raise :class:`InvalidCard` saying why."""
    if is_card(code, allow_joker=allow_joker):
        return code  # type: ignore[return-value]
    if code == JOKER:
        raise InvalidCard("this game has no jokers (JK)")
    raise InvalidCard(f"not a card code: {code!r} (rank A23456789TJQK + suit CDHS, e.g. 'TD')")


def check_cards(codes: Iterable[object], *, allow_joker: bool = False) -> list[str]:
    """Validate many codes; raise :class:`InvalidCard` on the first bad one."""
    return [check_card(c, allow_joker=allow_joker) for c in codes]


def rank_of(code: str) -> int:
    """Rank number: ace 1, 2–10 face value, J 11, Q 12, K 13."""
    return _RANK_NUMBER[code[0]]


def suit_of(code: str) -> str:
    return code[1]


def card_index(code: str) -> int:
    """0–51: suit-major (clubs A..K, diamonds, hearts, spades). Not defined for the joker."""
    return _INDEX[code]


def card_from_index(index: int) -> str:
    return ALL_CARDS[index]


def gin_deck() -> list[str]:
    """The 52 cards, in a fixed order."""
    return list(ALL_CARDS)


def romme_deck() -> list[str]:
    """The 110 cards of Rommé: two 52-card decks and six jokers, in a fixed order."""
    return list(ALL_CARDS) * 2 + [JOKER] * 6


def shuffled(deck: Sequence[str], rng: random.Random) -> list[str]:
    """A shuffled copy of ``deck``. The site passes ``secrets.SystemRandom()``; tests pass a seeded one."""
    cards = list(deck)
    rng.shuffle(cards)
    return cards
