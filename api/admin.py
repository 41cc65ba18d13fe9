"""Admin for personal API tokens: staff see who has which (never the token: only its digest is kept) and can
revoke one that is abused; tokens are made by their owners on the profile page only."""

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from api.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "prefix", "scope", "created_at", "last_used_at", "revoked_at"]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["user__username", "name", "prefix"]
    list_select_related = ["user"]
    readonly_fields = ["user", "name", "prefix", "digest", "scope", "created_at", "last_used_at", "revoked_at"]
    actions = ["revoke"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description=_("Ausgewählte API-Schlüssel widerrufen"))
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
