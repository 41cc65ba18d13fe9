"""The ASGI layer of the body cap (ginsite/body_limit.py), for any server: 413 for a Content-Length past the
cap before the app runs, and for a streamed body once it passes the cap, without reading the rest."""

from __future__ import annotations

import pytest

from ginsite.body_limit import BodyLimitMiddleware


async def run(headers, messages, cap, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = cap
    read: list[dict] = []
    sent: list[dict] = []
    reached = []

    async def app(scope, receive, send):
        reached.append(True)
        while True:
            message = await receive()
            read.append(message)
            if message["type"] == "http.disconnect" or not message.get("more_body"):
                break
        if message["type"] == "http.request":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})

    queue = list(messages)

    async def receive():
        return queue.pop(0)

    async def send(message):
        sent.append(message)

    await BodyLimitMiddleware(app)({"type": "http", "headers": headers}, receive, send)
    return sent[0]["status"], reached, len(queue)


@pytest.mark.parametrize("length", [b"1025", b"99999999999999999999999999", b"-1", b"abc"])
async def test_a_content_length_past_the_cap_or_not_a_number_is_413_before_the_app(settings, length):
    status, reached, _left = await run([(b"content-length", length)], [], 1024, settings)
    assert status == 413 and not reached


async def test_a_streamed_body_past_the_cap_is_413_and_the_rest_is_not_read(settings):
    messages = [{"type": "http.request", "body": b"x" * 600, "more_body": True} for _ in range(10)]
    status, reached, left = await run([], messages, 1024, settings)
    assert status == 413 and reached
    assert left == 8  # two pieces read (1,200 bytes), eight never asked for


async def test_a_body_within_the_cap_reaches_the_app(settings):
    messages = [{"type": "http.request", "body": b"x" * 500, "more_body": False}]
    status, reached, _left = await run([(b"content-length", b"500")], messages, 1024, settings)
    assert status == 200 and reached
