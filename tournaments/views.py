"""The tournament pages: the list (/turniere/), a tournament's page, and the staff page per tournament.
Thin: every write is one call of ``tournaments.services``; a refusal is shown as a message."""

from __future__ import annotations

from datetime import datetime

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from tournaments import selectors, services
from tournaments.models import Entry, Tournament
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
    words = selectors.tournament_format(tournament=t).words()
    if s["max_players"]:
        words.append(_("Höchstens %(n)d Teilnehmer") % {"n": s["max_players"]})
    words.append(_("Mindestens %(n)d Teilnehmer") % {"n": s["min_players"]})
    if s["check_in_minutes"]:
        words.append(_("Einchecken %(m)d Minuten vor dem Start") % {"m": s["check_in_minutes"]})
    else:
        words.append(_("Kein Einchecken nötig"))
    words.append(_("%(m)d Minuten Pause zwischen den Runden") % {"m": s["break_minutes"]})
    words.append(_("Gewertete Tische, kein Chat, keine Computergegner"))
    return words


def _context(request: HttpRequest, t: Tournament) -> dict:
    standings = selectors.tournament_standings(tournament_id=t.pk)
    tables = selectors.tournament_tables(tournament_id=t.pk)
    entries = list(t.entries.select_related("user").order_by("number"))
    names = _names([e.user_id for e in entries] + [u for r in tables for u in r["users"]])
    me = request.user.pk if request.user.is_authenticated else None
    tables.sort(key=lambda r: me not in r["users"])  # the player's own table first
    for row in tables:
        row["names"] = [names.get(u, _("Freilos")) if u else _("Freilos") for u in row["users"]]
        row["mine"] = me in row["users"]
    fmt = selectors.tournament_format(tournament=t)
    columns = fmt.columns()
    for row in standings:
        row["name"] = names.get(row["user_id"], "?")
        row["cells"] = [row.get(key) for _label, key in columns]
        row["stage_cells"] = [fmt.stage_cell(entry, names) for entry in row["stages"]]
    stage_numbers = list(range(1, max((len(r["stages"]) for r in standings), default=0) + 1))
    countdown = t.starts_at if t.status == Tournament.Status.REGISTRATION else (
        t.next_stage_at if t.status == Tournament.Status.RUNNING and not t.paused else None)
    return {
        "t": t, "words": settings_in_words(t), "standings": standings, "tables": tables, "entries": entries,
        "names": names, "entry": selectors.entry_of(tournament=t, user=request.user), "stage_numbers": stage_numbers,
        "format_label": fmt.label, "columns": [label for label, _key in columns],
        "stage_labels": [fmt.stage_label(n) for n in stage_numbers],
        "countdown": countdown, "places_left": selectors.places_left(t),
        "check_in_open": _check_in_open(t), "bracket": fmt.bracket(names),
        "players": [e for e in entries if e.status in (Entry.Status.REGISTERED, Entry.Status.PLAYING,
                                                        Entry.Status.REMOVED)],
        "waiting": [e for e in entries if e.status == Entry.Status.WAITING],
    }


def _check_in_open(t: Tournament) -> bool:
    if t.status != Tournament.Status.REGISTRATION or not t.settings.get("check_in_minutes"):
        return False
    opens = services.check_in_opens_at(t)
    return opens is None or timezone.now() >= opens


def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    t = get_object_or_404(Tournament.objects.exclude(status=Tournament.Status.DRAFT), pk=tournament_id)
    return render(request, "tournaments/detail.html", _context(request, t))


