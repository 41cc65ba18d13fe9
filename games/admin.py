"""The admin's view of live play: tables with their seats, matches with their rounds, the move log, chat.
Read-mostly: changes to play go through the services, so the game state is shown, never edited here."""

from django.contrib import admin

from games.models import ChatMessage, Match, Move, Round, Seat, Table


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("index", "user", "bot_level", "consecutive_timeouts", "left", "ready")
    readonly_fields = fields
    can_delete = False


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "preset", "status", "ranked", "private", "version", "turn_deadline", "created_at")
    list_filter = ("game", "status", "ranked", "private")
    search_fields = ("id", "seats__user__username")
    readonly_fields = ("version", "turn_deadline", "bot_due_at", "current_match", "invite_token", "created_by")
    # The engine state holds every hidden card; an admin who also plays must not be able to peek.
    exclude = ("state",)
    inlines = [SeatInline]


class RoundInline(admin.TabularInline):
    model = Round
    extra = 0
    fields = ("number", "deal_hash", "started_at", "finished_at")
    readonly_fields = fields
    can_delete = False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "table", "number", "game", "status", "ranked", "winner", "started_at", "finished_at")
    list_filter = ("game", "status", "ranked")
    search_fields = ("users__username",)
    readonly_fields = ("table", "players", "users", "result", "final_scores", "winner_seat", "winner", "left_seats")
    inlines = [RoundInline]


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    list_display = ("match", "seq", "round_number", "seat", "by", "action", "version", "created_at")
    list_filter = ("by",)
    readonly_fields = ("table", "match", "round_number", "seq", "seat", "action", "by", "version")


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):
    list_display = ("table", "user", "text", "created_at")
    search_fields = ("text", "user__username")
