"""The hidden-card audit of every API response (tests/api/conftest.py applies it to each request of the API's
tests, schemathesis's included): no answer may show a deal that is still secret.

Secret are the deals of rounds still being played, and every deal of a same-deals stage that some table of
it still plays (the other tables would learn their cards). A deal shows through as one of its hands (the
same cards, in any order) or as a run of its stock in order; finished matches' records are full of other
deals' cards, so single cards prove nothing, but a whole hand or an ordered run of the stock does.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

from django.db.models import Q

from games.engine.cards import is_card
from games.models import Round
from games.reads import selectors

#: The length of a run of the stock that counts as the stock shown.
STOCK_RUN = 6


def card_lists(value: Any) -> Iterator[list[str]]:
    """Every list in ``value`` whose items are all card codes (three or more of them)."""
    if isinstance(value, dict):
        for item in value.values():
            yield from card_lists(item)
    elif isinstance(value, list):
        if len(value) >= 3 and all(isinstance(v, str) and is_card(v, allow_joker=True) for v in value):
            yield value
        else:
            for item in value:
                yield from card_lists(item)


def secret_deals() -> list[dict]:
    """The deals nobody may see yet (read from the database at the time of the answer). A deal that is also
    a published one is not among them: its cards are out already (the tests deal every table the same cards
    unless a table is given a seed of its own: GAMES_TEST_DEAL_SEED)."""
    in_open_group = Q(match__table__deal_group__in=selectors.deal_groups_open())
    rounds = Round.objects.exclude(deal=None)
    secret = list(rounds.filter(Q(finished_at__isnull=True) | in_open_group).values_list("deal", flat=True))
    if not secret:
        return []
    published = {_key(deal) for deal in rounds.filter(finished_at__isnull=False).exclude(in_open_group)
                 .values_list("deal", flat=True)}
    return [deal for deal in secret if _key(deal) not in published]


def _key(deal: dict) -> str:
    return json.dumps({"hands": deal.get("hands"), "stock": deal.get("stock")}, sort_keys=True)


def leaks(documents: list[Any], deals: list[dict] | None = None) -> list[str]:
    """What of a secret deal ``documents`` (parsed JSON) show; ``deals`` default to the secret ones now (read
    only when an answer holds a list of cards at all)."""
    lists = [cards for doc in documents for cards in card_lists(doc)]
    if not lists:
        return []
    found = []
    for deal in secret_deals() if deals is None else deals:
        hands = {tuple(sorted(hand)) for hand in deal.get("hands", []) if len(hand) >= 3}
        stock = list(deal.get("stock") or [])
        runs = {tuple(stock[i:i + STOCK_RUN]) for i in range(len(stock) - STOCK_RUN + 1)}
        for cards in lists:
            if tuple(sorted(cards)) in hands:
                found.append(f"a hand of a secret deal: {cards}")
            if any(tuple(cards[i:i + STOCK_RUN]) in runs for i in range(len(cards) - STOCK_RUN + 1)):
                found.append(f"the stock of a secret deal: {cards}")
    return found


def documents_of(body: bytes, content_type: str) -> list[Any]:
    """The JSON documents of an answer: one, or one a line for NDJSON; none for HTML and the like."""
    if content_type.startswith("application/x-ndjson"):
        return [json.loads(line) for line in body.splitlines() if line.strip()]
    if content_type.startswith("application/json"):
        return [json.loads(body)] if body else []
    return []


def check(body: bytes, content_type: str, where: str) -> None:
    found = leaks(documents_of(body, content_type))
    assert not found, (where, found)


def audited_stream(chunks: Iterator[bytes], content_type: str, where: str) -> Iterator[bytes]:
    for chunk in chunks:
        check(chunk, content_type, where)
        yield chunk


async def audited_async_stream(chunks: AsyncIterator[bytes], content_type: str, where: str,
                               check_async: Any) -> AsyncIterator[bytes]:
    async for chunk in chunks:
        await check_async(chunk, content_type, where)
        yield chunk
