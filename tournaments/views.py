"""The tournament pages: the list (/turniere/), a tournament's page, and the staff page per tournament.
Thin: every write is one call of ``tournaments.services``; a refusal is shown as a message."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext
from django.views.decorators.http import require_GET, require_POST

from games import glossary
from games.reads import selectors as games_selectors
from tournaments import forms, selectors, services
from tournaments.models import Entry, StageTable, Tournament
from tournaments.services import TournamentError


def tournament_list(request: HttpRequest) -> HttpResponse:
    listed = selectors.tournaments_listed()
    upcoming = [{"t": t, "places_left": selectors.places_left(t)} for t in listed["upcoming"]]
    return render(request, "tournaments/list.html", {**listed, "upcoming": upcoming})


def _names(ids) -> dict:
    model = get_user_model()
    return dict(model.objects.filter(pk__in=[i for i in ids if i]).values_list("pk", model.USERNAME_FIELD))


def settings_in_words(t: Tournament) -> list[str]:
    """The tournament's options in plain words (German source strings, translated): the format's own,
    then those every tournament has."""
    s = t.settings
    fmt = selectors.tournament_format(tournament=t)
    words = fmt.words()
    if s["max_players"]:
        words.append(_("Höchstens %(n)d Teilnehmer") % {"n": s["max_players"]})
    words.append(_("Mindestens %(n)d Teilnehmer") % {"n": s["min_players"]})
    if s["check_in_minutes"]:
        words.append(ngettext("Einchecken %(m)d Minute vor dem Start", "Einchecken %(m)d Minuten vor dem Start",
                              s["check_in_minutes"]) % {"m": s["check_in_minutes"]})
    else:
        words.append(_("Kein Einchecken nötig"))
    breaks = fmt.stage_break_words(s["break_minutes"])
    if breaks:  # a format without stages has no break between them
        words.append(breaks)
    turn = t.options.get("turn_seconds")
    if isinstance(turn, int):
        words.append(ngettext("%(s)d Sekunde Bedenkzeit pro Zug", "%(s)d Sekunden Bedenkzeit pro Zug", turn)
                     % {"s": turn})
    words.append(_("Gewertete Tische, kein Chat, keine Computergegner"))
    return words


def _context(request: HttpRequest, t: Tournament) -> dict:
    standings = selectors.tournament_standings(tournament_id=t.pk)
    tables = selectors.tournament_tables(tournament_id=t.pk)
    entries = list(t.entries.select_related("user").order_by("number"))
    names = _names([e.user_id for e in entries] + [u for r in tables for u in r["users"]])
    me = request.user.pk if request.user.is_authenticated else None
    tables.sort(key=lambda r: me not in r["users"])  # the player's own table first
    # Every finished table of every stage, by stage number and player: its match page is one click away.
    finished = list(StageTable.objects.filter(stage__tournament=t, table__isnull=False, finished_at__isnull=False)
                    .values_list("stage__number", "table_id", "users"))
    staff_only = games_selectors.tables_staff_only(
        table_ids=[r["table"] for r in tables] + [table_id for _n, table_id, _u in finished], user=request.user)
    match_of = {(number, user_id): table_id for number, table_id, users in finished for user_id in users
                if user_id and table_id not in staff_only}
    finished_tables = {table_id for _n, table_id, _u in finished}
    for row in tables:
        # A bye's row names its one player; the row's note says "Freilos" (once).
        row["names"] = [names.get(u, str(glossary.BYE)) for u in row["users"] if u]
        row["mine"] = me in row["users"]
        row["staff_only"] = row["table"] in staff_only
        row["finished"] = row["table"] in finished_tables
    fmt = selectors.tournament_format(tournament=t)
    columns = fmt.columns()
    for row in standings:
        row["name"] = names.get(row["user_id"], "?")
        row["cells"] = [row.get(key) for _label, key in columns]
        row["stage_cells"] = [
            {"text": fmt.stage_cell(entry, names),
             "url": reverse("matches:table_last", kwargs={"table_id": match_of[(number, row["user_id"])]})
             if (number, row["user_id"]) in match_of else None}
            for number, entry in enumerate(row["stages"], start=1)
        ]
    stage_numbers = list(range(1, max((len(r["stages"]) for r in standings), default=0) + 1))
    countdown = t.starts_at if t.status == Tournament.Status.REGISTRATION else (
        t.next_stage_at if t.status == Tournament.Status.RUNNING and not t.paused else None)
    return {
        "t": t, "status_label": status_label(t), "words": settings_in_words(t), "standings": standings, "tables": tables,
        "entries": entries,
        "names": names, "entry": selectors.entry_of(tournament=t, user=request.user), "stage_numbers": stage_numbers,
        "format_label": fmt.label, "columns": [label for label, _key in columns],
        "tables_title": fmt.stage_tables_title(t.current_stage), "next_stage_label": fmt.next_stage_countdown_label(),
        "stage_labels": [fmt.stage_label(n) for n in stage_numbers],
        "countdown": countdown, "places_left": selectors.places_left(t),
        "check_in_open": _check_in_open(t), "bracket": fmt.bracket(names),
        "crosstable": fmt.crosstable(standings, names) if standings else None,
        "live_template": fmt.live_template, "live_facts": fmt.live_facts(me, timezone.now()),
        "players": [e for e in entries if e.status in (Entry.Status.REGISTERED, Entry.Status.PLAYING,
                                                        Entry.Status.REMOVED)],
        "waiting": [e for e in entries if e.status == Entry.Status.WAITING],
    }


def status_label(t: Tournament) -> str:
    """The tournament's status in the page's words: with a context of its own, because "läuft" of a table
    is "in play" and of a tournament "running"."""
    labels: dict[str, str] = {
        Tournament.Status.REGISTRATION: pgettext("tournament status", "Anmeldung offen"),
        Tournament.Status.RUNNING: pgettext("tournament status", "läuft"),
        Tournament.Status.FINISHED: pgettext("tournament status", "beendet"),
        Tournament.Status.CANCELLED: pgettext("tournament status", "abgesagt"),
    }
    return labels.get(t.status, t.get_status_display())


def _check_in_open(t: Tournament) -> bool:
    if t.status != Tournament.Status.REGISTRATION or not t.settings.get("check_in_minutes"):
        return False
    opens = services.check_in_opens_at(t)
    return opens is None or timezone.now() >= opens


def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    t = get_object_or_404(Tournament.objects.exclude(status=Tournament.Status.DRAFT), pk=tournament_id)
    services.tournament_seen(tournament_id=t.pk, user=request.user)  # present for an arena's pairing
    return render(request, "tournaments/detail.html", _context(request, t))


@require_GET
def tournament_live(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The page's live parts (header with status, countdown and buttons; tables and standings; participants),
    for its refresh."""
    t = get_object_or_404(Tournament.objects.exclude(status=Tournament.Status.DRAFT), pk=tournament_id)
    services.tournament_seen(tournament_id=t.pk, user=request.user)
    return render(request, "tournaments/_live_parts.html", _context(request, t))


