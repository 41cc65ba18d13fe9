"""The pages about played matches under /partie/: a finished match (score sheet, what other apps add through
``games.panels`` such as rating changes, the replay and the deal check), its signed record, any pasted record
in the same viewer (which checks the signature and the deals in the browser), the site's record key, and
head-to-head between two players.

Views are thin: reads come from ``games.reads.matches``, the record from ``games.reads.records``, the
positions of a replay from ``games.reads.replay`` (the engine steps through the record; the page only shows them).
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from games import panels, registry
from games.engine.errors import InvalidRecord
from games.engine.records import load_record
from games.models import Match
from games.reads import analysis as match_analysis
from games.reads import matches as selectors
from games.reads import records as records_export
from games.reads import selectors as games_selectors
from games.reads.replay import deal_of, replay_positions
from games.web.record_errors import record_problem

#: The largest record the paste form accepts (a long Rommé list is some tens of kB).
RECORD_MAX_BYTES = 512 * 1024


def staff_only_page(request: HttpRequest, reason: str) -> HttpResponse:
    """The answer of a page only staff may see for now (a same-deals table): 403 with the reason."""
    return render(request, "errors/403.html", {"reason": reason}, status=403)


def _viewer_strings(game: str) -> dict[str, str]:
    """The replay viewer's words, in the page's language (the script has none of its own): the viewer's and the
    game's own (its entry's ``replay_words``: its moves, how its rounds end)."""
    return {**_viewer_shell_strings(), **registry.get(game).replay_words()}


def _viewer_shell_strings() -> dict[str, str]:
    """The game-free viewer's words (games/static/games/replay.js): the moves every game shares, positions,
    stock and pile, the deal check and the signature."""
    return {
        "deal": _("Runde {round}: {name} gibt."),
        "pass": _("{name} passt"),
        "draw_stock": _("{name} zieht {card} vom Stapel"),
        "draw_discard": _("{name} nimmt {card} vom Ablagestapel"),
        "draw_empty": _("{name} will ziehen – der Stapel ist leer"),
        "discard": _("{name} wirft {card} ab"),
        "reshuffle": _("Der Ablagestapel wird zum neuen Stapel ({n} Karten)"),
        "resign": _("{name} gibt auf"),
        "position": _("Zug {n} von {total}"),
        "position_deal": _("Ausgeteilt"),
        "stock": _("Stapel"),
        "discard_pile": _("Ablage"),
        "next_card": _("oben: {card}"),
        "cards_n": _("{n} Karten"),
        "left": _("hat verlassen"),
        "to_act": _("am Zug"),
        "round_won_what": _("{name} gewinnt die Runde: {result}."),
        "round_dead": _("Die Runde endet ohne Sieger."),
        "viewer_unavailable": _("Das Nachspielen dieses Spiels lässt sich hier nicht laden."),
        "result_abandoned": _("abgebrochen"),
        "check_running": _("wird geprüft …"),
        "check_ok": _("stimmt"),
        "check_bad": _("stimmt NICHT"),
        "check_none": _("berechnet (kein veröffentlichter Wert zum Vergleich)"),
        "check_unavailable": _("Dieser Browser kann hier nicht rechnen (WebCrypto braucht HTTPS)."),
        "checks_all_ok": _("Alle Mischungen stimmen mit den veröffentlichten Prüfsummen überein."),
        "checks_some_bad": _("Diese Runden stimmen NICHT mit ihrer veröffentlichten Prüfsumme überein: {rounds}"),
        "signature_running": _("Die Unterschrift wird geprüft …"),
        "signature_ok": _("Die Unterschrift stimmt: Dieses Protokoll ist genau so, wie diese Seite es gespielt und unterschrieben hat."),
        "signature_bad": _("Die Unterschrift stimmt NICHT: Dieses Protokoll wurde nach dem Unterschreiben verändert (oder nie von dieser Seite unterschrieben)."),
        "signature_foreign": _("Die Unterschrift stammt NICHT von dieser Seite (ein anderer Schlüssel)."),
        "signature_none": _("Dieses Protokoll ist nicht unterschrieben: Ob es so gespielt wurde, lässt sich nicht sagen."),
        "signature_unavailable": _("Dieser Browser kann die Unterschrift nicht prüfen (WebCrypto mit Ed25519 fehlt oder die Seite braucht HTTPS)."),
    }


def _viewer_config(*, record: dict, replay: dict, names: list[str], published: dict[int, str] | None,
                   extra_checks: list[dict] | None = None, record_text: str | None = None) -> dict:
    """The JSON the replay viewer reads: players, rounds (deal, published hash, where its positions are),
    the positions, and the words. ``published``: round number → hash published when it began.
    ``record_text`` (a pasted record): the text as pasted, with the site's public key, so that the browser
    checks the signature and each round's ``deal_hash`` itself."""
    published = published or {}
    rounds = [
        {
            "number": info["number"],
            "first": info["first"],
            "last": info["last"],
            "dealer": info["deal"]["dealer"],
            "summary": info.get("summary"),
        }
        for info in replay["rounds"]
    ]
    checks = [
        {"number": info["number"], "deal": info["deal"], "hash": published.get(info["number"], "")}
        for info in replay["rounds"]
    ]
    checks += extra_checks or []
    checks.sort(key=lambda c: c["number"])
    entry = registry.get(record["game"])
    return {
        "game": entry.name,
        # The game's client module (a static path; the page puts its URL in #game-module for replay.js).
        "client_module": entry.client_module,
        # Its stylesheet (a static path, or ""): the page's head loads it after matches.css.
        "stylesheet": entry.stylesheet,
        "players": names,
        "rounds": rounds,
        "positions": replay["positions"],
        "checks": checks,
        "strings": _viewer_strings(entry.name),
        "verify": None if record_text is None else {
            "record_text": record_text,
            "public_key": records_export.site_public_key().hex(),
            "public_keys": [k.hex() for k in records_export.accepted_public_keys()],
        },
    }


