"""The database truth of tournaments: the tournament, its entries (registration, waiting list, check-in),
its stages (a Rommé series, a gin round), the tables of each stage with their recorded results, and the
audit log of every staff action. Every write goes through ``tournaments.services``."""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.registry import game_choices


class Tournament(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Entwurf")
        REGISTRATION = "registration", _("Anmeldung offen")
        RUNNING = "running", _("läuft")
        FINISHED = "finished", _("beendet")
        CANCELLED = "cancelled", _("abgesagt")

    name = models.CharField(max_length=120)
    game = models.CharField(max_length=10, choices=game_choices)
    # A name of the format registry (tournaments.formats), checked against it by the services and the staff's
    # forms, not a choices list fixed in a migration: a format added later needs none.
    format = models.CharField(max_length=12)
    # The tournament options of spec/tournaments.md, every default filled in (services normalise them).
    settings = models.JSONField(default=dict)
    # The table options (gin.md / romme.md) every table of the tournament is opened with.
    options = models.JSONField(default=dict)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.DRAFT)
    starts_at = models.DateTimeField(null=True, blank=True)
    paused = models.BooleanField(default=False)
    # The number of the stage in play (0 before the start).
    current_stage = models.PositiveSmallIntegerField(default=0)
    # When the next stage starts by itself (set when a stage ends, cleared when the next one starts).
    next_stage_at = models.DateTimeField(null=True, blank=True)
    # Frozen when the tournament finishes: the final standings as ``tournament_standings`` returned them.
    final_standings = models.JSONField(null=True, blank=True)
    notice = models.CharField(max_length=300, blank=True, default="")
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-starts_at", "-pk"]
        indexes = [models.Index(fields=["status", "starts_at"], name="tournament_status_idx")]

    def __str__(self) -> str:
        return self.name


class Entry(models.Model):
    """One player's place in a tournament, from registration to the end."""

    class Status(models.TextChoices):
        REGISTERED = "registered", _("angemeldet")
        WAITING = "waiting", pgettext_lazy("tournament", "Warteliste")
        WITHDRAWN = "withdrawn", _("abgemeldet")
        DROPPED = "dropped", _("nicht eingecheckt")
        PLAYING = "playing", _("spielt")
        REMOVED = "removed", _("entfernt")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_entries")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.REGISTERED)
    registered_at = models.DateTimeField(auto_now_add=True)
    # Registration order (the waiting list moves up in it; Rommé ties keep it).
    number = models.PositiveIntegerField()
    checked_in_at = models.DateTimeField(null=True, blank=True)
    # Rommé: abandoned a list (Abbruch) and is not seated in later series unless reinstated.
    out = models.BooleanField(default=False)
    # Knockout: the seed (1 = best), fixed at the start.
    seed = models.PositiveSmallIntegerField(null=True, blank=True)
    # Arena: paused by the player (or after leaving a table), not seated until they resume.
    paused = models.BooleanField(default=False)
    # Arena: when the player last had a page of the tournament (or a table of it) open; who is away is not seated.
    seen_at = models.DateTimeField(null=True, blank=True)
    # Arena: since when the player is free (their last table ended, they joined or resumed).
    free_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="entry_unique_user"),
            models.UniqueConstraint(fields=["tournament", "number"], name="entry_unique_number"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.tournament}"


class Stage(models.Model):
    """A Rommé series or a gin round. Unique per tournament and number: a stage starts once."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="stages")
    number = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Same deals (Rommé): one seed per table size, drawn once per series from the CSPRNG.
    deal_seeds = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="stage_unique_number")]

    def __str__(self) -> str:
        return f"Runde {self.number} von {self.tournament}"


class StageTable(models.Model):
    """One table (or a gin bye) of a stage: who sits where, and the result recorded when its match ended.

    ``result`` is what the standings are computed from: Rommé ``{"seats": [{"user_id", "result",
    "wertungspunkte", "augen", "rounds_won", "abbruch"}]}``; gin ``{"winner", "loser", "margin"}`` (user ids;
    a bye has ``loser`` None). A staff correction replaces it and keeps the first in ``original_result``.
    """

    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField()
    table = models.OneToOneField(
        "games.Table", null=True, blank=True, on_delete=models.SET_NULL, related_name="tournament_table"
    )
    users = models.JSONField(default=list)
    result = models.JSONField(null=True, blank=True)
    original_result = models.JSONField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["stage", "number"]
        constraints = [models.UniqueConstraint(fields=["stage", "number"], name="stagetable_unique_number")]

    def __str__(self) -> str:
        return f"Tisch {self.number} in {self.stage}"


class AuditEntry(models.Model):
    """Who did what to a tournament, when and why (``by`` None: the site itself, e.g. the referee)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="audit")
    by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    action = models.CharField(max_length=30)
    reason = models.CharField(max_length=300, blank=True, default="")
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["tournament", "at", "pk"]

    def __str__(self) -> str:
        return f"{self.action} in {self.tournament}"