@require_GET
def table_end(request: HttpRequest, table_id: int) -> JsonResponse:
    """What a tournament table's end view says about the tournament (``selectors.table_end_facts``)."""
    facts = selectors.table_end_facts(table_id=table_id, user=request.user)
    if facts is None:
        raise Http404(_("Dieser Tisch gehört zu keinem Turnier."))
    # Whoever looks at the end of their table is present for an arena's next pairing.
    tournament_id = StageTable.objects.filter(table_id=table_id).values_list("stage__tournament_id", flat=True).first()
    if tournament_id is not None:
        services.tournament_seen(tournament_id=tournament_id, user=request.user)
    return JsonResponse(facts)


def _player_action(service, success):
    @login_required
    @require_POST
    def view(request: HttpRequest, tournament_id: int) -> HttpResponse:
        try:
            service(tournament_id=tournament_id, user=request.user)
        except TournamentError as error:
            messages.error(request, error.message)
        else:
            messages.success(request, success())
        return redirect("tournaments:detail", tournament_id=tournament_id)
    return view


register = _player_action(services.tournament_register, lambda: _("Du bist angemeldet."))
pause = _player_action(services.tournament_player_pause, lambda: _("Du machst Pause; du wirst nicht gepaart, bis du "
                                                                  "weiterspielst."))
resume = _player_action(services.tournament_player_resume, lambda: _("Du spielst weiter."))
withdraw = _player_action(services.tournament_withdraw, lambda: _("Du bist abgemeldet."))
check_in = _player_action(services.tournament_check_in, lambda: _("Du bist eingecheckt."))


# --- staff ------------------------------------------------------------------------------------------------
# Every staff post is read by a form of tournaments.forms; a refusal (a field error or the service's) shows
# the staff page again with the posted values and the reason (400), a success redirects with a message.


@staff_member_required
def staff_create(request: HttpRequest) -> HttpResponse:
    """The create form, with the fields of the kind chosen (``?kind=gin:swiss`` without JavaScript; the page's
    script swaps the kinds' fields in place)."""
    form = forms.TournamentCreateForm(request.POST if request.method == "POST" else None, auto_id="id_create_%s",
                                      kind=request.GET.get("kind"))
    if form.is_bound and form.is_valid():
        try:
            t = services.tournament_create(by=request.user, **form.service_kwargs())
        except (TournamentError, NotImplementedError) as error:
            form.add_error(None, getattr(error, "message", str(error)))
        else:
            return redirect("tournaments:staff", tournament_id=t.pk)
    return render(request, "tournaments/staff_create.html", {"form": form, "time_zone": forms.time_zone_name()},
                  status=400 if form.is_bound else 200)


