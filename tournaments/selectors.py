"""Reads of tournaments: the current stage's tables, the standings (computed by the tournament's format
from the recorded table results), lists for the pages."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.protocols import Person
from games.reads.matches import forfeited_seat
from tournaments import formats
from tournaments.formats.base import IN_STANDINGS as _IN_STANDINGS
from tournaments.models import Entry, Stage, StageTable, Tournament


def tournament_tables(*, tournament_id: int | str) -> list[dict]:
    """The current stage: ``[{"table": table_id, "stage": n, "users": [user_id per seat]}]``; a gin bye is
    ``{"table": None, "stage": n, "users": [user_id, None]}``."""
    t = Tournament.objects.get(pk=tournament_id)
    stage = t.stages.filter(number=t.current_stage).first()
    if stage is None:
        return []
    tables = stage.tables.order_by("number")
    if formats.of(t).continuous:  # an arena's one stage holds every table it played: who plays now
        tables = tables.filter(finished_at__isnull=True)
    return [{"table": st.table_id, "stage": stage.number, "users": list(st.users)} for st in tables]


def tournament_standings(*, tournament_id: int | str) -> list[dict]:
    """Best first: ``[{"user_id", "place", "stages": [per stage], ...}]`` (see spec/api.md), as the
    tournament's format computes them; frozen once the tournament has finished."""
    t = Tournament.objects.get(pk=tournament_id)
    if t.status == Tournament.Status.FINISHED and t.final_standings is not None:
        return t.final_standings
    return formats.of(t).standings()


def tournament_format(*, tournament: Tournament) -> formats.TournamentFormat:
    """The format of ``tournament`` (what its page shows: columns, stage labels, a bracket)."""
    return formats.of(tournament)


# --- for the pages ----------------------------------------------------------------------------------------


def tournaments_listed() -> dict[str, list[Tournament]]:
    """``/turniere/``: upcoming (registration open), running, finished (the latest first)."""
    qs = Tournament.objects.exclude(status=Tournament.Status.DRAFT)
    return {
        "upcoming": list(qs.filter(status=Tournament.Status.REGISTRATION).order_by("starts_at", "pk")),
        "running": list(qs.filter(status=Tournament.Status.RUNNING).order_by("started_at")),
        "finished": list(qs.filter(status__in=(Tournament.Status.FINISHED, Tournament.Status.CANCELLED))
                         .order_by("-finished_at")[:30]),
    }


def places_left(t: Tournament) -> int | None:
    cap = t.settings.get("max_players")
    if cap is None:
        return None
    return max(0, cap - t.entries.filter(status=Entry.Status.REGISTERED).count())


def entry_of(*, tournament: Tournament, user: Person | None) -> Entry | None:
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return tournament.entries.filter(user_id=user.pk).first()


def stages_of(t: Tournament) -> list[Stage]:
    return list(t.stages.prefetch_related("tables").order_by("number"))


def finished_tournaments_of(*, user: Person) -> list[dict]:
    """Finished tournaments a player took part in, the latest first, for the profile: the tournament, the final
    place, of how many, and the format's own first figure (gin: match points; Rommé: the result) with its label."""
    out = []
    entries = (Entry.objects.filter(user_id=user.pk, status__in=_IN_STANDINGS,
                                    tournament__status=Tournament.Status.FINISHED)
               .select_related("tournament").order_by("-tournament__finished_at", "-tournament__pk"))
    for e in entries:
        standings = e.tournament.final_standings or []
        row = next((r for r in standings if r["user_id"] == user.pk), None)
        label, key = formats.of(e.tournament).columns()[0]
        out.append({"tournament": e.tournament, "place": row["place"] if row else None, "of": len(standings),
                    "points_label": label, "points": row.get(key) if row else None})
    return out


def audit_action_label(action: str) -> str:
    """The audit log's ``action`` code in words (translated); an unknown code stays as it is."""
    from django.utils.translation import gettext as _

    labels = {
        "create": _("Turnier angelegt"), "edit": _("Einstellungen geändert"), "publish": _("Veröffentlicht"),
        "start": _("Turnier gestartet"), "stage_start": _("Runde gestartet"),
        "next_stage": _("Nächste Runde vorgezogen"), "pause": _("Pausiert"), "resume": _("Fortgesetzt"),
        "cancel": _("Turnier abgesagt"), "finish": _("Turnier beendet"), "remove": _("Spieler entfernt"),
        "reinstate": _("Spieler wieder aufgenommen"), "correct": _("Ergebnis korrigiert"),
        "forfeit": _("Kampflos verloren"),
        "export_csv": _("Tabelle als CSV exportiert"),
    }
    return labels.get(action, action)


