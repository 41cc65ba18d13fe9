"""Table chat: a line from a seated player, cleaned, rate-limited, and sent to everyone at the table."""

from __future__ import annotations

import unicodedata
from datetime import timedelta
from typing import cast

from django.contrib.auth.models import User as AuthUser
from django.db import transaction
from django.utils import timezone

from games.delivery import events
from games.models import ChatMessage
from games.reads import selectors
from games.reads.presenters import chat_frame
from games.services import _common
from games.services._common import ServiceError

CHAT_MAX_LENGTH = 300
CHAT_RATE_COUNT = 5
CHAT_RATE_SECONDS = 10


def chat_post(*, table_id: int | str, user: selectors.User, text: object) -> ChatMessage:
    """A chat line from a seated player (spectators read). Off where the table policy says; rate-limited."""
    if not isinstance(text, str):
        raise ServiceError("bad_message", "Eine Chat-Nachricht braucht Text.")
    # Control characters carry nothing a reader sees (and PostgreSQL refuses NUL): they are dropped.
    text = "".join(ch for ch in text if ch in "\n\t" or unicodedata.category(ch) != "Cc").strip()
    if not text:
        raise ServiceError("bad_message", "Eine Chat-Nachricht braucht Text.")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate ("\ud800") is no text anyone can store or read
        raise ServiceError("bad_message", "Die Chat-Nachricht enthält ungültige Zeichen.") from None
    if len(text) > CHAT_MAX_LENGTH:
        raise ServiceError("chat_too_long", f"Eine Chat-Nachricht hat höchstens {CHAT_MAX_LENGTH} Zeichen.")
    with transaction.atomic():
        table = _common.locked_table(table_id)
        seats = _common.seats_of(table)
        seat = _common.require_seat(table, seats, user)
        user = cast(AuthUser, user)  # seated: a row of the user model
        if seat.left:
            raise ServiceError("not_seated", "Du hast diese Partie verlassen; der Chat gehört den Spielern.",
                               version=table.version)
        if not _common.table_policy(table).chat:
            raise ServiceError("chat_off", "An Turniertischen ist der Chat aus.", version=table.version)
        since = timezone.now() - timedelta(seconds=CHAT_RATE_SECONDS)
        if ChatMessage.objects.filter(user=user, created_at__gte=since).count() >= CHAT_RATE_COUNT:
            raise ServiceError(
                "chat_rate_limited",
                f"Bitte langsamer: höchstens {CHAT_RATE_COUNT} Nachrichten in {CHAT_RATE_SECONDS} Sekunden.",
                version=table.version,
            )
        message = ChatMessage.objects.create(table=table, user=user, text=text)
        events.chat_posted(table.pk, chat_frame(message, seat_index=seat.index))
        return message
