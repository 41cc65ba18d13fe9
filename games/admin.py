"""The admin's view of live play: tables with their seats, matches with their rounds, the move log, chat.

Nothing here changes play behind the services' back: every field of tables, seats, matches, rounds and
moves is read-only, nothing is added or deleted here, and what staff may do to a table (end it, take a
player off it) is an admin action that calls the same service a player's request would."""

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _

from games import services
from games.models import ChatMessage, Match, Move, Round, Seat, Table


class ReadOnlyAdmin(admin.ModelAdmin):
    """Shows every field, changes none: play is changed through ``games.services`` only."""

    # The engine state holds every hidden card; an admin who also plays must not be able to peek.
    hidden_fields: tuple[str, ...] = ()

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in self.model._meta.get_fields() if f.concrete and f.name not in self.hidden_fields]

    def get_exclude(self, request, obj=None):
        return self.hidden_fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_staff_permission(self, request):
        return request.user.is_active and request.user.is_staff


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def get_readonly_fields(self, request, obj=None):
        return self.fields

    def has_add_permission(self, request, obj=None):
        return False


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("index", "user", "bot_level", "consecutive_timeouts", "left", "ready")


def _report(modeladmin, request, done: int, failed: list[str]) -> None:
    if done:
        modeladmin.message_user(request, _("%(n)d erledigt.") % {"n": done}, messages.SUCCESS)
    for line in failed:
        modeladmin.message_user(request, line, messages.ERROR)


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    list_display = ("id", "game", "preset", "status", "ranked", "tournament", "private", "version", "turn_deadline",
                    "created_at")
    list_filter = ("game", "status", "ranked", "tournament", "private")
    search_fields = ("id", "seats__user__username")
    hidden_fields = ("state", "deal_seed")
    inlines = [SeatInline]
    actions = ["close_tables"]

    @admin.action(description=_("Tisch beenden (laufende Partie abbrechen, ohne Wertung)"), permissions=["staff"])
    def close_tables(self, request, queryset):
        done, failed = 0, []
        for table_id in queryset.values_list("pk", flat=True):
            try:
                services.table_close(table_id=table_id, by=request.user)
                done += 1
            except services.ServiceError as error:
                failed.append(f"#{table_id}: {error.message}")
        _report(self, request, done, failed)


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ("table", "index", "user", "bot_level", "left", "consecutive_timeouts")
    list_filter = ("table__status", "left")
    search_fields = ("user__username", "table__id")
    list_select_related = ("table", "user")
    actions = ["remove_players"]

    @admin.action(description=_("Spieler vom Tisch nehmen (in einer laufenden Partie: Aufgabe)"),
                  permissions=["staff"])
    def remove_players(self, request, queryset):
        done, failed = 0, []
        for table_id, index in queryset.values_list("table_id", "index"):
            try:
                services.seat_remove(table_id=table_id, seat=index, by=request.user)
                done += 1
            except services.ServiceError as error:
                failed.append(f"#{table_id}/{index}: {error.message}")
        _report(self, request, done, failed)


class RoundInline(ReadOnlyInline):
    model = Round
    fields = ("number", "deal_hash", "started_at", "finished_at")


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ("id", "table", "number", "game", "status", "ending", "ranked", "winner", "started_at",
                    "finished_at", "announced_at")
    list_filter = ("game", "status", "ending", "ranked")
    search_fields = ("users__username",)
    inlines = [RoundInline]


@admin.register(Move)
class MoveAdmin(ReadOnlyAdmin):
    list_display = ("match", "seq", "round_number", "seat", "by", "action", "version", "created_at")
    list_filter = ("by",)


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):
    list_display = ("table", "user", "text", "created_at")
    search_fields = ("text", "user__username")
