"""The pages of ranked play: the leaderboards (``/bestenliste/``, one tab per game) and the "Gewertet
spielen" pool's endpoints for the lobby (join, leave, its panel and a small status for polling, and the
Wertungszahl of each seat at the lobby's ranked tables). Thin: reads through ``ratings.selectors``, writes
through ``ratings.pool``."""

from __future__ import annotations

from urllib.parse import quote

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from games import registry
from games.models import Match, Seat, Table
from games.reads import selectors as games_selectors
from games.services import ServiceError
from ratings import pool, profile_selectors, selectors
from ratings.models import DEFAULT_MU, PROVISIONAL_MATCHES, Rating, wertungszahl
from ratings.panels import farming_note


def _game_tabs() -> list[tuple[str, str]]:
    """Every game's code and name, as the leaderboard's tabs and the pool's buttons list them."""
    return [(entry.name, entry.label) for entry in registry.entries()]


def _signed(delta: int) -> str:
    """A change as players read it: +14, −9 (a real minus sign), ±0."""
    if delta > 0:
        return f"+{delta}"
    if delta < 0:
        return f"\u2212{-delta}"
    return "±0"


def _decorate(row: dict | None, profile_url: str, own_id: int | None) -> dict | None:
    """A leaderboard row with its numbers already in the page's language (grouped as that language groups
    them), so the template of 100 rows only prints: the page stays fast."""
    if row is None:
        return None
    return {
        **row,
        "is_own": row["user_id"] == own_id,
        "user_id_text": str(row["user_id"]),
        "display_text": str(row["display"]),  # a Wertungszahl is never grouped: 1534, not 1.534
        "place_text": formats.number_format(row["place"], force_grouping=True),
        "matches_text": formats.number_format(row["matches"], force_grouping=True),
        "win_text": formats.number_format(round(100 * row["win_share"]), force_grouping=True),
        "change_text": _signed(row["change_7d"]),
        "change_class": "is-up" if row["change_7d"] > 0 else "is-down" if row["change_7d"] < 0 else "",
        "url": profile_url.replace(_NAME_SLOT, quote(row["username"], safe="@+")),
    }


_NAME_SLOT = "__name__"


@require_GET
def leaderboard(request: HttpRequest, game: str = "") -> HttpResponse:
    game = game or registry.names()[0]
    if not registry.is_game(game):
        raise Http404
    board = selectors.leaderboard(game=game, user=request.user)
    profile_url = reverse("accounts:public", args=[_NAME_SLOT])
    own_id = request.user.pk if request.user.is_authenticated else None
    rows = [_decorate(row, profile_url, own_id) for row in board["rows"]]
    own = _decorate(board["own"], profile_url, own_id)
    own_rating = board["own_rating"]
    return render(
        request,
        "ratings/leaderboard.html",
        {
            "game": game,
            "game_name": registry.get(game).label,
            "wins_label": registry.get(game).leaderboard_wins_label,
            "tabs": [{"code": code, "name": name, "current": code == game} for code, name in _game_tabs()],
            "rows": rows,
            "own": own,
            "own_in_rows": own is not None and own["place"] <= len(rows),
            "own_rating": own_rating,
            "missing_matches": max(0, PROVISIONAL_MATCHES - own_rating["matches"]) if own_rating else PROVISIONAL_MATCHES,
            "active_days": selectors.ACTIVE_DAYS,
            "change_days": selectors.CHANGE_DAYS,
            "provisional_matches": PROVISIONAL_MATCHES,
            "now": timezone.now(),
        },
    )


