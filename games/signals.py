"""The signals the games app sends for other apps to hang their work on.

``match_ended`` is sent once a match's end is committed **and its last frames are out** (see
``games.services.ending`` and ``games.delivery.events.after_fanout``), never inside the transaction, so a listener's
failure can never undo the last move and a player never waits for a listener to see the last card fall.
Listeners (ratings, tournaments) must be idempotent: the clock's catch-up sends it again for ended matches
whose announcement was not confirmed. They run in the order ``settings.GAMES_MATCH_ENDED_ORDER`` names
them (ratings before tournaments: a next stage seeds by rating), not in the order their apps happen to be
installed.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from django.conf import settings
from django.dispatch import Signal


class OrderedSignal(Signal):
    """A signal whose receivers run in a written-down order: those whose ``dispatch_uid`` is named in the
    list ``order()`` gives (read when a receiver connects: a setting) first, in that order; any others after
    them, in the order they connected."""

    def __init__(self, *, order: Callable[[], list[str]]) -> None:
        super().__init__()
        self._order = order

    def order(self) -> list[str]:
        return list(self._order())

    def connect(self, receiver: Callable, sender: object | None = None, weak: bool = True,
                dispatch_uid: Hashable | None = None) -> None:
        super().connect(receiver, sender=sender, weak=weak, dispatch_uid=dispatch_uid)
        self._sort()

    def _sort(self) -> None:
        order = {uid: place for place, uid in enumerate(self.order())}
        with self.lock:
            # Each entry starts with its lookup key, (dispatch_uid or the receiver's id, the sender's id).
            # sort() is stable: receivers not named keep the order they connected in.
            self.receivers.sort(key=lambda entry: order.get(entry[0][0], len(order)))
            self.sender_receivers_cache.clear()

    def receiver_uids(self) -> list:
        """The dispatch uids (or receiver ids) in the order the receivers run: what a test checks."""
        with self.lock:
            return [entry[0][0] for entry in self.receivers]


#: Sent with ``match_id`` (int) and ``how`` (one of ``games.models.Match.Ending``: "finished", "resigned",
#: "timeouts", "aborted"). ``sender`` is ``games.models.Match``.
match_ended = OrderedSignal(order=lambda: settings.GAMES_MATCH_ENDED_ORDER)

#: Sent by every referee (the one inside daphne, ``games.web.timekeeper``, and ``manage.py referee``) at most
#: once every ``GAMES_TICK_SECONDS`` (no arguments but ``sender``), so other apps do their timed work on the
#: referee's clock (the ranked pool's widening window, a tournament's start, breaks and forfeits) without
#: the games app knowing them. Listeners must be quick, idempotent and safe to run in several referees at
#: once; what they send to sockets goes out like any move's frames.
referee_tick = Signal()
