"""A cap on request bodies (DATA_UPLOAD_MAX_MEMORY_SIZE, read when a request comes in), refused before they
are read.

Two layers, because the server reads before the application does:

- ``BodyLimitMiddleware`` (ASGI, every server): a ``Content-Length`` beyond the cap gets 413 before any of
  the body is read; a body without one (chunked) is counted as it arrives and refused with 413 once past
  the cap, without reading the rest.
- ``install_daphne_cap()``: daphne (Twisted) would first take the whole body in (to a temporary file) and
  then hand all of it to the application queue at once, in memory. The cap makes daphne answer 413 and
  close the connection as soon as the headers announce too much, or the received chunks pass the cap.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

MESSAGE = "Die Anfrage ist zu groß (höchstens %d kB)."


def body_cap() -> int:
    """The largest body a request may have, in bytes (a pasted record or a form: DATA_UPLOAD_MAX_MEMORY_SIZE)."""
    return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)


def _too_large_body() -> bytes:
    return (MESSAGE % (body_cap() // 1024)).encode("utf-8")


class BodyLimitMiddleware:
    """ASGI middleware: HTTP requests whose body passes ``body_cap()`` get 413 and never reach the app."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def _refuse(self, send: Any) -> None:
        body = _too_large_body()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(body)).encode()), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        cap = body_cap()
        for name, value in scope.get("headers", []):
            if name.lower() == b"content-length" and (not value.strip().isdigit() or len(value) > 18
                                                       or int(value) > cap):
                return await self._refuse(send)
        seen = 0
        refused = False
        started = False

        async def capped_receive() -> dict:
            nonlocal seen, refused
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > cap:
                    refused = True
                    return {"type": "http.disconnect"}  # the app stops reading (Django: RequestAborted)
            return message

        async def watched_send(message: dict) -> None:
            nonlocal started
            if refused and not started:
                return
            started = True
            await send(message)

        await self.app(scope, capped_receive, watched_send)
        if refused and not started:
            await self._refuse(send)


def install_daphne_cap() -> None:
    """Makes daphne refuse a body past ``body_cap()`` while it arrives (once per process)."""
    try:
        from daphne.http_protocol import WebRequest
    except ImportError:  # another ASGI server: the middleware alone
        return
    if getattr(WebRequest, "_ginsite_body_cap", False):
        return
    got_length, content_chunk, process = WebRequest.gotLength, WebRequest.handleContentChunk, WebRequest.process

    def refuse(request: Any) -> None:
        request._ginsite_refused = True
        body = _too_large_body()
        transport = request.channel.transport
        transport.write(b"HTTP/1.1 413 Payload Too Large\r\nContent-Type: text/plain; charset=utf-8\r\n"
                        b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))
        transport.loseConnection()

    def capped_got_length(self: Any, length: int | None) -> None:
        self._ginsite_seen = 0
        self._ginsite_refused = False
        if length is not None and length > body_cap():
            refuse(self)
        got_length(self, None if self._ginsite_refused else length)

    def capped_content_chunk(self: Any, data: bytes) -> None:
        if getattr(self, "_ginsite_refused", False):
            return
        self._ginsite_seen = getattr(self, "_ginsite_seen", 0) + len(data)
        if self._ginsite_seen > body_cap():
            refuse(self)
            return
        content_chunk(self, data)

    def capped_process(self: Any) -> Any:
        if getattr(self, "_ginsite_refused", False):
            return None
        return process(self)

    WebRequest.gotLength = capped_got_length
    WebRequest.handleContentChunk = capped_content_chunk
    WebRequest.process = capped_process
    WebRequest._ginsite_body_cap = True
