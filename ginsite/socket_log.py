"""Autobahn (daphne's WebSocket protocol) pretty-prints its whole configuration for a debug log line at every
connection, whether or not anything logs at debug: ``pformat`` of ~40 settings in
``WebSocketProtocol._connectionMade``. Measured with py-spy during a burst of 1,000 handshakes on the
embedded stack, that was 8 % of the daphne process's CPU, more than the session and user reads.

``install()`` gives the module a ``pformat`` that formats when the log line is written (a debug observer
renders it the same), not when it is built."""

from __future__ import annotations

import pprint


class LazyFormat:
    """``pprint.pformat(value)``, computed when the text is asked for."""

    __slots__ = ("value",)

    def __init__(self, value) -> None:
        self.value = value

    def __str__(self) -> str:
        return pprint.pformat(self.value)

    __repr__ = __str__

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


def install() -> None:
    from autobahn.websocket import protocol

    protocol.pformat = LazyFormat  # type: ignore[assignment]
