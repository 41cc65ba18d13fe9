"""The ASGI entry point: HTTP through Django, WebSockets through Channels with the user's session.

Each app that speaks WebSocket lists its own routes (``<app>/routing.py``); they are joined here, and any
other path is closed quietly with 4404 (``ginsite/websocket_fallback.py``, always last).

Beyond the plain stack:

- A WebSocket handshake must come from the site's own origin, scheme, host and port (``SameOriginValidator``):
  channels' ``AllowedHostsOriginValidator`` looks at the host alone, so ``http://127.0.0.1:1`` passed on an
  HTTPS site.
- The user of a WebSocket is **not** loaded by a middleware of its own: channels' ``AuthMiddleware`` would
  spend a trip to the database thread on it before the consumer runs. The consumer loads it in its first
  database call instead (``games.web.consumers.resolve_user``), together with the table it asks for.
- Without Redis (the in-memory channel layer: one daphne process) the referee runs inside this process
  (``games.web.timekeeper``), so that its moves reach the sockets through the channel layer. It starts when
  daphne's reactor runs; ``GAMES_REFEREE_IN_PROCESS`` turns it on or off.
- When daphne's reactor runs, the process warms up (``games.web.warmup``): database connections, prepared
  reads and the channel layer's Redis connections are made before the first burst of sockets needs them.
- autobahn's debug line of every handshake is formatted only when written (``ginsite/socket_log.py``), and
  what starting up made is frozen out of the garbage collector's full collections (``ginsite/collector.py``).
"""

import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")

from django.core.asgi import get_asgi_application  # noqa: E402

# Django must be set up before anything imports models (the consumers do).
django_asgi_app = get_asgi_application()

from games.reads import records as records_export  # noqa: E402
from ginsite.body_limit import BodyLimitMiddleware, install_daphne_cap  # noqa: E402

install_daphne_cap()  # bodies past DATA_UPLOAD_MAX_MEMORY_SIZE: 413 while they arrive (ginsite/body_limit.py)

from ginsite import collector, socket_log  # noqa: E402

socket_log.install()  # autobahn's debug line of every handshake formatted only if written (ginsite/socket_log.py)

# With DEBUG off and no RECORDS_SIGNING_KEY the site refuses to start (ImproperlyConfigured says how to make one).
records_export.site_private_key()

from channels.auth import AuthMiddleware, UserLazyObject  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import WebsocketDenier  # noqa: E402
from channels.sessions import CookieMiddleware, SessionMiddleware  # noqa: E402
from django.conf import settings  # noqa: E402
from django.http.request import split_domain_port, validate_host  # noqa: E402
from django.utils.http import is_same_domain  # noqa: E402

from games.web import timekeeper, warmup  # noqa: E402
from games.web.routing import websocket_urlpatterns as games_websocket_urlpatterns  # noqa: E402
from ginsite.websocket_fallback import websocket_urlpatterns as fallback_urlpatterns  # noqa: E402


class DeferredAuthMiddleware(AuthMiddleware):
    """Puts an unresolved ``scope["user"]`` in place; the consumer resolves it in its own database call."""

    async def resolve_scope(self, scope):
        if not isinstance(scope.get("user"), UserLazyObject):
            scope["user"] = UserLazyObject()


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _headers(scope) -> dict[str, str]:
    headers: dict[str, str] = {}
    for name, value in scope.get("headers", []):
        headers.setdefault(name.decode("latin1").lower(), value.decode("latin1"))
    return headers


def _site_scheme(scope, headers: dict[str, str]) -> str:
    """``https`` or ``http``, as Django's ``request.is_secure()`` decides: a secure socket, or behind a proxy
    the header ``SECURE_PROXY_SSL_HEADER`` names (``X-Forwarded-Proto: https``)."""
    secure = scope.get("scheme") in ("wss", "https")
    if settings.SECURE_PROXY_SSL_HEADER:
        meta_name, secure_value = settings.SECURE_PROXY_SSL_HEADER
        said = headers.get(meta_name.removeprefix("HTTP_").replace("_", "-").lower())
        if said is not None:
            secure = said.split(",", 1)[0].strip() == secure_value
    return "https" if secure else "http"


