"""A player's profile: the name shown at the tables and the language the site speaks to them."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Profile(models.Model):
    """One per user, created with the user (see ``accounts.signals``)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile", verbose_name=_("Benutzer")
    )
    display_name = models.CharField(
        _("Anzeigename"),
        max_length=30,
        blank=True,
        help_text=_(
            "So sehen dich die anderen an den Tischen. Leer lassen, um deinen Benutzernamen zu zeigen."
        ),
    )
    language = models.CharField(
        _("Sprache"), max_length=8, choices=settings.LANGUAGES, default=settings.LANGUAGE_CODE
    )
    # Set when the player deletes their account: the user row stays (anonymised) so that opponents'
    # match histories and tournament tables keep a consistent, if nameless, entry.
    deleted_at = models.DateTimeField(_("gelöscht am"), null=True, blank=True)

    class Meta:
        verbose_name = _("Profil")
        verbose_name_plural = _("Profile")

    def __str__(self) -> str:
        return self.public_name

    @property
    def public_name(self) -> str:
        """The name other players see: the display name, else the user name."""
        if self.deleted_at is not None:
            return str(_("Gelöschter Spieler"))
        return self.display_name or self.user.get_username()