@require_GET
def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    """A finished match: players and rating changes, the score sheet, the replay and the deal check. A match
    still being played has no page (its deal is secret); an aborted one says so and shows no deal."""
    match = selectors.match_visible(match_id=match_id, viewer=request.user)
    if match is None:
        raise Http404(_("Diese Partie gibt es nicht (oder sie läuft noch)."))
    refusal = games_selectors.watch_refusal(table=match.table, user=request.user)
    if refusal is not None:
        return staff_only_page(request, refusal)
    players = selectors.players_of(match)
    context = {
        "match": match,
        "game_label": registry.get(match.game).label,
        "players": players,
        "aborted": match.status == Match.Status.ABORTED,
    }
    if context["aborted"]:
        return render(request, "games/match_detail.html", context)
    rounds = selectors.finished_rounds(match)
    result = match.result or {}
    places = result.get("places") or []
    finals = match.final_scores or result.get("final") or []
    left = set(match.left_seats or [])
    # What other apps show beside each seat (ratings: the change and the new Wertungszahl).
    columns = [column for found in panels.collect(panels.MATCH_SEATS, match=match, players=players)
               for column in found]
    seats: list[dict[str, Any]] = [
        {
            "player": player,
            "place": places[player.seat] if player.seat < len(places) else None,
            "final": finals[player.seat] if player.seat < len(finals) else None,
            "winner": match.winner_seat == player.seat,
            "left": player.seat in left,
            "cells": [(column.key, column.cells.get(player.seat)) for column in columns],
        }
        for player in players
    ]
    # The result table reads best first (place 1 on top), whatever the seats; a seat without a place last.
    seats.sort(key=lambda s: (s["place"] is None, s["place"] or 0, s["player"].seat))
    record = records_export.record_export(match=match, rounds=rounds, players=players)
    try:
        replay = replay_positions(record)
    except InvalidRecord as exc:  # stored rounds the engine no longer replays: show the rest of the page
        replay, replay_error = None, str(exc)
    else:
        replay_error = ""
    config = None
    if replay is not None:
        published = {r.number: r.deal_hash for r in rounds}
        # A round cut short by a resignation has no record to replay, but its deal is out and checkable.
        extra = [{"number": r.number, "deal": deal_of(r.deal), "hash": r.deal_hash, "abandoned": True}
                 for r in rounds if not r.record and r.deal]
        config = _viewer_config(record=record, replay=replay, names=[p.name for p in players],
                                published=published, extra_checks=extra)
    context.update(
        seats=seats,
        seat_columns=columns,
        seat_notes=[column.note for column in columns if column.note],
        head_links=[link for found in panels.collect(panels.MATCH_HEAD, match=match) for link in found],
        sheet=selectors.score_sheet(match=match, rounds=rounds),
        rounds=rounds,
        config=config,
        replay_error=replay_error,
        record_url=reverse("matches:record", kwargs={"match_id": match.pk}),
        leaver_names=[p.name for p in players if p.seat in left],
        analysis=match_analysis.for_page(match=match, players=players,
                                         replay_rounds=replay["rounds"] if replay is not None else None),
    )
    return render(request, "games/match_detail.html", context)