#: Each staff action's form; the actions of one participant or one table are keyed by it on the page.
_ACTION_FORMS = {
    "edit": forms.TournamentEditForm, "publish": forms.PublishForm, "start": forms.StaffForm,
    "next_stage": forms.StaffForm, "pause": forms.ReasonForm, "resume": forms.ReasonForm,
    "cancel": forms.CancelForm, "remove": forms.PlayerForm, "reinstate": forms.PlayerForm,
}


def _action_form(action: str, t: Tournament, data=None, *, key=None, names=None, tables=None, user_ids=None):
    """The form of ``action`` (bound to ``data`` when given), with ids unique on the staff page. ``tables``
    and ``user_ids`` are the tournament's correctable tables and participants, when the caller has them."""
    if action == "correct":
        stage_table = key if data is None else None
        form = forms.result_correct_form(data, tournament=t, names=names or {}, stage_table=stage_table,
                                         tables=tables)
        key = form.stage_table.pk if form.stage_table is not None else "x"
        form.auto_id = f"id_correct_{key}_%s"
        return form
    if action in ("remove", "reinstate"):
        key = key if data is None else str(data.get("user_id", "")).strip()
        initial = {"user_id": key} if data is None else None
        form = _ACTION_FORMS[action](data, tournament=t, initial=initial, user_ids=user_ids)
        form.auto_id = f"id_{action}_{key if str(key).isdigit() else 'x'}_%s"
        return form
    return _ACTION_FORMS[action](data, tournament=t, auto_id=f"id_{action}_%s")


def _posted_key(action: str | None, form) -> str | None:
    """Which participant or table a refused post was for (its form is shown in that one's place)."""
    if action in ("remove", "reinstate"):
        return str(form.data.get("user_id", "")).strip()
    if action == "correct" and form.stage_table is not None:
        return str(form.stage_table.pk)
    return None


def _staff_page(request: HttpRequest, t: Tournament, *, bound=None, status: int = 200) -> HttpResponse:
    """The staff page; ``bound`` is ``(action, form)`` of a refused post, shown in its place with its values."""
    context = _context(request, t)
    names = context["names"]
    action, refused = bound or (None, None)
    refused_key = _posted_key(action, refused) if refused is not None else None
    tables = forms.correctable_tables(t)
    user_ids = [e.user_id for e in context["entries"]]

    def form_of(name, key=None):
        """The refused form in its own place (the same action, participant or table), else a fresh one."""
        mine = refused is not None and name == action and (key is None or str(getattr(key, "pk", key)) == refused_key)
        return refused if mine else _action_form(name, t, key=key, names=names, tables=tables, user_ids=user_ids)

    states = selectors.entry_final_states(tournament=t, entries=context["entries"])
    over = t.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED)
    context["entry_rows"] = [{"e": e, "state": states.get(e.user_id), "actions": not over,
                              "remove": form_of("remove", e.user_id),
                              "reinstate": form_of("reinstate", e.user_id)} for e in context["entries"]]
    context["stage_tables"] = [
        {"stage": st.stage.number, "st": st, "names": [names.get(u, _("Freilos")) for u in st.users],
         "label": selectors.tournament_format(tournament=t).stage_table_label(st.stage.number, st.number),
         "form": form_of("correct", st)}
        for st in tables]
    context.update({
        "forms": {name: form_of(name) for name in ("edit", "publish", "start", "next_stage", "pause", "resume",
                                                   "cancel")},
        "audit": selectors.audit_in_words(tournament=t),
        "refused": refused.error_lines() if refused is not None else [], "time_zone": forms.time_zone_name(),
        "next_stage_now": selectors.tournament_format(tournament=t).next_stage_now_label(),
    })
    return render(request, "tournaments/staff.html", context, status=status)


@staff_member_required
def staff_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _staff_page(request, get_object_or_404(Tournament, pk=tournament_id))


def _staff_run(action: str, t: Tournament, form, by) -> None:
    """Call the service of ``action`` with the form's checked values."""
    data = form.cleaned_data
    if action == "edit":
        services.tournament_edit(tournament_id=t.pk, by=by, **form.service_kwargs())
    elif action in ("remove", "reinstate"):
        service = services.tournament_player_remove if action == "remove" else services.tournament_player_reinstate
        service(tournament_id=t.pk, user_id=data["user_id"], by=by, reason=data["reason"])
    elif action == "correct":
        services.tournament_result_correct(tournament_id=t.pk, stage_table_id=form.stage_table.pk, by=by,
                                           result=form.result(), reason=data["reason"])
    elif action in ("pause", "resume", "cancel"):
        _STAFF_ACTIONS[action](tournament_id=t.pk, by=by, reason=data["reason"])
    else:
        _STAFF_ACTIONS[action](tournament_id=t.pk, by=by)


