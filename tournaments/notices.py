"""What tournaments tell their players through ``games.delivery.notices`` (a banner on every page they have open):
their table of a stage is ready, the tournament started, paused, went on, ended or was called off. Called
from ``tournaments.services`` inside its transactions; the notices go out once they commit. Also the
tournament facts of tables, which games asks for (the lobby's table list, the notices on reconnect)."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.urls import reverse
from django.utils import translation

from games.delivery import events, notices
from tournaments import formats
from tournaments.models import Entry, Stage, StageTable, Tournament

#: Who hears of a tournament's news: whoever is still entered (registered, or playing).
TOLD = (Entry.Status.REGISTERED, Entry.Status.PLAYING)


def _facts(t: Tournament, stage: int | None = None) -> dict:
    facts: dict[str, str | int | dict[str, str]] = {
        "tournament": t.name, "tournament_url": reverse("tournaments:detail", kwargs={"tournament_id": t.pk})}
    if stage is not None:
        facts["stage"] = stage
        facts["stage_label"] = stage_label(t, stage)
    return facts


def stage_label(t: Tournament, stage: int) -> dict[str, str]:
    """Stage ``stage`` of ``t`` in its format's own words ("Runde 2"; a Rommé series "Serie 2"), in each of the
    site's languages: a notice goes to people who read different ones."""
    fmt = formats.of(t)
    labels = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            labels[code] = fmt.stage_label(stage)
    return labels


def tell(t: Tournament, kind: str) -> None:
    """Tell everyone still entered in ``t`` (``kind``: one of ``games.delivery.notices.KINDS`` about the tournament)."""
    user_ids = t.entries.filter(status__in=TOLD).values_list("user_id", flat=True)
    notices.notify(list(user_ids), kind, _facts(t))


def stage_seated(t: Tournament, stage: Stage) -> None:
    """A stage was seated: each player at a table is told it is ready (with its link); who got no table this
    stage (a bye) is told the stage began, stage 1 as the tournament's start."""
    seated = tables_seated(t, stage, stage.tables.select_related("table").order_by("number"))
    others = set(t.entries.filter(status=Entry.Status.PLAYING).values_list("user_id", flat=True)) - seated
    kind = "tournament_started" if stage.number == 1 else "stage_started"
    notices.notify(sorted(others), kind, _facts(t, stage.number))


def tables_seated(t: Tournament, stage: Stage, stage_tables: Iterable[StageTable]) -> set[int]:
    """Each player at one of ``stage_tables`` is told their table is ready, with its link, on every page they
    have open (an arena's tables as they are paired). Returns who was told."""
    seated: set[int] = set()
    facts = _facts(t, stage.number)
    messages: list[tuple[str, dict]] = []  # every table's notices in one batch after the commit (a stage of 500 tables: 1,000 of them)
    for st in stage_tables:
        users = sorted({u for u in st.users if u is not None})
        if st.table is not None:
            frame = notices.notice_frame("table_ready", notices.table_ready_payload(st.table, tournament=facts))
            message = notices.notice_message(frame)
            messages.extend((notices.user_group(u), message) for u in users)
            seated.update(users)
    if messages:
        events.send_after_commit(messages)
    return seated


def table_tournaments(*, table_ids: Iterable[int]) -> dict[int, dict]:
    """``games.delivery.notices.table_tournament_add``'s source: the tournament, stage and table number of each table,
    and ``where``: stage and table in the format's own words ("Runde 2, Tisch 3"; a Rommé series "Serie 2, …")."""
    found: dict[int, dict] = {}
    for st in StageTable.objects.filter(table_id__in=list(table_ids)).select_related("stage__tournament"):
        if st.table_id is None:  # never: the filter names tables
            continue
        where = formats.of(st.stage.tournament).stage_table_label(st.stage.number, st.number)
        found[st.table_id] = {**_facts(st.stage.tournament, st.stage.number), "table": st.number, "where": where}
    return found
