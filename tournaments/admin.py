"""The Django admin for tournaments: browse everything; every change goes through the services (the
actions below), so the admin and the staff page write the same audit log."""

from django.contrib import admin, messages

from tournaments import services
from tournaments.errors import TournamentError
from tournaments.models import AuditEntry, Entry, Stage, StageTable, Tournament


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    can_delete = False
    readonly_fields = ("user", "status", "number", "registered_at", "checked_in_at", "out", "seed")


class AuditInline(admin.TabularInline):
    model = AuditEntry
    extra = 0
    can_delete = False
    readonly_fields = ("at", "by", "action", "reason", "details")


def _each(service, verb):
    def action(modeladmin, request, queryset):
        for t in queryset:
            try:
                service(tournament_id=t.pk, by=request.user)
            except TournamentError as error:
                modeladmin.message_user(request, f"{t}: {error.message}", messages.ERROR)
            else:
                modeladmin.message_user(request, f"{t}: {verb}")
    action.__name__ = f"action_{service.__name__}"
    return admin.action(description=verb)(action)


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "format", "status", "starts_at", "current_stage", "paused")
    list_filter = ("status", "game", "format")
    readonly_fields = ("status", "current_stage", "next_stage_at", "final_standings", "paused", "created_by",
                       "started_at", "finished_at", "notice", "settings", "options", "game", "format")
    inlines = [EntryInline, AuditInline]
    actions = [
        _each(services.tournament_publish, "Veröffentlichen"),
        _each(services.tournament_start, "Starten"),
        _each(services.tournament_next_stage, "Nächste Runde"),
        _each(services.tournament_pause, "Pausieren"),
        _each(services.tournament_resume, "Fortsetzen"),
        _each(services.tournament_cancel, "Absagen"),
    ]

    def has_add_permission(self, request):
        return False  # created through the staff page (tournament_create), which checks every option

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        # Only the name and start time are editable here, and only through the service (drafts only).
        services.tournament_edit(tournament_id=obj.pk, by=request.user, name=obj.name, starts_at=obj.starts_at)


@admin.register(StageTable)
class StageTableAdmin(admin.ModelAdmin):
    list_display = ("stage", "number", "table", "users", "finished_at")
    readonly_fields = ("stage", "number", "table", "users", "result", "original_result", "finished_at")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


admin.site.register(Stage, list_display=("tournament", "number", "started_at", "finished_at"))
