"""The web edge of live play: pages (views, urls), sockets (consumers, routing, handshakes) and the
in-process referee's clock (timekeeper). It only translates: every write is a call into ``games.services``."""