def record_download(record: dict, *, filename: str) -> JsonResponse:
    """A signed record as a JSON download (UTF-8, indented: the signature covers the contents, not the
    layout)."""
    response = JsonResponse(record, json_dumps_params={"ensure_ascii": False, "indent": 1})
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_GET
def match_record(request: HttpRequest, match_id: int) -> HttpResponse:
    """The signed record (records.md) of a finished match as a download; replays to the match's result."""
    match = selectors.match_visible(match_id=match_id, viewer=request.user)
    if match is None or match.status != Match.Status.FINISHED:
        raise Http404(_("Diese Partie gibt es nicht (oder sie läuft noch)."))
    refusal = games_selectors.watch_refusal(table=match.table, user=request.user)
    if refusal is not None:
        return JsonResponse({"error": "staff_only", "message": refusal}, status=403)
    record = records_export.record_export(match=match)
    return record_download(record, filename=f"{match.game}-partie{match.pk}.json")


@require_GET
def table_last_match(request: HttpRequest, table_id: int) -> HttpResponse:
    """The page of the last match that ended at a table (the table's match-end view links here)."""
    match = selectors.table_last_match(table_id=table_id, viewer=request.user)
    if match is None:
        raise Http404(_("An diesem Tisch ist noch keine Partie zu Ende."))
    return redirect("matches:detail", match_id=match.pk)


@require_GET
def signing_key(request: HttpRequest) -> HttpResponse:
    """The public key that checks the site's signed records, and what exactly it signs."""
    public_key = records_export.site_public_key()
    retired = [{"hex": k.hex(), "id": records_export.key_id(k), "pem": records_export.pem_of(k)}
               for k in records_export.accepted_public_keys()[1:]]
    context = {"public_key_hex": public_key.hex(), "public_key_pem": records_export.site_public_key_pem(),
               "key_id": records_export.key_id(public_key), "retired": retired,
               "algorithm": records_export.ALGORITHM}
    return render(request, "games/signing_key.html", context)


class _LoneSurrogate(Exception):
    pass


