"""The last WebSocket route: a socket to a path no app serves (``/ws/table/abc/``, ``/ws/nothing/``) is
accepted and closed at once with code 4404, quietly. Without it Channels' router raises "No route found"
and the server logs a traceback for every such knock at the door."""

from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import re_path

#: The close code of docs/protocol.md for "there is nothing here" (as for a table that does not exist).
NOT_FOUND_CLOSE_CODE = 4404


class NotFoundConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        # Accept first so that the client learns why (a refused handshake tells a browser nothing).
        await self.accept()
        await self.close(code=NOT_FOUND_CLOSE_CODE)


websocket_urlpatterns = [re_path(r"", NotFoundConsumer.as_asgi())]
