"""What tournaments adds to games' pages, registered at start-up (``TournamentsConfig.ready``) through
``games.panels``: on the match page and on the table page, the tournament, stage and table a match is (or
was) played at, with a link to the tournament; and the match page's analysis held back while the stage runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.urls import reverse
from django.utils.translation import gettext as _

from games import panels
from tournaments import formats
from tournaments.models import StageTable

if TYPE_CHECKING:
    from games.models import Match, Table


def _tournament_line(*, table_id: int) -> list[panels.HeadLink]:
    """"Turnier: <name> · Runde 2, Tisch 3" (a Rommé series: "Serie 2, Tisch 3") linking the tournament; nothing
    for a table outside one."""
    stage_table = StageTable.objects.filter(table_id=table_id).select_related("stage__tournament").first()
    if stage_table is None:
        return []
    tournament = stage_table.stage.tournament
    where = formats.of(tournament).stage_table_label(stage_table.stage.number, stage_table.number)
    text = _("Turnier: %(name)s · %(where)s") % {"name": tournament.name, "where": where}
    return [panels.HeadLink(text=text, url=reverse("tournaments:detail", kwargs={"tournament_id": tournament.pk}))]


def match_tournament(*, match: Match) -> list[panels.HeadLink]:
    """The tournament line of the match page; nothing for a match outside a tournament."""
    return _tournament_line(table_id=match.table_id)


def table_tournament(*, table: Table) -> list[panels.HeadLink]:
    """The tournament line of the table page; nothing for a table outside a tournament (one query, none
    for a table that no tournament made)."""
    if not table.tournament:
        return []
    return _tournament_line(table_id=table.pk)


def analysis_held(*, match: Match) -> str | None:
    """A tournament match's analysis waits until its stage (a gin round, a Rommé series) has ended."""
    if not match.table.tournament:
        return None
    stage_table = StageTable.objects.filter(table_id=match.table_id).select_related("stage").first()
    if stage_table is None or stage_table.stage.finished_at is not None:
        return None
    return _("Die Analyse erscheint, wenn diese Turnierrunde zu Ende ist.")


def register() -> None:
    panels.register(panels.MATCH_HEAD, match_tournament)
    panels.register(panels.TABLE_HEAD, table_tournament)
    panels.register(panels.ANALYSIS_HELD, analysis_held)