def audit_in_words(*, tournament: Tournament) -> list[dict]:
    """The audit log, newest first: ``{"at", "by" (name or None for the site), "what", "reason"}``; ``what``
    names the action in words, with the table of a correction or the player of a removal."""
    from django.contrib.auth import get_user_model

    entries = list(tournament.audit.select_related("by").order_by("-at", "-pk"))
    user_ids = {a.details.get("user_id") for a in entries if isinstance(a.details.get("user_id"), int)}
    names = dict(get_user_model().objects.filter(pk__in=user_ids)
                 .values_list("pk", get_user_model().USERNAME_FIELD))
    fmt = tournament_format(tournament=tournament)  # "Runde 2" or, in a Rommé series, "Serie 2"
    rows = []
    for a in entries:
        what = audit_action_label(a.action)
        d = a.details or {}
        if a.action == "correct" and "stage" in d and "table" in d:
            what += ": " + fmt.stage_table_label(d["stage"], d["table"])
        elif a.action == "forfeit" and d.get("user_id") in names and "stage" in d and "table" in d:
            what += f": {names[d['user_id']]}, {fmt.stage_table_label(d['stage'], d['table'])}"
        elif a.action in ("remove", "reinstate") and d.get("user_id") in names:
            what += ": " + names[d["user_id"]]
        elif a.action == "stage_start" and "stage" in d:
            what = fmt.stage_started_label(d["stage"])
        elif a.action == "cancel" and d.get("why") == "too_few_players" and isinstance(d.get("players"), list):
            count, minimum = len(d["players"]), d.get("min_players")
            what = (ngettext("Turnier abgesagt: beim Start nur %(n)d Teilnehmer eingecheckt, mindestens %(m)s",
                             "Turnier abgesagt: beim Start nur %(n)d Teilnehmer eingecheckt, mindestens %(m)s", count)
                    if d.get("checked_in") else
                    ngettext("Turnier abgesagt: beim Start nur %(n)d Teilnehmer angemeldet, mindestens %(m)s",
                             "Turnier abgesagt: beim Start nur %(n)d Teilnehmer angemeldet, mindestens %(m)s", count)
                    ) % {"n": count, "m": minimum}
        rows.append({"at": a.at, "by": a.by.get_username() if a.by else None, "what": what, "reason": a.reason})
    return rows


def entry_final_states(*, tournament: Tournament, entries: list[Entry]) -> dict[int, str]:
    """Once a tournament is finished or cancelled, each player's state in words by user id: the final place
    ("Platz 2"), or why they have none (removed, withdrawn, not checked in); empty while it runs."""
    from django.utils.translation import gettext as _
    from django.utils.translation import pgettext

    if tournament.status == Tournament.Status.CANCELLED:
        return {e.user_id: _("Turnier abgesagt") for e in entries}
    if tournament.status != Tournament.Status.FINISHED:
        return {}
    rows = tournament.final_standings or tournament_standings(tournament_id=tournament.pk)
    places = {r["user_id"]: r["place"] for r in rows}
    states = {}
    for e in entries:
        if e.status == Entry.Status.PLAYING and e.user_id in places:
            # "place" (a rank): other catalogs have "Platz %(n)s" as a seat at a table.
            states[e.user_id] = pgettext("rank", "Platz %(n)s") % {"n": places[e.user_id]}
        else:
            states[e.user_id] = e.get_status_display()
    return states


def table_end_facts(*, table_id: int, user: Person | None) -> dict | None:
    """What the end view of a tournament table says (``games/static/games/table/ending.js``), in the request's
    language: the tournament's link, the player's standing after the match, and what comes next (the
    countdown of the break, how many tables still play, the next stage begun, the tournament over). None for
    a table no tournament made. ``recorded`` says whether the match is in the standings yet (the tournament
    records it just after the last move's frames are out); ``polling``, whether the answer can still change."""
    st = (StageTable.objects.filter(table_id=table_id)
          .select_related("stage__tournament", "table__current_match").first())
    if st is None:
        return None
    t = st.stage.tournament
    fmt = formats.of(t)
    recorded = st.finished_at is not None
    facts: dict = {
        "url": reverse("tournaments:detail", kwargs={"tournament_id": t.pk}), "name": t.name,
        "to_tournament": _("Zum Turnier"), "recorded": recorded, "standing": "", "countdown": None, "next": "",
        "polling": False, "forfeit_seat": None,
    }
    table = st.table
    if table is not None and table.current_match is not None:
        facts["forfeit_seat"] = forfeited_seat(match=table.current_match)
    user_id = user.pk if user is not None and getattr(user, "is_authenticated", False) else None
    if recorded and user_id in st.users:
        rows = tournament_standings(tournament_id=t.pk)
        mine = next((row for row in rows if row["user_id"] == user_id), None)
        if mine is not None:
            label, key = fmt.columns()[0]
            facts["standing"] = _("Dein Stand nach dieser Partie: Platz %(place)s von %(n)s (%(label)s: %(value)s)") % {
                "place": mine["place"], "n": len(rows), "label": label, "value": mine.get(key)}
    if t.status == Tournament.Status.FINISHED:
        facts["next"] = _("Das Turnier ist beendet.")
    elif t.status == Tournament.Status.CANCELLED:
        facts["next"] = _("Das Turnier wurde abgesagt.")
    elif t.current_stage > st.stage.number:
        facts["next"] = fmt.stage_started_label(t.current_stage)
    elif recorded:
        facts["polling"] = True
        running = st.stage.tables.filter(table__isnull=False, finished_at__isnull=True).count()
        if t.paused:
            facts["next"] = _("Das Turnier ist unterbrochen.")
        elif fmt.continuous:  # no stage to wait for: the next table is paired on the referee's next pass
            facts["next"] = _("Gleich geht es weiter: dein nächster Tisch wird gepaart.")
        elif running:
            facts["next"] = ngettext("Warte auf die anderen Tische (%(n)d läuft noch)",
                                     "Warte auf die anderen Tische (%(n)d laufen noch)", running) % {"n": running}
        elif t.next_stage_at is not None:
            facts["countdown"] = {"label": fmt.next_stage_countdown_label(), "at": t.next_stage_at.isoformat()}
    return facts