def _has_lone_surrogate(value: object) -> bool:
    """Whether a string anywhere in ``value`` (keys too) holds a lone UTF-16 surrogate (U+D800..U+DFFF)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if any("\ud800" <= ch <= "\udfff" for ch in item):
                return True
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
    return False


@require_http_methods(["GET", "POST"])
def record_view(request: HttpRequest) -> HttpResponse:
    """Anyone may paste (or upload) a record and watch it in the replay viewer; the engine checks it first.
    A bad record gets the engine's reason (round, move, why), never a server error."""
    context: dict = {"text": "", "error": "", "config": None, "max_kb": RECORD_MAX_BYTES // 1024}
    if request.method == "GET":
        return render(request, "games/replay_paste.html", context)
    length = request.META.get("CONTENT_LENGTH") or "0"
    if not length.isdigit() or int(length) > RECORD_MAX_BYTES + 16 * 1024:
        context["error"] = _("Das Protokoll ist zu groß (höchstens %(kb)s kB).") % {"kb": context["max_kb"]}
        return render(request, "games/replay_paste.html", context, status=413)
    upload = request.FILES.get("file")
    if upload is not None:
        if (upload.size or 0) > RECORD_MAX_BYTES:
            context["error"] = _("Das Protokoll ist zu groß (höchstens %(kb)s kB).") % {"kb": context["max_kb"]}
            return render(request, "games/replay_paste.html", context, status=413)
        raw: str | bytes = upload.read()
    else:
        raw = request.POST.get("record", "")
        context["text"] = raw
    if len(raw) > RECORD_MAX_BYTES:
        context["error"] = _("Das Protokoll ist zu groß (höchstens %(kb)s kB).") % {"kb": context["max_kb"]}
        return render(request, "games/replay_paste.html", context, status=413)
    if not raw.strip():
        context["error"] = _("Bitte ein Protokoll einfügen oder eine Datei wählen.")
        return render(request, "games/replay_paste.html", context, status=400)
    try:
        record = load_record(raw)
        if _has_lone_surrogate(record):
            raise _LoneSurrogate
        replay = replay_positions(record)
    except _LoneSurrogate:
        # JSON may write half of a UTF-16 pair (\ud800) that no page can show (nor the engine's reason).
        context["error"] = _("Dieses Protokoll lässt sich nicht abspielen: es enthält ein ungültiges Zeichen "
                             "(ein einzelnes UTF-16-Ersatzzeichen wie \\ud800).")
        return render(request, "games/replay_paste.html", context, status=400)
    except InvalidRecord as exc:
        context["error"] = record_problem(exc)
        # The engine's own words (English) stay available beside it, for whoever wrote the record.
        context["error_detail"] = str(exc).encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return render(request, "games/replay_paste.html", context, status=400)
    except (RecursionError, ValueError, TypeError, KeyError, IndexError, AttributeError):
        # The engine names what is wrong with any record it reads; this is for shapes it never expected.
        context["error"] = _("Dieses Protokoll lässt sich nicht abspielen: es hat nicht die Form eines Spielprotokolls.")
        return render(request, "games/replay_paste.html", context, status=400)
    players = record.get("players")
    seats = len(record["rounds"][0]["hands"]) if record["rounds"] else 0
    if not (isinstance(players, list) and len(players) == seats and all(isinstance(p, str) for p in players)):
        players = [_("Platz %(n)s") % {"n": i + 1} for i in range(seats)]
    names = [str(p)[:40] for p in players]
    summary = replay["summary"]
    places, finals = summary.get("places") or [], summary.get("final") or []
    rows = [
        {"seat": seat, "name": name, "winner": summary.get("winner") == seat,
         "place": places[seat] if seat < len(places) else None,
         "final": finals[seat] if seat < len(finals) else None}
        for seat, name in enumerate(names)
    ]
    # The hashes a record says were published: the browser compares each round's deal with its own.
    published = {
        number: rnd["deal_hash"]
        for number, rnd in enumerate(record["rounds"], start=1)
        if isinstance(rnd.get("deal_hash"), str) and len(rnd["deal_hash"]) <= 128
    }
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    context.update(
        config=_viewer_config(record=record, replay=replay, names=names, published=published,
                              record_text=text.lstrip("\ufeff")),
        summary=summary,
        rows=rows,
        game_label=registry.get(record["game"]).label,
        text="",
    )
    return render(request, "games/replay_paste.html", context)


@require_GET
def compare_form(request: HttpRequest) -> HttpResponse:
    """The head-to-head form: ``a`` against ``b`` (user names; the profile's form gives ``a``). Without both
    names it is the form asking for them; an unknown name is 404 naming it; the same name twice is 400."""
    a_name = request.GET.get("a", "").strip()
    b_name = request.GET.get("b", "").strip()
    context = {"ask": True, "a_name": a_name, "b_name": b_name, "error": ""}
    if not a_name or not b_name:
        return render(request, "games/match_compare.html", context)
    a, b = selectors.active_user(username=a_name), selectors.active_user(username=b_name)
    if a is None or b is None:
        unknown = [name for name, user in ((a_name, a), (b_name, b)) if user is None]
        context["error"] = _("Diesen Spieler gibt es nicht: %(name)s") % {"name": ", ".join(unknown)}
        return render(request, "games/match_compare.html", context, status=404)
    if a.pk == b.pk:
        context["error"] = _("Bitte einen anderen Spieler wählen.")
        return render(request, "games/match_compare.html", context, status=400)
    return redirect("matches:compare", user_a=a.get_username(), user_b=b.get_username())


@require_GET
def compare(request: HttpRequest, user_a: str, user_b: str) -> HttpResponse:
    """Head-to-head: the matches two players played together and who won them."""
    a, b = selectors.active_user(username=user_a), selectors.active_user(username=user_b)
    if a is None or b is None or a.pk == b.pk:
        raise Http404(_("Diesen Spieler gibt es nicht."))
    h2h = selectors.head_to_head(a=a, b=b, viewer=request.user)
    games = [g["game"] for g in h2h.games]
    columns = [column for found in panels.collect(panels.HEAD_TO_HEAD, a=a, b=b, games=games) for column in found]
    rows = [{**g, "cells": [(column.key, column.cells.get(g["game"])) for column in columns]} for g in h2h.games]
    context = {"h2h": h2h, "rows": rows, "columns": columns, "a_name": selectors.public_name(a),
               "b_name": selectors.public_name(b), "a": a, "b": b}
    return render(request, "games/match_compare.html", context)