# --- the pool -------------------------------------------------------------------------------------------


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def pool_state(*, user) -> dict:
    """What the lobby shows about ranked play for ``user``: waiting, table ready, a wait for abandoning
    (``abandon``), or another reason a join would be refused now (``blocked``)."""
    state: dict = {"state": "idle", "waiting": {g: selectors.pool_waiting_count(game=g) for g in registry.names()}}
    if not getattr(user, "is_authenticated", False):
        state["state"] = "signed_out"
        return state
    wait = selectors.abandon_wait(user=user)
    if wait is not None:
        state["abandon"] = {"until": wait.until, "left": wait.left, "message": pool.abandon_message(wait=wait)}
    entry = selectors.pool_entry_of(user=user)
    if entry is not None:
        state["game"] = entry.game
        state["game_name"] = registry.get(entry.game).label
        state["pool_note"] = str(registry.get(entry.game).pool_note)
        state["since"] = entry.joined_at
        state["waited_seconds"] = int(max(0.0, (timezone.now() - entry.joined_at).total_seconds()))
        table = entry.table  # read with the entry (None: not seated yet)
        if table is not None and table.status in (Table.Status.OPEN, Table.Status.PLAYING):
            state["state"] = "ready"
            state["table_url"] = reverse("games:table", args=[entry.table_id])
        elif entry.table_id is None:
            state["state"] = "waiting"
    if state["state"] == "idle" and wait is None:
        # Why a join would be refused (a live ranked seat, a tournament about to start), said before asking.
        refusal = pool.pool_refusal(user=user)
        if refusal is not None:
            state["blocked"] = {"code": refusal[0], "message": refusal[1]}
    return state


@login_required
@require_POST
def pool_join(request: HttpRequest, game: str) -> HttpResponse:
    if not registry.is_game(game):
        raise Http404
    try:
        entry = pool.pool_join(user=request.user, game=game)
    except ServiceError as error:
        if _wants_json(request):
            return JsonResponse({"error": error.code, "message": error.message}, status=409)
        messages.error(request, error.message)
        return redirect("games:lobby")
    if _wants_json(request):
        return JsonResponse(_jsonable(pool_state(user=request.user)))
    if entry.table_id is not None:
        return redirect("games:table", table_id=entry.table_id)
    return redirect(reverse("games:lobby") + "#ranked")


@login_required
@require_POST
def pool_leave(request: HttpRequest) -> HttpResponse:
    pool.pool_leave(user=request.user)
    if _wants_json(request):
        return JsonResponse(_jsonable(pool_state(user=request.user)))
    return redirect(reverse("games:lobby") + "#ranked")


def _jsonable(state: dict) -> dict:
    out = dict(state)
    for key in ("since",):
        if out.get(key) is not None:
            out[key] = out[key].isoformat()
    if "abandon" in out:
        out["abandon"] = {**out["abandon"], "until": out["abandon"]["until"].isoformat()}
    return out


@never_cache
@require_GET
def pool_status(request: HttpRequest) -> JsonResponse:
    """The lobby polls this every 2 s while waiting; ``table_url`` appears once a table is ready."""
    return JsonResponse(_jsonable(pool_state(user=request.user)))


@never_cache
@require_GET
def pool_panel(request: HttpRequest) -> HttpResponse:
    """The lobby's "Gewertet spielen" panel, rendered here (the lobby fetches it; the games app does not
    know ratings)."""
    return render(request, "ratings/_pool.html", {"ranked": pool_state(user=request.user),
                                                     "games": [(e.name, e.label, e.sign) for e in registry.entries()]})


@never_cache
@require_GET
def seat_ratings(request: HttpRequest) -> JsonResponse:
    """The Wertungszahl of every person at the public ranked tables in play or open, for the lobby:
    ``{"tables": {table_id: {seat_index: {"display": 1534, "provisional": false}}}}``. Two queries."""
    rows = list(
        Seat.objects.filter(
            table__ranked=True, table__private=False, user__isnull=False,
            table__status__in=[Table.Status.OPEN, Table.Status.PLAYING],
        ).values_list("table_id", "index", "user_id", "table__game", "table__status", "table__tournament")[:2000]
    )
    seats = [(table_id, index, user_id, game) for table_id, index, user_id, game, _s, _t in rows]
    ratings = {
        (user_id, game): (display, matches)
        for user_id, game, display, matches in Rating.objects.filter(
            user_id__in={user_id for _t, _i, user_id, _g in seats}
        ).values_list("user_id", "game", "display", "matches")
    }
    tables: dict[str, dict[str, dict]] = {}
    for table_id, index, user_id, game in seats:
        display, matches = ratings.get((user_id, game), (wertungszahl(DEFAULT_MU), 0))
        tables.setdefault(str(table_id), {})[str(index)] = {
            "display": display, "provisional": matches < PROVISIONAL_MATCHES,
        }
    return JsonResponse({"tables": tables, "unrated": _unrated_tables(request, rows)})


