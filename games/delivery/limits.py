"""Limits on what one socket may send: a token bucket per connection, so that a client flooding the server
with messages (refused moves, chat, syncs, repeated readies, garbage) is told ``rate_limited`` instead of
costing a parse, a database transaction or an answer each.

Every message is charged as it arrives, before it is read: invalid JSON, an unknown type, a
``meld_preview`` or binary data cost a token like a refused move does. A legal move or a chat line that went
through gives its token back: play at any speed the rules allow is never slowed down (turns are their own
limit, chat has its own per-user limit besides), while everything that changes nothing, and every refusal,
is counted; a meld preview changes nothing, so it is charged too (the page asks once per set of chosen
cards: far below the burst). ``ping`` is free: its token comes back, and with the bucket empty a message
short enough to be a ping is still read to see whether it is one (the page's heartbeat must not die because
the same page flooded a moment ago).

A socket whose messages are refused ``GAMES_SOCKET_REFUSALS_TO_CLOSE`` times in a row (20; a ping answered
with the bucket empty neither counts nor breaks the row, nor does a message granted the one token a refill
brought: only a socket whose bucket has filled again is off the limit) is told why and closed with :data:`CLOSE_CODE`
(4429): a client that keeps sending into an empty bucket costs a read and an answer per message otherwise.
The table, lobby and notice sockets all work so.

Settings (``ginsite/settings.py``): ``GAMES_SOCKET_RATE`` tokens per second (5) and ``GAMES_SOCKET_BURST``
(60): a socket may send 60 such messages at once, then 5 a second.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings

#: Messages that cost nothing.
FREE = frozenset({"ping"})
#: Messages whose token comes back when the service accepted them (a change was made).
REFUNDED = frozenset({"move", "chat"})
#: The longest text read to see whether it is a ping while the bucket is empty (``{"type": "ping"}`` with
#: room for spaces); anything longer is refused unread.
PING_MAX_CHARS = 40

MESSAGE = "Zu viele Nachrichten auf einmal; bitte einen Moment warten."

#: The close code of a socket refused too often in a row (docs/protocol.md; the pages explain it).
CLOSE_CODE = 4429
CLOSE_MESSAGE = "Zu viele Nachrichten trotz Begrenzung: die Verbindung wird getrennt."


class TokenBucket:
    """``burst`` tokens, refilled at ``rate`` per second; each ``take`` spends one if there is one."""

    def __init__(self, *, rate: float, burst: int, clock: Callable[[], float] = time.monotonic):
        self.rate = float(rate)
        self.burst = float(burst)
        self.clock = clock
        self.tokens = float(burst)
        self.at = clock()

    def _refill(self) -> None:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now

    def take(self) -> bool:
        self._refill()
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def give_back(self) -> None:
        self._refill()
        self.tokens = min(self.burst, self.tokens + 1)


def bucket_for_socket() -> TokenBucket:
    return TokenBucket(rate=float(settings.GAMES_SOCKET_RATE), burst=int(settings.GAMES_SOCKET_BURST))


def _bucket(consumer: Any) -> TokenBucket:
    bucket = getattr(consumer, "_rate_bucket", None)
    if bucket is None:
        bucket = consumer._rate_bucket = bucket_for_socket()
    return bucket


def charge(consumer: Any) -> bool:
    """Spend a token for a message that has just arrived, before it is read: False if the bucket is empty.
    A message that got its token with more left in the bucket ends a row of refusals; one that got the
    only token a flood's refill brought does not (a flood just above the rate stays at the limit)."""
    bucket = _bucket(consumer)
    if bucket.take():
        if bucket.tokens >= 1:
            consumer._rate_refusals = 0
        return True
    return False


def refusals_to_close() -> int:
    """The refusals in a row after which a socket is closed (``GAMES_SOCKET_REFUSALS_TO_CLOSE``, 20)."""
    return int(settings.GAMES_SOCKET_REFUSALS_TO_CLOSE)


def refused(consumer: Any) -> bool:
    """A message was refused for an empty bucket: True once that has happened ``GAMES_SOCKET_REFUSALS_TO_CLOSE`` times in
    a row, and the socket is to be closed (:func:`closing` is True from then on)."""
    row = getattr(consumer, "_rate_refusals", 0) + 1
    consumer._rate_refusals = row
    if row >= refusals_to_close():
        consumer._rate_closing = True
        return True
    return False


def closing(consumer: Any) -> bool:
    """Whether the socket is being closed for refusals: what still arrives is dropped unread."""
    return getattr(consumer, "_rate_closing", False)


def is_ping(text: str | None) -> bool:
    """Whether ``text`` is a ping, read only if it is short enough to be one."""
    if text is None or len(text) > PING_MAX_CHARS:
        return False
    try:
        message = json.loads(text)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("type") == "ping"


def free(consumer: Any, kind: object) -> None:
    """The message was read and costs nothing (``ping``): its token comes back."""
    if kind in FREE:
        _bucket(consumer).give_back()


def accepted(consumer: Any, kind: object) -> None:
    """The service accepted the message: a move or chat line gives its token back."""
    if kind in REFUNDED:
        _bucket(consumer).give_back()


async def refuse(consumer: Any, *, version: int | None = None) -> None:
    """Answer a message refused for an empty bucket (``rate_limited``); on the ``GAMES_SOCKET_REFUSALS_TO_CLOSE``-th
    refusal in a row say so and close the socket with :data:`CLOSE_CODE`."""
    if refused(consumer):
        await consumer.send_error("rate_limited", CLOSE_MESSAGE, version=version)
        await consumer.close(code=CLOSE_CODE)
    else:
        await consumer.send_error("rate_limited", MESSAGE, version=version)
