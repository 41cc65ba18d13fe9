"""Ratings of ranked play: one openskill rating per person and game, every change it went through (one per
rated match and person), and the "Gewertet spielen" waiting pool. Written only by ``ratings.services`` and
``ratings.pool``; read through ``ratings.selectors``."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models import Match, Table
from games.registry import game_choices

#: openskill's PlackettLuce defaults (μ 25, σ 25/3); a person never rated has this rating.
DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0
#: Fewer rated matches than this in a game: the Wertungszahl is provisional (shown with "?").
PROVISIONAL_MATCHES = 10


def wertungszahl(mu: float) -> int:
    """The number people see: ``round(1500 + 60 × (μ − 25))`` (ratings.md)."""
    return round(1500 + 60 * (mu - 25))


class Rating(models.Model):
    """A person's current rating in one game (gin or Rommé; variants and list lengths share it)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings", verbose_name=_("Spieler")
    )
    game = models.CharField(_("Spiel"), max_length=10, choices=game_choices)
    mu = models.FloatField(default=DEFAULT_MU)
    sigma = models.FloatField(default=DEFAULT_SIGMA)
    display = models.IntegerField(_("Wertungszahl"), default=wertungszahl(DEFAULT_MU))
    matches = models.PositiveIntegerField(_("gewertete Partien"), default=0)
    # ``matches >= PROVISIONAL_MATCHES``, stored so the leaderboard's index holds only established players
    # (the count of one's own place then walks tens of thousands of entries, not every rating).
    established = models.BooleanField(_("nicht mehr vorläufig"), default=False)
    # Gin: matches won; Rommé: lists won, a shared first place included.
    wins = models.PositiveIntegerField(_("gewonnen"), default=0)
    last_rated_at = models.DateTimeField(_("zuletzt gewertet"), null=True, blank=True)
    # When ``display`` last changed: the leaderboard's last tie-break (who reached the number earlier).
    reached_at = models.DateTimeField(_("erreicht am"), null=True, blank=True)

    class Meta:
        verbose_name = _("Wertung")
        verbose_name_plural = _("Wertungen")
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="rating_unique_user_game")]
        indexes = [
            # The leaderboard walks this index in its order and counts along it for one's own place;
            # ``last_rated_at`` rides along so the 30-day test needs no table lookup.
            models.Index(
                fields=["game", "established", "-display", "-matches", "reached_at", "user", "last_rated_at"],
                name="rating_board_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.game} {self.display}"

    @property
    def provisional(self) -> bool:
        return self.matches < PROVISIONAL_MATCHES


class RatingChange(models.Model):
    """What one rated match did to one person's rating (kept forever: history, "+14", the 7-day change)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes")
    game = models.CharField(max_length=10, choices=game_choices)
    # The place given to openskill (1 is best; shared places are equal); leavers share the last one.
    place = models.PositiveSmallIntegerField()
    left = models.BooleanField(default=False)
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    display_before = models.IntegerField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    display_after = models.IntegerField()
    created_at = models.DateTimeField()

    class Meta:
        verbose_name = _("Wertungsänderung")
        verbose_name_plural = _("Wertungsänderungen")
        ordering = ["created_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["match", "user"], name="ratingchange_unique_match_user")]
        indexes = [
            # History per game, the 7-day change (first change since a moment) and the abandoning check.
            models.Index(fields=["user", "game", "created_at"], name="ratingchange_history_idx"),
            models.Index(fields=["user", "created_at"], name="ratingchange_user_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.game} {self.display_before}→{self.display_after} ({self.match_id})"

    @property
    def delta(self) -> int:
        """The change of the Wertungszahl, e.g. +14 or −9."""
        return self.display_after - self.display_before


class PoolEntry(models.Model):
    """A person waiting in the "Gewertet spielen" pool of one game, and, once paired, the table they got.

    In the database so the pool survives a restart and any worker (web request, referee) can pair it. One
    entry per person: joining another game's pool moves them there. An entry with ``table`` set is the
    notice "your table is ready"; it stays until they leave or join again.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pool_entry", verbose_name=_("Spieler")
    )
    game = models.CharField(_("Spiel"), max_length=10, choices=game_choices)
    # The Wertungszahl when they joined: pairing compares these.
    display = models.IntegerField(_("Wertungszahl"))
    joined_at = models.DateTimeField(_("seit"))
    table = models.ForeignKey(
        Table, null=True, blank=True, on_delete=models.CASCADE, related_name="+", verbose_name=_("Tisch")
    )
    seated_at = models.DateTimeField(_("gesetzt am"), null=True, blank=True)

    class Meta:
        verbose_name = _("Wartender")
        verbose_name_plural = _("Warteliste")
        indexes = [models.Index(fields=["game", "joined_at"], condition=models.Q(table__isnull=True),
                                name="pool_waiting_idx")]

    def __str__(self) -> str:
        return f"{self.user} wartet auf {self.game}"