_STAFF_ACTIONS: dict[str, Callable[..., object]] = {
    "publish": services.tournament_publish, "start": services.tournament_start,
    "next_stage": services.tournament_next_stage, "pause": services.tournament_pause,
    "resume": services.tournament_resume, "cancel": services.tournament_cancel,
}


@staff_member_required
@require_POST
def staff_action(request: HttpRequest, tournament_id: int, action: str) -> HttpResponse:
    t = get_object_or_404(Tournament, pk=tournament_id)
    if action not in _ACTION_FORMS and action != "correct":
        messages.error(request, _("Unbekannte Aktion."))
        return redirect("tournaments:staff", tournament_id=tournament_id)
    names = _names(u for st in forms.correctable_tables(t) for u in st.users) if action == "correct" else None
    form = _action_form(action, t, request.POST, names=names)
    if form.is_valid():
        try:
            _staff_run(action, t, form, request.user)
        except TournamentError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, _("Erledigt."))
            return redirect("tournaments:staff", tournament_id=tournament_id)
    return _staff_page(request, Tournament.objects.get(pk=t.pk), bound=(action, form), status=400)


#: What a spreadsheet runs as a formula (or a DDE call) when a cell starts with it (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def spreadsheet_cell(cell: str) -> str:
    """``cell`` as a spreadsheet shows it as text: one that starts like a formula gets a leading ``'`` (the
    OWASP way), except a plain number such as a list result of -700, which stays a number.

    >>> [spreadsheet_cell(c) for c in ("anna", "-1+1x", "@SUMx", "=1", "-700", "+5 ben")]
    ['anna', "'-1+1x", "'@SUMx", "'=1", '-700', "'+5 ben"]
    """
    if cell.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def csv_neutralised(text: str, *, delimiter: str = ";") -> str:
    """The CSV ``text`` with every cell passed through ``spreadsheet_cell`` (quoting as the csv module does)."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter)
    for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter):
        writer.writerow([spreadsheet_cell(cell) for cell in row])
    return out.getvalue()


def _csv_header(t: Tournament, code: str) -> str:
    """A header code of the standings CSV (``place``, ``player``, a standings key, ``stage N``) in the
    request's language, with the labels the tournament's page uses."""
    fmt = selectors.tournament_format(tournament=t)
    labels = {"place": _("Platz"), "player": pgettext("column", "Spieler"), **{key: label for label, key in fmt.columns()}}
    if code in labels:
        return str(labels[code])
    if code.startswith("stage ") and code[6:].isdigit():
        return fmt.stage_label(int(code[6:]))
    if code.startswith("stage ") and code.endswith(" opponent") and code[6:-9].isdigit():
        return _("%(stage)s Gegner") % {"stage": fmt.stage_label(int(code[6:-9]))}
    return code


def _csv_in_words(t: Tournament, text: str) -> str:
    """The standings CSV of the service with its header row, and a bye, in words."""
    rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=";"))
    if rows:
        opponents = [i for i, code in enumerate(rows[0]) if code.endswith(" opponent")]
        rows[0] = [_csv_header(t, code) for code in rows[0]]
        for row in rows[1:]:
            for i in opponents:
                if i < len(row) and row[i] == "bye":
                    row[i] = _("Freilos")
    out = io.StringIO()
    csv.writer(out, delimiter=";").writerows(rows)
    return out.getvalue()


def _audit_csv(t: Tournament) -> str:
    """The audit log as CSV rows after the standings: an empty row, a title, then who, when, what, why."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";")
    writer.writerow([])
    writer.writerow([_("Protokoll")])
    writer.writerow([_("Wann"), _("Wer"), _("Was"), _("Warum")])
    for a in selectors.audit_in_words(tournament=t):
        when = timezone.localtime(a["at"]).strftime("%Y-%m-%d %H:%M:%S")
        writer.writerow([when, a["by"] or _("automatisch"), a["what"], a["reason"]])
    return out.getvalue()


@staff_member_required
def staff_csv(request: HttpRequest, tournament_id: int) -> HttpResponse:
    t = get_object_or_404(Tournament, pk=tournament_id)
    # Player names are chosen by players: none may reach a spreadsheet as a formula.
    standings = services.tournament_standings_csv(tournament_id=t.pk, by=request.user)
    text = csv_neutralised(_csv_in_words(t, standings) + _audit_csv(t))
    response = HttpResponse("\ufeff" + text, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="turnier-{t.pk}.csv"'
    return response
