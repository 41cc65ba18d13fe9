"""``/ws/notices/``: one socket per open tab of a signed-in person, on every page. It joins the person's
notice group (``games.delivery.notices.user_group``) and passes on what is sent there; on (re)connect it is first told
what is still pending (``games.reads.selectors.notices_pending``). Idle it costs nothing: no polling, no database
work after the handshake, and the client only listens."""

from __future__ import annotations

from games.delivery import events, notices
from games.delivery import limits as ratelimit
from games.reads import selectors
from games.web import handshakes
from games.web.consumers import _JsonConsumer, _signed_out, regroup
from games.web.dbthread import in_thread


class NoticeConsumer(_JsonConsumer):
    async def connect(self):
        self.group = None
        self.person = None
        #: The once-keys (games.delivery.notices.once_key) of the notices this socket has told.
        self.told: set[str] = set()
        if not handshakes.take_address(self):
            await self.accept()  # accepted so that the client learns why
            await self._refuse_too_many("address")
            return
        # Who this is, read before the socket is accepted (unlike a table socket, which its public group
        # covers meanwhile): a client whose socket is open hears every notice sent after. Batched with the
        # other handshakes arriving now (games.web.handshakes: two statements for all of them).
        user = await handshakes.open_user(self.scope)
        await self.accept()
        user_id = user.pk if user is not None and user.is_authenticated else None
        if user_id is None:
            await self.close(code=4403)
            return
        if not handshakes.take_person(self, user_id):
            await self._refuse_too_many("person")
            return
        # In the group before the pending notices are read: a notice committed in between is in what is read,
        # or arrives on the group, or both; the group's messages wait until connect returns, so a copy of a
        # table told here as pending is dropped by its once-key (notice_frame). The person's group closes the
        # socket when they sign out.
        self.group = notices.user_group(user_id)
        self.person = handshakes.person_group(user_id)
        await regroup(self.channel_layer, self.channel_name, add=(self.group, self.person))
        for frame in await in_thread(selectors.notices_pending)(user_id=user_id):
            key = notices.once_key(frame)
            if key is not None:
                self.told.add(key)
            await self.send_frame(frame)

    async def _refuse_too_many(self, kind: str) -> None:
        await self.send_error("too_many_sockets", handshakes.too_many_message(kind))
        await self.close(code=handshakes.CLOSE_TOO_MANY)

    async def person_signed_out(self, event) -> None:
        await self._leave()
        await _signed_out(self)

    async def _leave(self) -> None:
        groups = [group for group in (getattr(self, "group", None), getattr(self, "person", None)) if group is not None]
        self.group = self.person = None
        if groups:
            await regroup(self.channel_layer, self.channel_name, discard=groups)

    async def disconnect(self, code):
        handshakes.release(self)
        await self._leave()

    async def receive(self, text_data=None, bytes_data=None):
        # The socket only listens; whatever a client sends changes nothing. Charged as at a table
        # (games/delivery/limits.py): a flood gets the burst of answers, then rate_limited, then the socket is closed.
        if ratelimit.closing(self):
            return
        if not ratelimit.charge(self):
            await ratelimit.refuse(self)
            return
        await self.send_error("bad_message", "Dieser Kanal sendet nur Hinweise; er nimmt keine Nachrichten an.")

    async def notice_frame(self, event):
        key = event.get("once")
        if key is not None:
            if key in self.told:
                return
            self.told.add(key)
        text = event.get("text")
        await self.send(text_data=text if text is not None else events.frame_text(event["frame"]))
