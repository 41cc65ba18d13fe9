"""``/ws/notices/``: one socket per open tab of a signed-in person, on every page. It joins the person's
notice group (``games.notices.user_group``) and passes on what is sent there; on (re)connect it is first told
what is still pending (``games.selectors.notices_pending``). Idle it costs nothing: no polling, no database
work after the handshake, and the client only listens."""

from __future__ import annotations

from games import events, notices, ratelimit, selectors
from games.consumers import _JsonConsumer, resolve_user
from games.dbthread import in_thread


class NoticeConsumer(_JsonConsumer):
    async def connect(self):
        self.group = None
        user_id = await in_thread(self._user_id)()
        # Accepted first, so that the client learns why (a refused handshake tells a browser nothing).
        await self.accept()
        if user_id is None:
            await self.close(code=4403)
            return
        # In the group before the pending notices are read: a notice committed in between is either in what
        # is read or arrives on the group (the client shows a notice once however often it comes).
        self.group = notices.user_group(user_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        for frame in await in_thread(selectors.notices_pending)(user_id=user_id):
            await self.send_frame(frame)

    def _user_id(self) -> int | None:
        resolve_user(self.scope)
        user = self.scope.get("user")
        return user.pk if user is not None and user.is_authenticated else None

    async def disconnect(self, code):
        if getattr(self, "group", None) is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.group = None

    async def receive(self, text_data=None, bytes_data=None):
        # The socket only listens; whatever a client sends changes nothing. Charged as at a table
        # (games/ratelimit.py): a flood gets the burst of answers, then rate_limited, then the socket is closed.
        if ratelimit.closing(self):
            return
        if not ratelimit.charge(self):
            await ratelimit.refuse(self)
            return
        await self.send_error("bad_message", "Dieser Kanal sendet nur Hinweise; er nimmt keine Nachrichten an.")

    async def notice_frame(self, event):
        text = event.get("text")
        await self.send(text_data=text if text is not None else events.frame_text(event["frame"]))
