"""The words of the notice banner (``games/static/games/notices.js``) in the request's language, for
``{% notice_strings as strings %}{{ strings|json_script:"notice-strings" }}`` in templates/base.html.
``{tournament}`` and ``{stage}`` are filled in by the page from the notice (the stage in its format's own words,
"Runde 2" or "Serie 2", in the page's language)."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext as _

register = template.Library()


@register.simple_tag
def notice_strings() -> dict:
    return {
        "table_ready": _("Dein Tisch ist bereit"),
        "table_ready_tournament": _("Dein Tisch ist bereit: „{tournament}“, {stage}"),
        "tournament_started": _("Das Turnier „{tournament}“ hat begonnen"),
        "stage_started": _("Die Pause ist vorbei: {stage} von „{tournament}“ hat begonnen"),
        "tournament_paused": _("Das Turnier „{tournament}“ ist unterbrochen"),
        "tournament_resumed": _("Das Turnier „{tournament}“ geht weiter"),
        "tournament_finished": _("Das Turnier „{tournament}“ ist beendet"),
        "tournament_cancelled": _("Das Turnier „{tournament}“ wurde abgesagt"),
        "to_table": _("Zum Tisch"),
        "to_tournament": _("Zum Turnier"),
        "to_results": _("Zum Ergebnis"),
        "dismiss": _("Schließen"),
        "title_flash": _("Dein Tisch!"),
        "title_news": _("Neuigkeit"),
    }
