"""The ASGI entry point: HTTP through Django, WebSockets through Channels with the user's session.

Each app that speaks WebSocket lists its own routes (``<app>/routing.py``); they are joined here, and any
other path is closed quietly with 4404 (``ginsite/websocket_fallback.py``, always last).
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")

from django.core.asgi import get_asgi_application  # noqa: E402

# Django must be set up before anything imports models (the consumers do).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from games.routing import websocket_urlpatterns as games_websocket_urlpatterns  # noqa: E402
from ginsite.websocket_fallback import websocket_urlpatterns as fallback_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter([*games_websocket_urlpatterns, *fallback_urlpatterns]))),
    }
)