@require_GET
def tournament_live(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The standings and tables alone, for the page's live refresh."""
    t = get_object_or_404(Tournament.objects.exclude(status=Tournament.Status.DRAFT), pk=tournament_id)
    return render(request, "tournaments/_live.html", _context(request, t))


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
withdraw = _player_action(services.tournament_withdraw, lambda: _("Du bist abgemeldet."))
check_in = _player_action(services.tournament_check_in, lambda: _("Du bist eingecheckt."))


# --- staff ------------------------------------------------------------------------------------------------


def _when(raw: str) -> datetime | None:
    if not raw:
        return None
    parsed = parse_datetime(raw)
    if parsed is None:
        raise TournamentError("bad_settings", _("Startzeit bitte als JJJJ-MM-TT HH:MM."))
    return timezone.make_aware(parsed) if timezone.is_naive(parsed) else parsed


def _ints(post, names) -> dict:
    out = {}
    for name in names:
        raw = post.get(name, "").strip()
        if raw:
            try:
                out[name] = int(raw)
            except ValueError:
                raise TournamentError("bad_settings", _("%(n)s muss eine ganze Zahl sein.") % {"n": name}) from None
    return out


@staff_member_required
def staff_create(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        kind = request.POST.get("kind", "romme:series")
        game, _sep, format = kind.partition(":")
        settings = _ints(request.POST, ("series", "rounds", "table_size", "max_players", "check_in_minutes",
                                        "break_minutes", "forfeit_minutes"))
        if game == "romme":
            settings["same_deals"] = request.POST.get("same_deals") == "on"
            settings = {k: v for k, v in settings.items() if k != "forfeit_minutes"}
        else:
            settings = {k: v for k, v in settings.items() if k not in ("series", "table_size")}
        options = _ints(request.POST, ("target",)) if game == "gin" else {}
        try:
            t = services.tournament_create(by=request.user, name=request.POST.get("name", ""), game=game,
                                           format=format, settings=settings, options=options,
                                           starts_at=_when(request.POST.get("starts_at", "")))
        except (TournamentError, NotImplementedError) as error:
            messages.error(request, getattr(error, "message", str(error)))
            return render(request, "tournaments/staff_create.html", {"posted": request.POST}, status=400)
        return redirect("tournaments:staff", tournament_id=t.pk)
    return render(request, "tournaments/staff_create.html", {"posted": {}})


@staff_member_required
def staff_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    t = get_object_or_404(Tournament, pk=tournament_id)
    context = _context(request, t)
    context["audit"] = t.audit.select_related("by").order_by("-at", "-pk")
    context["stage_tables"] = [
        {"stage": st.stage.number, "st": st, "names": [context["names"].get(u, _("Freilos")) for u in st.users]}
        for stage in selectors.stages_of(t) for st in stage.tables.all() if st.finished_at
    ]
    return render(request, "tournaments/staff.html", context)


_STAFF_ACTIONS = {
    "publish": services.tournament_publish, "start": services.tournament_start,
    "next_stage": services.tournament_next_stage, "pause": services.tournament_pause,
    "resume": services.tournament_resume, "cancel": services.tournament_cancel,
}


@staff_member_required
@require_POST
def staff_action(request: HttpRequest, tournament_id: int, action: str) -> HttpResponse:
    reason = request.POST.get("reason", "").strip()
    try:
        if action in _STAFF_ACTIONS:
            kwargs = {"reason": reason} if action in ("pause", "resume", "cancel") else {}
            _STAFF_ACTIONS[action](tournament_id=tournament_id, by=request.user, **kwargs)
        elif action in ("remove", "reinstate"):
            service = services.tournament_player_remove if action == "remove" else services.tournament_player_reinstate
            service(tournament_id=tournament_id, user_id=int(request.POST.get("user_id", "0")), by=request.user,
                    reason=reason)
        elif action == "correct":
            _correct(request, tournament_id, reason)
        elif action == "edit":
            services.tournament_edit(tournament_id=tournament_id, by=request.user, name=request.POST.get("name"),
                                     starts_at=_when(request.POST.get("starts_at", "")))
        else:
            messages.error(request, _("Unbekannte Aktion."))
            return redirect("tournaments:staff", tournament_id=tournament_id)
    except TournamentError as error:
        messages.error(request, error.message)
    except ValueError:
        messages.error(request, _("Ungültige Eingabe."))
    else:
        messages.success(request, _("Erledigt."))
    return redirect("tournaments:staff", tournament_id=tournament_id)


def _correct(request: HttpRequest, tournament_id: int, reason: str) -> None:
    t = get_object_or_404(Tournament, pk=tournament_id)
    stage_table_id = int(request.POST.get("stage_table_id", "0"))
    if t.game == "gin":
        result = {"winner": int(request.POST.get("winner", "0")), "margin": int(request.POST.get("margin", "0"))}
    else:
        seats = []
        for user_id in request.POST.getlist("user_id"):
            seats.append({"user_id": int(user_id),
                          "wertungspunkte": int(request.POST.get(f"wp_{user_id}", "0")),
                          "augen": int(request.POST.get(f"augen_{user_id}", "0")),
                          "rounds_won": int(request.POST.get(f"won_{user_id}", "0")),
                          "abbruch": request.POST.get(f"abbruch_{user_id}") == "on"})
        result = {"seats": seats}
    services.tournament_result_correct(tournament_id=tournament_id, stage_table_id=stage_table_id,
                                       by=request.user, result=result, reason=reason)


@staff_member_required
def staff_csv(request: HttpRequest, tournament_id: int) -> HttpResponse:
    t = get_object_or_404(Tournament, pk=tournament_id)
    text = services.tournament_standings_csv(tournament_id=t.pk, by=request.user)
    response = HttpResponse("\ufeff" + text, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="turnier-{t.pk}.csv"'
    return response
