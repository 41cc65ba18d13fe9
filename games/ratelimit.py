"""Limits on what one socket may send: a token bucket per connection, so that a client flooding the server
with messages (refused moves, chat, syncs, repeated readies) is told ``rate_limited`` instead of costing a database
transaction each. A legal move or a chat line that went through gives its token back: play at any speed the
rules allow is never slowed down (turns are their own limit, chat has its own per-user limit besides), while
everything that changes nothing, and every refusal, is counted.

Settings (``ginsite/settings.py``): ``GAMES_SOCKET_RATE`` tokens per second (5) and ``GAMES_SOCKET_BURST``
(60): a socket may send 60 such messages at once, then 5 a second. ``ping`` is always free.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings

#: Messages that cost nothing.
FREE = frozenset({"ping"})
#: Messages whose token comes back when the service accepted them (a change was made).
REFUNDED = frozenset({"move", "chat", "meld_preview"})  # a preview the builder asked for is play too

MESSAGE = "Zu viele Nachrichten auf einmal; bitte einen Moment warten."


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


def _bucket(consumer) -> TokenBucket:
    bucket = getattr(consumer, "_rate_bucket", None)
    if bucket is None:
        bucket = consumer._rate_bucket = bucket_for_socket()
    return bucket


def allow(consumer, kind) -> bool:
    """Whether this socket may send a message of ``kind`` now (spends a token unless it is free)."""
    return kind in FREE or _bucket(consumer).take()


def accepted(consumer, kind) -> None:
    """The service accepted the message: a move or chat line gives its token back."""
    if kind in REFUNDED:
        _bucket(consumer).give_back()