def _trusted(origin: str, scheme: str, netloc: str) -> bool:
    """``CSRF_TRUSTED_ORIGINS`` as Django's CSRF check reads it: exact origins, or ``scheme://*.domain``."""
    for trusted in settings.CSRF_TRUSTED_ORIGINS:
        if "*" not in trusted:
            if origin == trusted.lower():
                return True
            continue
        trusted_scheme, _, trusted_netloc = trusted.lower().partition("://")
        if trusted_scheme == scheme and is_same_domain(netloc, trusted_netloc.replace("*", "", 1)):
            return True
    return False


def same_origin(scope) -> bool:
    """Whether a WebSocket handshake's ``Origin`` is the site itself: the same scheme (the request's, see
    ``_site_scheme``), host (the ``Host`` header, one of ``ALLOWED_HOSTS``) and port (the default one of the
    scheme when none is given), or one of ``CSRF_TRUSTED_ORIGINS`` (what Django's CSRF check accepts for a
    form). No ``Origin`` is refused: browsers always send one, and a script that leaves it out is no page."""
    headers = _headers(scope)
    origin = headers.get("origin", "").strip().lower()
    scheme, _, netloc = origin.partition("://")
    if scheme not in _DEFAULT_PORTS or not netloc or "/" in netloc or "@" in netloc:
        return False
    origin_host, origin_port = split_domain_port(netloc)
    if not origin_host or (origin_port and not origin_port.isdigit()):
        return False
    if _trusted(origin, scheme, netloc):
        return True
    site_scheme = _site_scheme(scope, headers)
    host_header = headers.get("x-forwarded-host") if settings.USE_X_FORWARDED_HOST else None
    host_header = host_header or headers.get("host")
    if host_header:
        site_host, site_port = split_domain_port(host_header.split(",")[0].strip())
    else:  # no Host header (an in-process test client): the site is the Origin's host, if it is one of ours
        server = scope.get("server")
        site_host, site_port = origin_host, str(server[1]) if server and server[1] else ""
    allowed_hosts = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed_hosts:
        allowed_hosts = [".localhost", "127.0.0.1", "[::1]"]  # as Django's request.get_host()
    if not site_host or not validate_host(site_host, allowed_hosts):
        return False
    return (
        scheme == site_scheme
        and origin_host == site_host
        and int(origin_port or _DEFAULT_PORTS[scheme]) == int(site_port or _DEFAULT_PORTS[site_scheme])
    )


class SameOriginValidator:
    """Lets a WebSocket handshake through only from the site's own origin (``same_origin``); any other is
    refused before anything runs (HTTP 403, as channels' own validators do)."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not same_origin(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)


def _start_with_daphne() -> None:
    """Under daphne (its Twisted reactor is installed before the application is imported), once the reactor
    runs: warm the process up (``games.web.warmup``: its database threads and channel layer ready before the
    first socket) and start the in-process referee where it runs here. Nothing happens under tests or other
    servers."""
    reactor_module = sys.modules.get("twisted.internet.reactor")
    if reactor_module is None or "daphne.server" not in sys.modules:
        return
    reactor_module.callWhenRunning(warmup.start)
    if timekeeper.wanted():
        reactor_module.callWhenRunning(timekeeper.start)


application = ProtocolTypeRouter(
    {
        "http": BodyLimitMiddleware(django_asgi_app),
        "websocket": SameOriginValidator(
            CookieMiddleware(SessionMiddleware(DeferredAuthMiddleware(URLRouter([*games_websocket_urlpatterns, *fallback_urlpatterns]))))
        ),
    }
)

# Every game's engine and bots are imported by now: each game's app registers its entry when Django is ready,
# and the entry imports them. Their modules build lookup tables on import (over a second on these machines),
# which are thus never paid inside the first handshake of a burst of sockets (a restart).
_start_with_daphne()

# Last: whatever starting up made is alive for good, so full collections need not walk it (ginsite/collector.py).
collector.freeze_start()
