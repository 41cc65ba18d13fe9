"""The pages of live play: the lobby with its create-table form, the table page, invitations and the match
record download. Views are thin: reads go through ``games.reads.selectors``, every change through
``games.services``; the live part of a table runs over its WebSocket (docs/protocol.md)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from games import panels, registry, services
from games.delivery import notices
from games.kinds.base import BadOption
from games.models import BotLevel
from games.reads import matches as match_selectors
from games.reads import records as records_export
from games.reads import selectors
from games.reads.policy import table_policy
from games.reads.presenters import seat_of_user, table_state
from games.services import ServiceError
from games.web.match_views import record_download, staff_only_page

# --- the create-table form: each game's presets first, its options under "details" (games.registry) --------

#: Computer players' levels as the pages name them (the model's labels are German only).
BOT_LEVELS = [
    ("simple", gettext_lazy("Anfänger")),
    ("advanced", gettext_lazy("Fortgeschritten")),
    ("expert", gettext_lazy("Experte")),
]
#: One line per level where computer players are chosen.
BOT_LEVEL_LINES = {
    "simple": gettext_lazy("Spielt nach Schema: nimmt nur, was sofort passt, und klopft so früh es geht."),
    "advanced": gettext_lazy("Plant seine Hand und wirft mit Bedacht ab, merkt sich aber nicht, was du sammelst."),
    "expert": gettext_lazy("Merkt sich, was du aufnimmst und liegen lässt, hält gefährliche Karten zurück und "
                           "wartet auf Gin."),
}
BOT_LEVEL_CHOICES = [(value, label, BOT_LEVEL_LINES[value]) for value, label in BOT_LEVELS]


def _options_from_form(game: str, data) -> dict:
    """The details the player changed (empty fields keep the preset's value). A field the form does not
    have (a forged ``gin-seats``, ``gin-foo``) is refused, not silently dropped."""
    entry = registry.get(game)
    known = {f"{game}-{field.name}" for field in entry.option_fields} | {f"{game}-preset"}
    for name in data:
        if name.startswith(f"{game}-") and name not in known:
            raise ServiceError(
                "bad_options", _("Unbekannte Option: %(name)s") % {"name": name.removeprefix(f"{game}-")}
            )
    options = {}
    for field in entry.option_fields:
        raw = (data.get(f"{game}-{field.name}") or "").strip()
        if raw and raw != "preset":
            try:
                options[field.name] = field.parse(raw)
            except BadOption as error:
                raise ServiceError("bad_options", str(error)) from None
    return options


def option_summary(game: str, options: dict) -> list[str]:
    """The options that matter at a glance, as short German/English labels for the lobby."""
    parts = registry.get(game).option_summary(options)
    seconds = options.get("turn_seconds", 45)
    parts.append(f"{seconds // 60} min" if seconds >= 120 else f"{seconds} s")
    return parts


def _lobby_rows(user) -> list[dict]:
    rows = []
    for summary in selectors.lobby_tables():
        summary = dict(summary)
        summary["labels"] = option_summary(summary["game"], summary.get("options") or {})
        entry = registry.get(summary["game"])
        summary["game_name"] = entry.label
        summary["sign"], summary["sign_class"] = entry.sign, entry.sign_class
        summary["mine"] = False
        levels = dict(BOT_LEVELS)
        summary["seats"] = [
            {**seat, "name": _("Computer %(n)s (%(level)s)") % {"n": seat["index"] + 1, "level": levels.get(seat["bot"], seat["bot"])}}
            if seat.get("bot") else seat
            for seat in summary["seats"]
        ]
        rows.append(summary)
    # A tournament's table is listed under the tournament's name (told by the tournaments app), in place of
    # the generic "Turnier (Wertungspunkte)" of Masters scoring.
    tournaments = notices.table_tournaments(row["id"] for row in rows)
    generic = _("Turnier (Wertungspunkte)")
    for row in rows:
        facts = tournaments.get(row["id"])
        if facts:
            where = facts.get("where") or _("Runde %(stage)s, Tisch %(table)s") % {
                "stage": facts.get("stage", "–"), "table": facts.get("table", "–")}
            named = _("Turnier: %(name)s · %(where)s") % {"name": facts["tournament"], "where": where}
            row["labels"] = [named, *(label for label in row["labels"] if label != generic)]
            row["tournament_url"] = facts.get("tournament_url", "")
    if user.is_authenticated:
        mine = set(selectors.user_tables(user=user).values_list("pk", flat=True))
        for row in rows:
            row["mine"] = row["id"] in mine
    # Same-deals tournament tables: only staff watch until the stage has ended, so no "watch" for others.
    staff_only = selectors.tables_staff_only(table_ids=[row["id"] for row in rows], user=user)
    for row in rows:
        row["staff_only"] = row["id"] in staff_only
    return rows


def _lobby_context(request: HttpRequest, *, form_game: str = "", form_errors: str = "", posted=None) -> dict:
    games = []
    for entry in registry.entries():
        game = entry.name
        fields = []
        for field in entry.option_fields:
            selected = (posted or {}).get(f"{game}-{field.name}", "") if posted else ""
            fields.append({"name": f"{game}-{field.name}", "label": field.label, "choices": field.choices,
                           "selected": selected})
        chosen_preset = (posted or {}).get(f"{game}-preset") or entry.default_preset
        games.append(
            {
                "code": game,
                "name": entry.label,
                "sign": entry.sign,
                "stylesheet": entry.stylesheet,
                "presets": [
                    {"code": p.code, "name": p.name, "help": p.help, "checked": p.code == chosen_preset}
                    for p in entry.presets
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
        "form_game": form_game or games[0]["code"],
        "form_errors": form_errors,
        "posted": posted or {},
        "my_tables": my_tables,
        "bot_levels": BOT_LEVELS,
        "bot_level_choices": BOT_LEVEL_CHOICES,
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
    if not registry.is_game(game):
        messages.error(request, _("Bitte wähle ein Spiel: Gin Rommé oder Rommé."))
        return redirect("games:lobby")
    try:
        preset = request.POST.get(f"{game}-preset", "")
        options = registry.get(game).form_options(preset, _options_from_form(game, request.POST))
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
    if not registry.is_game(game) or registry.get(game).bots is None:
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
    refusal = selectors.watch_refusal(table=table, user=request.user)
    if refusal is not None:
        return staff_only_page(request, refusal)
    snapshot = selectors.table_snapshot(table=table)
    seat = seat_of_user(snapshot.seats, request.user)
    frame = table_state(snapshot, seat)
    ws_path = f"/ws/table/{table.pk}/"  # games/web/routing.py
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
        # The game's client module (its package's static folder): table.js imports it for the game's hooks.
        "client_module": registry.get(table.game).client_module,
        "stylesheet": registry.get(table.game).stylesheet,
        "invite_url": invite_url,
        "invite_token": token,
        "free_seats": free_seats,
        "bot_levels": BOT_LEVELS,
        "bot_level_choices": BOT_LEVEL_CHOICES,
        "chat_on": table_policy(table).chat,
        # What other apps name under the title (tournaments: the tournament, with a link).
        "head_links": [link for found in panels.collect(panels.TABLE_HEAD, table=table) for link in found],
    }
    return render(request, "games/table.html", context)


@require_GET
def match_record(request: HttpRequest, table_id: int) -> HttpResponse:
    """The signed game record (records.md) of the table's current or last match: only rounds that have ended
    (built by ``games.reads.records``, as the match page's download)."""
    table = selectors.table_get(table_id=table_id)
    if table is None or not selectors.table_may_watch(table=table, user=request.user, invite_token=request.GET.get("einladung", "")):
        raise Http404(_("Diesen Tisch gibt es nicht."))
    refusal = selectors.watch_refusal(table=table, user=request.user)
    if refusal is not None:
        return JsonResponse({"error": "staff_only", "message": refusal}, status=403)
    match = table.current_match
    number = request.GET.get("partie", "")
    if number and not (number.isascii() and number.isdigit() and len(number) <= 9):  # int() refuses 4,300+ digits
        raise Http404(_("Diese Partie gibt es nicht."))
    if number:
        # An earlier match at the same table (before a rematch), by its number.
        match = match_selectors.table_match(table=table, number=int(number))
    if match is None:
        raise Http404(_("An diesem Tisch wurde noch nicht gespielt."))
    record = records_export.record_export(match=match)
    return record_download(record, filename=f"{match.game}-tisch{table.pk}-partie{match.number}.json")
