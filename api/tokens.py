"""Personal API tokens (``api.models.ApiToken``): made and revoked by their owner (services), and found from
the ``Authorization: Bearer`` header of an API request (a selector)."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from api.models import ApiToken

#: What every token starts with, so one is recognised in a file or a log (and by secret scanners).
PREFIX = "grk_"
#: Active tokens a player may have at once: each is a limit of its own, so they are not to be had in bulk.
MAX_ACTIVE = 5
#: ``last_used_at`` is written at most this often per token, not on every request.
LAST_USED_EVERY = timedelta(minutes=1)


class TokenError(ValueError):
    """A token that cannot be made (too many, no name) or revoked (not the player's own)."""


def digest_of(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def token_create(*, user: Any, name: str) -> tuple[ApiToken, str]:
    """A new read token of ``user`` named ``name``, and the token itself: the only time it is seen."""
    name = name.strip()
    if not name:
        raise TokenError(_("Ein API-Schlüssel braucht einen Namen."))
    with transaction.atomic():
        # The owner's row locked: two forms sent at once cannot both make the fifth token.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        if ApiToken.objects.filter(user=user, revoked_at__isnull=True).count() >= MAX_ACTIVE:
            raise TokenError(_("Höchstens %(count)d API-Schlüssel auf einmal: widerrufe erst einen.") % {"count": MAX_ACTIVE})
        raw = PREFIX + secrets.token_urlsafe(32)
        token = ApiToken.objects.create(user=user, name=name[:60], prefix=raw[: len(PREFIX) + 6],
                                        digest=digest_of(raw))
    return token, raw


def token_revoke(*, user: Any, token_id: int) -> ApiToken:
    """Revoke ``user``'s token ``token_id`` (from the next request on it is refused). Revoking one twice is no
    error; another player's token is."""
    token = ApiToken.objects.filter(user=user, pk=token_id).first()
    if token is None:
        raise TokenError(_("Diesen API-Schlüssel gibt es nicht."))
    if token.revoked_at is None:
        ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
        token.refresh_from_db()
    return token


def tokens_of(*, user: Any) -> list[ApiToken]:
    """``user``'s tokens that are still valid, newest first."""
    return list(ApiToken.objects.filter(user=user, revoked_at__isnull=True))


def token_get(*, raw: str) -> ApiToken | None:
    """The valid token ``raw`` is, or None: unknown, revoked, or its owner's account closed."""
    if not raw.startswith(PREFIX):
        return None
    token = (ApiToken.objects.select_related("user")
             .filter(digest=digest_of(raw), revoked_at__isnull=True, user__is_active=True).first())
    if token is None or token.scope != ApiToken.Scope.READ:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token
