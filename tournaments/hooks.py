"""What tournaments plug into the lower layers at start-up (``TournamentsConfig.ready``): the ranked pool
refuses whoever is entered in a tournament that is running or starts soon (ratings.md "One live table at a
time"), and a refused abort at a tournament table names the tournament's forfeit rule (tournaments.md), as its
format has it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Q
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.models import Table
from ratings.pool import TOURNAMENT_LEAD
from tournaments import formats as tournament_formats
from tournaments.models import Entry, StageTable, Tournament


def entered_tournament(*, user: Any, now: datetime) -> Tournament | None:
    """The tournament ``user`` is entered in that is running, or open for registration and starting within
    ``TOURNAMENT_LEAD`` (a Rommé player out of the series after an Abbruch is no longer entered)."""
    entry = (
        Entry.objects.filter(user_id=user.pk)
        .filter(
            Q(tournament__status=Tournament.Status.RUNNING, status=Entry.Status.PLAYING, out=False)
            | Q(tournament__status=Tournament.Status.REGISTRATION, status=Entry.Status.REGISTERED,
                tournament__starts_at__lte=now + TOURNAMENT_LEAD)
        )
        .select_related("tournament")
        .order_by("tournament__starts_at", "pk")
        .first()
    )
    return entry.tournament if entry is not None else None


def pool_guard(user: Any, now: datetime) -> str | None:
    tournament = entered_tournament(user=user, now=now)
    if tournament is None:
        return None
    if tournament.status == Tournament.Status.RUNNING:
        return _("Du spielst im Turnier „%(name)s“, das gerade läuft; gewertet spielen geht erst danach.") % {
            "name": tournament.name}
    starts = formats.time_format(timezone.localtime(tournament.starts_at), "TIME_FORMAT")
    return _("Dein Turnier „%(name)s“ beginnt um %(time)s; bis dahin kannst du nicht gewertet spielen.") % {
        "name": tournament.name, "time": starts}


def abort_refusal_note(table: Table) -> str | None:
    """Formats with a forfeit rule (gin): who has not made a move of their own ``forfeit_minutes`` after the
    start loses. None for a table of no tournament, or of a format without that rule."""
    st = StageTable.objects.filter(table_id=table.pk).select_related("stage__tournament").first()
    if st is None:
        return None
    try:
        minutes = tournament_formats.of(st.stage.tournament).forfeit_minutes()
    except KeyError:  # a format no longer registered says nothing
        return None
    if not isinstance(minutes, int):
        return None
    return ngettext(
        "Wer %(m)d Minute nach dem Beginn noch keinen eigenen Zug gemacht hat, während der Server schon für ihn "
        "ziehen musste, verliert die Partie kampflos.",
        "Wer %(m)d Minuten nach dem Beginn noch keinen eigenen Zug gemacht hat, während der Server schon für ihn "
        "ziehen musste, verliert die Partie kampflos.", minutes) % {"m": minutes}