def _unrated_tables(request: HttpRequest, rows: list) -> dict[str, str]:
    """ratings.md "Farming", before the first move: the lobby's ranked tables whose match is (or, were the
    signed-in viewer to sit down at an open one, would be) played unrated, with the reason. One query."""
    viewer = request.user.pk if request.user.is_authenticated else None
    groups: dict[str, list[int]] = {}
    open_tables = set()
    for table_id, _index, user_id, _game, status, tournament in rows:
        if tournament:
            continue
        groups.setdefault(str(table_id), []).append(user_id)
        if status == Table.Status.OPEN:
            open_tables.add(str(table_id))
    for key in open_tables:
        if viewer is not None and viewer not in groups[key]:
            groups[key].append(viewer)
    caps = selectors.farming_caps(groups=groups, at=timezone.now())
    if not caps:
        return {}
    wanted = {uid for cap in caps.values() for uid in cap.user_ids}
    names = dict(get_user_model().objects.filter(pk__in=wanted).values_list("pk", "username"))
    return {key: farming_note(cap=cap, names=names) for key, cap in caps.items()}


#: How often the table page asks again for the rating changes of a match that has just ended (the rating is
#: computed after the end is announced), and how long it waits between asks; ``table.js`` reads both.
TABLE_RETRIES = 10
TABLE_RETRY_MS = 800


@never_cache
@require_GET
def table_ratings(request: HttpRequest, table_id: int) -> JsonResponse:
    """Each seat's Wertungszahl at one ranked (or tournament) table, for the table page's ``ratings/table.js``,
    and once its match has ended and been rated each seat's change::

        {"seats": [{"seat": 0, "name": "anna", "rating": "1514?", "change": "+14", "trend": "up"}, ...],
         "over": true, "pending": false, "retries": 10, "retry_ms": 800, "words": {...}}

    ``pending``: the match has ended but its rating is not stored yet (ask again). A table that is not ranked,
    or not to be seen, is 404. A fixed number of queries."""
    table = games_selectors.table_get(table_id=table_id)
    if table is None or not table.ranked or not games_selectors.table_may_watch(
        table=table, user=request.user, invite_token=request.GET.get("einladung", "")
    ):
        raise Http404(_("Diesen Tisch gibt es nicht."))
    seats = list(Seat.objects.filter(table=table, user__isnull=False).select_related("user").order_by("index"))
    match = table.current_match
    if match is not None:
        # The players of the match, by seat (a seat given up after the match still has its rating change).
        by_seat = {p["seat"]: p.get("user_id") for p in match.players if p.get("user_id") is not None}
    else:
        by_seat = {seat.index: seat.user_id for seat in seats}
    # The names the table page shows (user names); a seat whose account is gone has none.
    names = {seat.index: seat.user.get_username() for seat in seats if seat.user is not None}
    ratings = {
        user_id: (display, matches)
        for user_id, display, matches in Rating.objects.filter(
            user_id__in=by_seat.values(), game=table.game
        ).values_list("user_id", "display", "matches")
    }
    over = match is not None and match.status != Match.Status.PLAYING
    rated = match is not None and match.status == Match.Status.FINISHED and match.ranked
    changes = profile_selectors.match_changes(match_id=match.pk) if match is not None and rated else {}
    rows = []
    for index, user_id in sorted(by_seat.items()):
        display, matches = ratings.get(user_id, (wertungszahl(DEFAULT_MU), 0))
        change = changes.get(user_id)
        if change is not None:
            # The number after the match, with the "?" as it was then (what the match page shows).
            display, provisional = change.after, change.provisional
        else:
            provisional = matches < PROVISIONAL_MATCHES
        row = {"seat": index, "name": names.get(index, "?"), "rating": f"{display}?" if provisional else str(display),
               "provisional": provisional, "change": None, "trend": ""}
        if change is not None:
            row["change"] = change.delta_text
            row["trend"] = "up" if change.delta > 0 else "down" if change.delta < 0 else "even"
        rows.append(row)
    return JsonResponse({
        "seats": rows,
        "over": over,
        "pending": bool(rated and not changes),
        "retries": TABLE_RETRIES,
        "retry_ms": TABLE_RETRY_MS,
        "words": {
            "title": _("Wertungszahl"),
            "changes": _("Wertung dieser Partie"),
            "provisional": _("Ein „?“ hinter der Wertungszahl: vorläufig, weniger als 10 gewertete Partien."),
        },
    })
