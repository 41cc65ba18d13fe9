"""The WebSocket Origin check honours scheme, host and port (issue 25, ``ginsite.asgi.same_origin``): a page of
the site itself gets its socket; ``http://127.0.0.1:1`` on an HTTPS site, another port, another scheme or
another host is refused at the handshake, on the real ASGI app. Behind the proxy the scheme is the one
``X-Forwarded-Proto`` names (``SECURE_PROXY_SSL_HEADER``, set with DEBUG off); ``CSRF_TRUSTED_ORIGINS`` are
accepted as Django's CSRF check accepts them."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator

pytestmark = pytest.mark.django_db(transaction=True)


async def handshake(headers: dict[str, str], path: str = "/ws/lobby/") -> bool:
    from ginsite.asgi import application

    communicator = WebsocketCommunicator(application, path,
                                         headers=[(k.encode(), v.encode()) for k, v in headers.items()])
    connected, _ = await communicator.connect(timeout=5)
    if connected:
        await communicator.disconnect()
    return connected


@pytest.fixture
def https_site(settings):
    """The production settings' view of a request: TLS ends at the proxy, which says so in X-Forwarded-Proto."""
    settings.ALLOWED_HOSTS = ["rommé.example", "127.0.0.1"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.CSRF_TRUSTED_ORIGINS = []


BEHIND_TLS = {"host": "127.0.0.1", "x-forwarded-proto": "https"}


@pytest.mark.parametrize("origin, accepted", [
    ("https://127.0.0.1", True),
    ("HTTPS://127.0.0.1:443", True),  # the default port, spelt out
    ("http://127.0.0.1:1", False),  # the case: another scheme and port
    ("http://127.0.0.1", False),  # plain http on an HTTPS site
    ("https://127.0.0.1:8443", False),  # another port
    ("https://127.0.0.1.evil.example", False),
    ("https://evil.example", False),
    ("null", False),
    ("https://127.0.0.1:abc", False),
])
async def test_behind_tls_only_the_https_origin_of_the_host_is_accepted(https_site, origin, accepted):
    assert await handshake({**BEHIND_TLS, "origin": origin}) is accepted


async def test_no_origin_is_refused(https_site):
    assert await handshake(BEHIND_TLS) is False


async def test_the_proxy_header_decides_the_scheme(https_site):
    plain = {"host": "127.0.0.1", "x-forwarded-proto": "http"}
    assert await handshake({**plain, "origin": "http://127.0.0.1"}) is True
    assert await handshake({**plain, "origin": "https://127.0.0.1"}) is False


async def test_a_host_outside_allowed_hosts_is_refused_even_from_its_own_origin(https_site):
    assert await handshake({"host": "evil.example", "x-forwarded-proto": "https", "origin": "https://evil.example"}) is False


@pytest.mark.parametrize("origin, accepted", [
    ("http://127.0.0.1:8000", True),
    ("http://127.0.0.1:8001", False),
    ("https://127.0.0.1:8000", False),
    ("http://localhost:8000", False),  # another host than the page's, though an allowed one
])
async def test_make_runs_site_accepts_its_own_port_only(settings, origin, accepted):
    settings.SECURE_PROXY_SSL_HEADER = None
    assert await handshake({"host": "127.0.0.1:8000", "origin": origin}) is accepted


async def test_trusted_origins_are_accepted_as_for_forms(https_site, settings):
    # Behind nginx the Host header loses the port (make run-scaled): the site names its origin itself.
    settings.CSRF_TRUSTED_ORIGINS = ["http://127.0.0.1:8000", "https://*.romme.example"]
    plain = {"host": "127.0.0.1", "x-forwarded-proto": "http"}
    assert await handshake({**plain, "origin": "http://127.0.0.1:8000"}) is True
    assert await handshake({**plain, "origin": "http://127.0.0.1:8001"}) is False
    assert await handshake({**plain, "origin": "https://tisch.romme.example"}) is True
    assert await handshake({**plain, "origin": "http://tisch.romme.example"}) is False


async def test_table_and_notice_sockets_are_checked_too(https_site):
    for path in ("/ws/table/1/", "/ws/notices/"):
        assert await handshake({**BEHIND_TLS, "origin": "http://127.0.0.1:1"}, path) is False
