"""WebSocket routes of the games app (joined into ginsite/asgi.py)."""

from django.urls import path

from games.web import consumers, notice_consumers

websocket_urlpatterns = [
    path("ws/table/<int:table_id>/", consumers.TableConsumer.as_asgi()),
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi()),
    path("ws/notices/", notice_consumers.NoticeConsumer.as_asgi()),
]
