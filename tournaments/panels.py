"""What tournaments adds to games' match page, registered at start-up (``TournamentsConfig.ready``) through
``games.panels``: the tournament, stage and table a match was played at, with a link to the tournament."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _

from games import panels
from tournaments.models import StageTable


def match_tournament(*, match) -> list[panels.HeadLink]:
    """"Turnier: <name> · Runde 2, Tisch 3" linking the tournament; nothing for a match outside one."""
    stage_table = (
        StageTable.objects.filter(table_id=match.table_id).select_related("stage__tournament").first()
    )
    if stage_table is None:
        return []
    tournament = stage_table.stage.tournament
    text = _("Turnier: %(name)s · Runde %(stage)s, Tisch %(table)s") % {
        "name": tournament.name, "stage": stage_table.stage.number, "table": stage_table.number,
    }
    return [panels.HeadLink(text=text, url=reverse("tournaments:detail", kwargs={"tournament_id": tournament.pk}))]


def register() -> None:
    panels.register(panels.MATCH_HEAD, match_tournament)
