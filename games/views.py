"""The pages of live play: the lobby with its create-table form, the table page, invitations and the match
record download. Views are thin: reads go through ``games.selectors``, every change through
``games.services``; the live part of a table runs over its WebSocket (docs/protocol.md)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from games import engines, selectors, services
from games.models import BotLevel, Game
from games.policy import table_policy
from games.presenters import seat_of_user, table_state
from games.services import ServiceError

# --- the create-table form: presets first, every option of gin.md / romme.md under "details" -----------

#: Each preset's name and one line that says what it is, in the order the lobby offers them.
PRESET_LABELS: dict[str, list[tuple[str, Any, Any]]] = {
    "gin": [
        ("klassisch", gettext_lazy("Klassisch"), gettext_lazy("Bis 100 Punkte, Angebot der ersten Karte, Partie- und Rundenbonus")),
        ("schnell", gettext_lazy("Schnell"), gettext_lazy("Eine gewertete Runde entscheidet")),
        ("oklahoma", gettext_lazy("Oklahoma"), gettext_lazy("Die erste Karte setzt die Klopfgrenze, Pik zählt doppelt")),
        ("straight", gettext_lazy("Straight Gin"), gettext_lazy("Kein Klopfen – nur Gin beendet die Runde")),
        ("hollywood", gettext_lazy("Hollywood"), gettext_lazy("Drei Partien auf einmal, in drei Spalten")),
    ],
    "romme": [
        ("standard", gettext_lazy("Standard"), gettext_lazy("Auslegen ab 40 Punkten, Minuspunkte, eine Liste")),
        ("turnier", gettext_lazy("Turnier (Masters)"), gettext_lazy("Wertungspunkte nach der Masters-Wertung, ohne Chat")),
    ],
}

#: Computer players' levels as the pages name them (the model's labels are German only).
BOT_LEVELS = [("simple", gettext_lazy("Einfach")), ("expert", gettext_lazy("Experte"))]

YES_NO = [("true", gettext_lazy("ja")), ("false", gettext_lazy("nein"))]

#: The details of each game: (option, label, [(value, label), ...]). Values are sent as text and parsed by
#: ``_parse_option`` into what the engine expects; an empty choice keeps the preset's value.
OPTION_FIELDS: dict[str, list[tuple[str, Any, list[tuple[str, Any]]]]] = {
    "gin": [
        ("target", gettext_lazy("Partie bis"), [("100", "100"), ("0", gettext_lazy("eine Runde")), ("50", "50"), ("150", "150"), ("200", "200")]),
        ("variant", gettext_lazy("Variante"), [("standard", gettext_lazy("Standard (Klopfen bis 10)")), ("oklahoma", "Oklahoma"), ("straight", "Straight Gin")]),
        ("first_turn", gettext_lazy("Erster Zug"), [("pass", gettext_lazy("Angebot der offenen Karte (klassisch)")), ("free", gettext_lazy("Freier erster Zug"))]),
        ("next_dealer", gettext_lazy("Nächster Geber"), [("winner", gettext_lazy("Gewinner der Runde")), ("loser", gettext_lazy("Verlierer der Runde")), ("alternate", gettext_lazy("abwechselnd"))]),
        ("undercut_bonus", gettext_lazy("Unterbieten-Bonus"), [("25", "25"), ("20", "20"), ("10", "10")]),
        ("gin_bonus", gettext_lazy("Gin-Bonus"), [("25", "25"), ("20", "20")]),
        ("big_gin", gettext_lazy("Big Gin erlaubt (31 Bonus)"), [("false", gettext_lazy("nein")), ("true", gettext_lazy("ja"))]),
        ("match_bonuses", gettext_lazy("Partie- und Rundenbonus (100 / 25)"), YES_NO),
        ("hollywood", gettext_lazy("Hollywood (drei Spalten)"), [("false", gettext_lazy("nein")), ("true", gettext_lazy("ja"))]),
        ("turn_seconds", gettext_lazy("Bedenkzeit pro Zug"), [("45", "45 s"), ("30", "30 s"), ("60", "60 s"), ("90", "90 s"), ("600", "10 min")]),
    ],
    "romme": [
        ("seats", gettext_lazy("Spieler"), [("4", "4"), ("2", "2"), ("3", "3"), ("5", "5"), ("6", "6")]),
        ("opening_points", gettext_lazy("Auslegen ab"), [("40", gettext_lazy("40 Punkten")), ("30", gettext_lazy("30 Punkten")), ("0", gettext_lazy("sofort"))]),
        ("rounds", gettext_lazy("Runden in der Liste"), [("", gettext_lazy("zweimal die Spielerzahl")), *[(str(n), str(n)) for n in (2, 4, 6, 8, 10, 12)]]),
        ("turn_seconds", gettext_lazy("Bedenkzeit pro Zug"), [("45", "45 s"), ("30", "30 s"), ("60", "60 s"), ("90", "90 s"), ("600", "10 min")]),
        ("scoring", gettext_lazy("Wertung"), [("casual", gettext_lazy("Minuspunkte")), ("masters", gettext_lazy("Masters: Wertungspunkte, ohne Chat"))]),
    ],
}
_INT_OPTIONS = {"target", "undercut_bonus", "gin_bonus", "turn_seconds", "seats", "opening_points", "rounds"}
_BOOL_OPTIONS = {"big_gin", "match_bonuses", "hollywood"}


def _parse_option(name: str, raw: str) -> Any:
    if name in _INT_OPTIONS:
        try:
            return int(raw)
        except ValueError:
            raise ServiceError("bad_options", _("%(name)s muss eine ganze Zahl sein.") % {"name": name}) from None
    if name in _BOOL_OPTIONS:
        if raw not in ("true", "false"):
            raise ServiceError("bad_options", _("%(name)s ist ja oder nein.") % {"name": name})
        return raw == "true"
    return raw


def _options_from_form(game: str, data) -> dict:
    """The details the player changed (empty fields keep the preset's value). A field the form does not
    have (a forged ``gin-seats``, ``gin-foo``) is refused, not silently dropped."""
    known = {f"{game}-{name}" for name, _label, _choices in OPTION_FIELDS[game]} | {f"{game}-preset"}
    for field in data:
        if field.startswith(f"{game}-") and field not in known:
            raise ServiceError(
                "bad_options", _("Unbekannte Option: %(name)s") % {"name": field.removeprefix(f"{game}-")}
            )
    options = {}
    for name, _label, _choices in OPTION_FIELDS[game]:
        raw = (data.get(f"{game}-{name}") or "").strip()
        if raw and raw != "preset":
            options[name] = _parse_option(name, raw)
    return options


def option_summary(game: str, options: dict) -> list[str]:
    """The options that matter at a glance, as short German/English labels for the lobby."""
    parts: list[str] = []
    if game == "gin":
        target = options.get("target", 100)
        parts.append(_("eine Runde") if target == 0 else _("bis %(n)s") % {"n": target})
        variant = options.get("variant", "standard")
        if variant != "standard":
            parts.append({"oklahoma": "Oklahoma", "straight": "Straight Gin"}.get(variant, variant))
        if options.get("hollywood"):
            parts.append("Hollywood")
        if options.get("first_turn") == "free":
            parts.append(_("freier erster Zug"))
        if options.get("big_gin"):
            parts.append("Big Gin")
        if target and not options.get("match_bonuses", True):
            parts.append(_("ohne Boni"))
    else:
        if engines.masters_scoring(game, options):
            parts.append(_("Turnier (Wertungspunkte)"))
        opening = options.get("opening_points", 40)
        parts.append(_("Auslegen ab %(n)s") % {"n": opening} if opening else _("Auslegen sofort"))
        if options.get("rounds"):
            parts.append(_("%(n)s Runden") % {"n": options["rounds"]})
    seconds = options.get("turn_seconds", 45)
    parts.append(f"{seconds // 60} min" if seconds >= 120 else f"{seconds} s")
    return parts


def _lobby_rows(user) -> list[dict]:
    rows = []
    for summary in selectors.lobby_tables():
        summary = dict(summary)
        summary["labels"] = option_summary(summary["game"], summary.get("options") or {})
        summary["game_name"] = Game(summary["game"]).label
        summary["mine"] = False
        levels = dict(BOT_LEVELS)
        summary["seats"] = [
            {**seat, "name": _("Computer %(n)s (%(level)s)") % {"n": seat["index"] + 1, "level": levels.get(seat["bot"], seat["bot"])}}
            if seat.get("bot") else seat
            for seat in summary["seats"]
        ]
        rows.append(summary)
    if user.is_authenticated:
        mine = set(selectors.user_tables(user=user).values_list("pk", flat=True))
        for row in rows:
            row["mine"] = row["id"] in mine
    return rows


def _lobby_context(request: HttpRequest, *, form_game: str = "gin", form_errors: str = "", posted=None) -> dict:
    games = []
    for game in ("gin", "romme"):
        fields = []
        for name, label, choices in OPTION_FIELDS[game]:
            selected = (posted or {}).get(f"{game}-{name}", "") if posted else ""
            fields.append({"name": f"{game}-{name}", "label": label, "choices": choices, "selected": selected})
        chosen_preset = (posted or {}).get(f"{game}-preset") or PRESET_LABELS[game][0][0]
        games.append(
            {
                "code": game,
                "name": Game(game).label,
                "presets": [
                    {"code": c, "name": n, "help": h, "checked": c == chosen_preset} for c, n, h in PRESET_LABELS[game]
                ],
                "fields": fields,
            }
        )
    my_tables = []
    if request.user.is_authenticated:
        for table in selectors.user_tables(user=request.user)[:10]:
            status = _("läuft") if table.status == "playing" else _("wartet auf Spieler")
            my_tables.append({"id": table.pk, "game_name": table.get_game_display(), "status": status})
    return {
        "tables": _lobby_rows(request.user),
        "games": games,
        "form_game": form_game,
        "form_errors": form_errors,
        "posted": posted or {},
        "my_tables": my_tables,
        "bot_levels": BOT_LEVELS,
    }


@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    return render(request, "games/lobby.html", _lobby_context(request))


@require_GET
def lobby_tables(request: HttpRequest) -> HttpResponse:
    """The table list alone, for the lobby's live refresh (the lobby socket says when, this says what)."""
    return render(request, "games/_table_list.html", {"tables": _lobby_rows(request.user), "user": request.user})


def _refused(request: HttpRequest, error: ServiceError, *, back: str) -> HttpResponse:
    messages.error(request, error.message)
    return redirect(back)


@login_required
@require_POST
def table_create(request: HttpRequest) -> HttpResponse:
    game = request.POST.get("game", "")
    if game not in Game.values:
        messages.error(request, _("Bitte wähle ein Spiel: Gin Rommé oder Rommé."))
        return redirect("games:lobby")
    try:
        options = _options_from_form(game, request.POST)
        preset = request.POST.get(f"{game}-preset", "")
        if game == "romme" and preset == "turnier":
            options.setdefault("scoring", "masters")
        table = services.table_create(
            user=request.user,
            game=game,
            preset=preset,
            options=options,
            ranked=request.POST.get("ranked") == "on",
            private=request.POST.get("private") == "on",
        )
    except ServiceError as error:
        # Nothing was created: show the form again with the player's choices and the reason.
        context = _lobby_context(request, form_game=game, form_errors=error.message, posted=request.POST)
        return render(request, "games/lobby.html", context, status=400)
    return redirect("games:table", table_id=table.pk)


@login_required
@require_POST
def quick_game(request: HttpRequest, game: str) -> HttpResponse:
    """Schnellspiel gegen den Computer: a casual table with the default preset, computer players seated."""
    if game not in Game.values:
        raise Http404
    try:
        table = services.table_create(user=request.user, game=game, bots=request.POST.get("level") or BotLevel.SIMPLE)
    except ServiceError as error:
        return _refused(request, error, back=reverse("games:lobby"))
    return redirect("games:table", table_id=table.pk)


def _seat_number(raw: str) -> int | None:
    """The seat a join form names: absent means any free seat; anything but a plain number is refused."""
    if raw == "":
        return None
    if not (raw.isascii() and raw.isdigit()):
        raise ServiceError("bad_message", _("Diesen Platz gibt es nicht."))
    return int(raw)


@login_required
@require_POST
def table_join(request: HttpRequest, table_id: int) -> HttpResponse:
    token = request.POST.get("invite", "")
    seat = request.POST.get("seat", "")
    try:
        services.table_join(table_id=table_id, user=request.user, seat=_seat_number(seat), invite_token=token)
    except ServiceError as error:
        if error.code == "already_seated":
            return redirect("games:table", table_id=table_id)
        return _refused(request, error, back=_table_url(table_id, token))
    return redirect("games:table", table_id=table_id)


@login_required
@require_POST
def table_leave(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        services.table_leave(table_id=table_id, user=request.user)
    except ServiceError as error:
        return _refused(request, error, back=_table_url(table_id))
    messages.success(request, _("Du hast deinen Platz freigegeben."))
    return redirect("games:lobby")


@login_required
@require_POST
def table_bots(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        services.table_fill_with_bots(table_id=table_id, user=request.user, level=request.POST.get("level") or BotLevel.SIMPLE)
    except ServiceError as error:
        return _refused(request, error, back=_table_url(table_id))
    return redirect("games:table", table_id=table_id)


def _table_url(table_id: int, token: str = "") -> str:
    url = reverse("games:table", kwargs={"table_id": table_id})
    return f"{url}?einladung={token}" if token else url


@require_GET
def table_detail(request: HttpRequest, table_id: int) -> HttpResponse:
    """The table page: rendered with the current state, so a reload shows play exactly where it was."""
    table = selectors.table_get(table_id=table_id)
    token = request.GET.get("einladung", "")
    if table is None or not selectors.table_may_watch(table=table, user=request.user, invite_token=token):
        # A private table is not revealed to those without an invitation: it looks like no table at all.
        raise Http404(_("Diesen Tisch gibt es nicht."))
    snapshot = selectors.table_snapshot(table=table)
    seat = seat_of_user(snapshot.seats, request.user)
    frame = table_state(snapshot, seat)
    ws_path = f"/ws/table/{table.pk}/"  # games/routing.py
    if token:
        ws_path += f"?invite={token}"
    config = {
        "table_id": table.pk,
        "ws_path": ws_path,
        "state": frame,
        "record_url": reverse("games:record", kwargs={"table_id": table.pk}),
    }
    invite_url = ""
    if table.private and seat is not None:
        invite_url = request.build_absolute_uri(_table_url(table.pk, table.invite_token))
    free_seats = [s for s in snapshot.seats if not s.taken]
    context = {
        "table": table,
        "seats": snapshot.seats,
        "seat": seat,
        "config": config,
        "labels": option_summary(table.game, table.options),
        "invite_url": invite_url,
        "invite_token": token,
        "free_seats": free_seats,
        "bot_levels": BOT_LEVELS,
        "chat_on": table_policy(table).chat,
    }
    return render(request, "games/table.html", context)


@require_GET
def match_record(request: HttpRequest, table_id: int) -> HttpResponse:
    """The game record (records.md) of the table's current or last match: only rounds that have ended."""
    table = selectors.table_get(table_id=table_id)
    if table is None or not selectors.table_may_watch(table=table, user=request.user, invite_token=request.GET.get("einladung", "")):
        raise Http404(_("Diesen Tisch gibt es nicht."))
    match = table.current_match
    number = request.GET.get("partie", "")
    if number and not (number.isascii() and number.isdigit()):
        raise Http404(_("Diese Partie gibt es nicht."))
    if number:
        # An earlier match at the same table (before a rematch), by its number.
        match = table.matches.filter(number=int(number)).first()
    if match is None:
        raise Http404(_("An diesem Tisch wurde noch nicht gespielt."))
    rounds = [r.record for r in match.rounds.filter(finished_at__isnull=False).order_by("number") if r.record]
    record = {
        "game": match.game,
        "options": match.options,
        "players": [p.get("name") for p in match.players],
        "rounds": rounds,
    }
    response = JsonResponse(record, json_dumps_params={"ensure_ascii": False, "indent": 1})
    response["Content-Disposition"] = f'attachment; filename="{match.game}-tisch{table.pk}-partie{match.number}.json"'
    return response
