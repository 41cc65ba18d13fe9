"""Personal API tokens: a player makes one on their profile page to be counted apart from their address.

A token reads only what anyone may read (its one scope is ``read``): the API answers it exactly as it answers
a visitor, never with a private table's match. What it changes is the limit: its requests are counted per
token (``API_TOKEN_RATE_LIMIT``), not per address. The token itself is shown once, when it is made; the
database keeps only its SHA-256 (a random 256-bit secret needs no slow hash), so a copy of the database
gives no one a working token.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class ApiToken(models.Model):
    class Scope(models.TextChoices):
        READ = "read", _("Lesen")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens",
                             verbose_name=_("Benutzer"))
    name = models.CharField(_("Name"), max_length=60)
    # The token's first characters, to tell tokens apart on the profile page; not enough to use one.
    prefix = models.CharField(max_length=16)
    digest = models.CharField(max_length=64, unique=True)
    scope = models.CharField(max_length=8, choices=Scope.choices, default=Scope.READ)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("API-Schlüssel")
        verbose_name_plural = _("API-Schlüssel")
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
