"""WebSocket routes of the games app (joined into ginsite/asgi.py)."""

websocket_urlpatterns: list = []
