"""System checks of the games app: the key that signs exported records (docs/protocol.md)."""

from __future__ import annotations

from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured


@checks.register(checks.Tags.security, deploy=True)
def records_signing_key_check(app_configs, **kwargs) -> list[checks.CheckMessage]:
    """With DEBUG off the records' key must be given (RECORDS_SIGNING_KEY), as 64 hex digits."""
    from games.reads import records as records_export

    if settings.DEBUG:
        return []
    if not settings.RECORDS_SIGNING_KEY:
        return [checks.Error(records_export.MISSING_KEY.strip(), hint=records_export.KEY_HINT, id="games.E001")]
    try:
        records_export.site_private_key()
        records_export.retired_public_keys()
    except ImproperlyConfigured as exc:
        return [checks.Error(str(exc), hint=records_export.KEY_HINT, id="games.E002")]
    return []
