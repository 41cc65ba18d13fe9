"""The ASGI entry point: HTTP through Django, WebSockets through Channels with the user's session.

Each app that speaks WebSocket lists its own routes (``<app>/routing.py``); they are joined here, and any
other path is closed quietly with 4404 (``ginsite/websocket_fallback.py``, always last).

Two things beyond the plain stack:

- The user of a WebSocket is **not** loaded by a middleware of its own: channels' ``AuthMiddleware`` would
  spend a trip to the database thread on it before the consumer runs. The consumer loads it in its first
  database call instead (``games.consumers.resolve_user``), together with the table it asks for.
- Without Redis (the in-memory channel layer: one daphne process) the referee runs inside this process
  (``games.timekeeper``), so that its moves reach the sockets through the channel layer. It starts when
  daphne's reactor runs; ``GAMES_REFEREE_IN_PROCESS`` turns it on or off.
"""

import contextlib
import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")

from django.core.asgi import get_asgi_application  # noqa: E402

# Django must be set up before anything imports models (the consumers do).
django_asgi_app = get_asgi_application()

from games import records_export  # noqa: E402
from ginsite.body_limit import BodyLimitMiddleware, install_daphne_cap  # noqa: E402

install_daphne_cap()  # bodies past DATA_UPLOAD_MAX_MEMORY_SIZE: 413 while they arrive (ginsite/body_limit.py)

# With DEBUG off and no RECORDS_SIGNING_KEY the site refuses to start (ImproperlyConfigured says how to make one).
records_export.site_private_key()

from channels.auth import AuthMiddleware, UserLazyObject  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from channels.sessions import CookieMiddleware, SessionMiddleware  # noqa: E402

from games import engines, timekeeper  # noqa: E402
from games.routing import websocket_urlpatterns as games_websocket_urlpatterns  # noqa: E402
from ginsite.websocket_fallback import websocket_urlpatterns as fallback_urlpatterns  # noqa: E402


class DeferredAuthMiddleware(AuthMiddleware):
    """Puts an unresolved ``scope["user"]`` in place; the consumer resolves it in its own database call."""

    async def resolve_scope(self, scope):
        if not isinstance(scope.get("user"), UserLazyObject):
            scope["user"] = UserLazyObject()


def _start_referee_with_daphne() -> None:
    """Under daphne (its Twisted reactor is installed before the application is imported) start the
    in-process referee once the reactor runs. Nothing happens under tests or other servers."""
    reactor_module = sys.modules.get("twisted.internet.reactor")
    if reactor_module is None or "daphne.server" not in sys.modules or not timekeeper.wanted():
        return
    reactor_module.callWhenRunning(timekeeper.start)


application = ProtocolTypeRouter(
    {
        "http": BodyLimitMiddleware(django_asgi_app),
        "websocket": AllowedHostsOriginValidator(
            CookieMiddleware(SessionMiddleware(DeferredAuthMiddleware(URLRouter([*games_websocket_urlpatterns, *fallback_urlpatterns]))))
        ),
    }
)

def _warm_up() -> None:
    """Import every game's engine and bots now: their modules build lookup tables on import (over a second
    on these machines), which would otherwise be paid inside the first handshake, on the one database thread,
    with a burst of sockets waiting behind it (a restart)."""
    for game in engines.GAMES:
        engines.engine(game)
        with contextlib.suppress(ImportError):  # a game without bots yet
            engines.bots(game)


_warm_up()
_start_referee_with_daphne()
