"""Read-only admin of ratings: staff look, the services write (a rating is what its matches made it)."""

from django.contrib import admin

from ratings.models import PoolEntry, Rating, RatingChange


class _ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Rating)
class RatingAdmin(_ReadOnly):
    list_display = ("user", "game", "display", "matches", "wins", "mu", "sigma", "last_rated_at")
    list_filter = ("game",)
    search_fields = ("user__username",)
    ordering = ("game", "-display")
    list_select_related = ("user",)
    show_full_result_count = False


@admin.register(RatingChange)
class RatingChangeAdmin(_ReadOnly):
    list_display = ("match", "user", "game", "place", "left", "display_before", "display_after", "created_at")
    list_filter = ("game", "left")
    search_fields = ("user__username",)
    raw_id_fields = ("match", "user")
    list_select_related = ("user", "match")
    show_full_result_count = False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(PoolEntry)
class PoolEntryAdmin(admin.ModelAdmin):
    """Staff may take someone out of the pool (delete); nothing else."""

    list_display = ("user", "game", "display", "joined_at", "table", "seated_at")
    list_filter = ("game",)
    list_select_related = ("user", "table")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
