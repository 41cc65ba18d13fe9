"""autobahn's debug line of every WebSocket handshake is formatted only when something writes it
(``ginsite.socket_log``), and reads the same when it is."""

from __future__ import annotations

import pprint

from twisted.logger import Logger, formatEvent


def test_the_served_application_installs_the_lazy_format():
    from autobahn.websocket import protocol

    import ginsite.asgi  # noqa: F401 - what daphne imports
    from ginsite.socket_log import LazyFormat

    assert protocol.pformat is LazyFormat


def test_a_handshake_log_line_is_not_formatted_until_written_and_then_reads_as_pprint(monkeypatch):
    from ginsite.socket_log import LazyFormat

    calls = []
    real = pprint.pformat
    monkeypatch.setattr(pprint, "pformat", lambda value: calls.append(value) or real(value))
    settings = [("autoPingInterval", 0, "WebSocketServerFactory"), ("openHandshakeTimeout", 5, "Factory")] * 5
    events = []
    log = Logger(observer=events.append)
    log.debug("\n{attrs}", attrs=LazyFormat(settings))
    assert calls == []  # built and handed to the logger: nothing formatted
    assert formatEvent(events[0]) == "\n" + real(settings)
    assert calls == [settings]
