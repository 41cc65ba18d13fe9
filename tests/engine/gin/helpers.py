"""Deals written out card by card, and a short way to play moves on them."""

from __future__ import annotations

from games.engine.cards import ALL_CARDS
from games.engine.gin import match as gin


def cards(text: str) -> list[str]:
    return text.split()


def deal(hand0: str, hand1: str, upcard: str, stock_top: str = "") -> dict:
    """A full 52-card deal: the hands and upcard given, the stock starting with ``stock_top``."""
    hands = [cards(hand0), cards(hand1)]
    top = cards(stock_top)
    used = [*hands[0], *hands[1], upcard, *top]
    assert len(hands[0]) == len(hands[1]) == 10, "each hand is 10 cards"
    assert len(set(used)) == len(used), "a card written twice"
    rest = [c for c in ALL_CARDS if c not in used]
    return {"hands": hands, "upcard": upcard, "stock": top + rest}


def start(hand0: str, hand1: str, upcard: str, stock_top: str = "", *, dealer: int = 0, **options) -> gin.Match:
    return gin.match_from_deal(options, players=["anna", "ben"], dealer=dealer,
                               **deal(hand0, hand1, upcard, stock_top))


def play(m: gin.Match, *moves: tuple[int, dict]) -> gin.Match:
    for seat, action in moves:
        m = gin.apply_action(m, seat, action)
    return m


PASS = {"action": "pass"}
STOCK = {"action": "draw", "from": "stock"}
PILE = {"action": "draw", "from": "discard"}


def discard(card: str) -> dict:
    return {"action": "discard", "card": card}


def knock(card: str) -> dict:
    return {"action": "knock", "card": card}


def both_pass_then(m: gin.Match) -> gin.Match:
    """The classic first turn with both players passing the upcard: the non-dealer is to draw from stock."""
    non_dealer = 1 - m.dealer
    return play(m, (non_dealer, PASS), (m.dealer, PASS))
