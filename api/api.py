"""The public read API (``/api/v1/``): thin views over the apps' selectors, each with a declared response
schema; django-ninja makes the OpenAPI schema (``openapi.json``) and the docs page (``docs``) from them.

Every view reads as a visitor who is signed in as nobody, whoever sends the request: the API shows what the
pages show to anyone, never a private table's match, an e-mail address, a live deal or a closed account's name.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from typing import Any

from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.core.handlers.asgi import ASGIRequest
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, StreamingHttpResponse
from django.urls import resolve, reverse
from ninja import NinjaAPI, Query
from ninja.errors import HttpError

from api import limits, schemas
from api import selectors as api_selectors
from games import registry
from games.models import Match
from games.reads import matches as match_selectors
from games.reads import records as records_export
from games.reads import selectors as games_selectors
from games.web.match_views import record_download
from ratings import profile_selectors
from ratings import selectors as rating_selectors
from tournaments import selectors as tournament_selectors
from tournaments.models import Entry, Stage
from tournaments.models import Tournament as TournamentModel

#: Leaderboard rows per page, and the deepest page (the top ``PER_PAGE * MAX_PAGE`` places).
PER_PAGE = 100
MAX_PAGE = 10_000
#: Matches per page of a player's list, at most.
MAX_MATCHES_PAGE = 100

api = NinjaAPI(
    title="Gin Rommé & Rommé: public API",
    version="1",
    description=(
        "Read-only: leaderboards, profiles, rating histories, finished matches with their signed records "
        "(records.md), the signing keys, tournaments and the lobby's open public tables. No sign-in; "
        "limited per address, or per personal API token (made on the profile page, sent as "
        "'Authorization: Bearer grk_…'; 401 if unknown or revoked), 429 with Retry-After. "
        "See docs/api.md for curl examples."
    ),
    urls_namespace="api-v1",
    docs_url="/docs",
    openapi_url="/openapi.json",
)


def answers(ok: Any, *errors: int) -> dict[int, Any]:
    """The declared responses of an operation: ``ok`` for 200, the ``errors`` it may give (404, 400), and the
    ones any operation may give: 401 (an unknown or revoked API token), 422 (a parameter of the wrong shape) and
    429 (over the limit, ``api.limits``)."""
    declared = {**{code: schemas.Error for code in errors}, 401: schemas.Error, 422: schemas.Invalid,
                429: schemas.Error}
    # ``ok`` None: the operation describes its 200 itself (``openapi_extra``: a stream, not JSON).
    return declared if ok is None else {200: ok, **declared}


def _game(game: str) -> str:
    if not registry.is_game(game):
        raise HttpError(404, f"No game {game!r}; games: {', '.join(e.name for e in registry.entries())}.")
    return game


def _player(username: str) -> Any:
    user = api_selectors.player_get(username=username)
    if user is None:
        raise HttpError(404, "No such player.")
    return user


def _refs(user_ids: set[int]) -> dict[int, schemas.PlayerRef]:
    """Players by id as the API names them (one query): closed accounts without a user name."""
    users = get_user_model().objects.filter(pk__in=user_ids).select_related("profile")
    return {
        u.pk: schemas.PlayerRef(username=u.get_username() if u.is_active else None,
                                name=match_selectors.public_name(u))
        for u in users
    }


# --- leaderboards, profiles, ratings ------------------------------------------------------------------------


@api.get("/leaderboards/{game}", response=answers(schemas.Leaderboard, 404), tags=["ratings"])
def leaderboard(request: HttpRequest, game: str,
                page: int = Query(1, ge=1, le=MAX_PAGE)) -> Any:  # noqa: B008
    """The leaderboard (Bestenliste) of ``gin`` or ``romme``: players with 10+ rated matches and one in the
    last 30 days, best first, ``PER_PAGE`` a page; ``next_page`` is null on the last."""
    # One row more than a page: whether another page follows, in the same query.
    board = rating_selectors.leaderboard(game=_game(game), limit=PER_PAGE + 1, offset=(page - 1) * PER_PAGE)
    rows, more = board["rows"][:PER_PAGE], len(board["rows"]) > PER_PAGE
    refs = _refs({row["user_id"] for row in rows})
    return {
        "game": game, "page": page, "per_page": PER_PAGE, "next_page": page + 1 if more else None,
        "rows": [
            {"place": row["place"], "player": refs.get(row["user_id"]) or {"username": None, "name": "?"},
             "wertungszahl": row["display"], "matches": row["matches"], "win_share": row["win_share"],
             "change_7d": row["change_7d"]}
            for row in rows
        ],
    }


@api.get("/players/{username}", response=answers(schemas.Profile, 404), tags=["players"])
def player(request: HttpRequest, username: str) -> Any:
    """A player's public profile: per game the Wertungszahl, whether it is provisional, matches and the
    game's own statistics (over public matches only)."""
    user = _player(username)
    games = []
    for panel in profile_selectors.player_panels(user=user, viewer=None):
        games.append({
            "game": panel.game, "label": str(panel.label),
            "wertungszahl": panel.rating.display if panel.rating is not None else None,
            "provisional": panel.provisional,
            "rated_matches": panel.rating.matches if panel.rating is not None else 0,
            "matches": panel.matches,
            "facts": [{"slug": slug, "label": str(label), "value": str(value)} for slug, label, value in panel.facts],
        })
    return {"username": user.get_username(), "name": match_selectors.public_name(user), "games": games}


@api.get("/players/{username}/ratings/{game}", response=answers(schemas.RatingHistory, 404),
         tags=["players"])
def rating_history(request: HttpRequest, username: str, game: str) -> Any:
    """Every change of the player's Wertungszahl in ``game``, oldest first."""
    user = _player(username)
    changes = rating_selectors.rating_history(user=user, game=_game(game))
    return {
        "game": game, "username": user.get_username(),
        "points": [{"match_id": c.match_id, "at": c.created_at, "before": c.display_before,
                    "after": c.display_after, "left": c.left} for c in changes],
    }


# --- matches and records ------------------------------------------------------------------------------------


def _filters(game: str | None, ranked: bool | None, since: datetime | None, until: datetime | None,
             opponent: str | None) -> api_selectors.MatchFilters:
    opponent_user = None
    if opponent:
        opponent_user = _player(opponent)
    return api_selectors.MatchFilters(game=_game(game) if game else None, ranked=ranked, since=since,
                                      until=until, opponent=opponent_user)


@api.get("/players/{username}/matches", response=answers(schemas.MatchPage, 400, 404),
         tags=["players"])
def player_matches(request: HttpRequest, username: str, game: str | None = None, ranked: bool | None = None,
                   since: datetime | None = None, until: datetime | None = None, opponent: str | None = None,
                   cursor: str | None = None,
                   limit: int = Query(20, ge=1, le=MAX_MATCHES_PAGE)) -> Any:  # noqa: B008
    """The player's finished public matches, newest first. ``since``/``until`` bound the finish time
    (ISO 8601, ``since`` included, ``until`` not); ``opponent`` a user name; ``cursor`` from the last page."""
    user = _player(username)
    after = None
    if cursor:
        after = api_selectors.cursor_parse(cursor)
        if after is None:
            raise HttpError(400, "That cursor is not one this API gave out.")
    entries, next_cursor = api_selectors.matches_page(
        user=user, filters=_filters(game, ranked, since, until, opponent), after=after, limit=limit)
    items = []
    for e in entries:
        items.append({
            "match_id": e.match_id, "game": e.game, "finished_at": e.finished_at, "ranked": e.ranked,
            "seats": e.seats, "seat": e.seat, "outcome": e.outcome, "place": e.place, "score": e.score,
            "score_kind": e.score_kind,
            "opponents": [{"name": o.name, "bot_level": o.bot_level,
                           "username": resolve(o.profile_url).kwargs["username"] if o.profile_url else None}
                          for o in e.opponents],
            "record_url": reverse("api-v1:match_record", kwargs={"match_id": e.match_id}),
        })
    return {"items": items, "next_cursor": next_cursor}


def _export_lines(user: Any, filters: api_selectors.MatchFilters,
                  after: tuple[datetime, int] | None) -> tuple[list[bytes], tuple[datetime, int] | None]:
    """The next chunk of the export as NDJSON lines (one signed record each), and where the next one starts."""
    chunk, after = api_selectors.export_chunk(user=user, filters=filters, after=after)
    lines = [json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
             for record in records_export.records_export(chunk)]
    return lines, after


def _ndjson(user: Any, filters: api_selectors.MatchFilters) -> Iterator[bytes]:
    """The export for a WSGI server: nothing is read before the first line is asked for. A chunk's lines are
    let go before the next chunk is read, so the stream holds one chunk at a time, not two."""
    lines, after = _export_lines(user, filters, None)
    while True:
        yield from lines
        del lines
        if after is None:
            return
        lines, after = _export_lines(user, filters, after)


async def _ndjson_async(user: Any, filters: api_selectors.MatchFilters) -> AsyncIterator[bytes]:
    """The export for an ASGI server (daphne): each chunk read in the thread that holds the request's database
    connection. Django serves a plain iterator under ASGI only after reading all of it into a list, which is
    what a stream is for not to do."""
    next_lines = sync_to_async(_export_lines, thread_sensitive=True)
    lines, after = await next_lines(user, filters, None)
    while True:
        for line in lines:
            yield line
        del lines  # one chunk held at a time (_ndjson)
        if after is None:
            return
        lines, after = await next_lines(user, filters, after)


@api.get("/players/{username}/matches.ndjson", response=answers(None, 404), tags=["players"],
         openapi_extra={"responses": {"200": {"description": "one signed record (records.md) a line",
                                              "content": {"application/x-ndjson": {"schema": {"type": "string"}}}}}})
def player_export(request: HttpRequest, username: str, game: str | None = None, ranked: bool | None = None,
                  since: datetime | None = None, until: datetime | None = None,
                  opponent: str | None = None) -> Any:
    """Bulk export: every finished public match of the player (same filters as the list), newest first, as
    NDJSON: one signed record a line, streamed (the server reads the matches a chunk at a time)."""
    user = _player(username)
    filters = _filters(game, ranked, since, until, opponent)
    lines: Iterator[bytes] | AsyncIterator[bytes]
    if limits.is_head(request):
        lines = iter(())  # the headers only: no match is read
    elif isinstance(request, ASGIRequest):
        lines = _ndjson_async(user, filters)
    else:
        lines = _ndjson(user, filters)
    response = StreamingHttpResponse(lines, content_type="application/x-ndjson; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{user.get_username()}-partien.ndjson"'
    return response


@api.get("/matches/{match_id}", response=answers(schemas.Record, 404), tags=["matches"],
         url_name="match_record")
def match_record(request: HttpRequest, match_id: int) -> Any:
    """One finished public match: its signed record (records.md), exactly the match page's download."""
    match = match_selectors.match_visible(match_id=match_id, viewer=None)
    if match is None or match.status != Match.Status.FINISHED:
        raise HttpError(404, "No such finished public match.")
    if games_selectors.watch_refusal(table=match.table, user=AnonymousUser()) is not None:
        # A list of a same-deals stage still being played: its deals are other tables' secret for now.
        raise HttpError(404, "No such finished public match.")
    record = records_export.record_export(match=match)
    return record_download(record, filename=f"{match.game}-partie{match.pk}.json")


def _key(public_key: bytes) -> dict[str, str]:
    return {"algorithm": records_export.ALGORITHM, "key_id": records_export.key_id(public_key),
            "hex": public_key.hex(), "pem": records_export.pem_of(public_key)}


@api.get("/keys", response=answers(schemas.Keys), tags=["matches"])
def signing_keys(request: HttpRequest) -> Any:
    """The public key(s) that check the site's signed records: the current one and retired ones."""
    current = records_export.site_public_key()
    return {
        "current": _key(current),
        "retired": [_key(k) for k in records_export.retired_public_keys() if k != current],
        "signed_bytes": "the record without its 'signature' field as JSON with sorted keys, separators ',' "
                        "and ':', every non-ASCII character escaped as \\uXXXX (Python: json.dumps(record, "
                        "sort_keys=True, separators=(',', ':'), ensure_ascii=True))",
    }


# --- tournaments and the lobby ------------------------------------------------------------------------------


def _tournament_summary(t: TournamentModel) -> dict[str, Any]:
    return {"id": t.pk, "name": t.name, "game": t.game, "format": t.format, "status": t.status,
            "starts_at": t.starts_at, "started_at": t.started_at, "finished_at": t.finished_at}


@api.get("/tournaments", response=answers(schemas.Tournaments), tags=["tournaments"])
def tournaments(request: HttpRequest) -> Any:
    """Tournaments: upcoming (registration open), running, finished (the latest 30, cancelled ones too)."""
    listed = tournament_selectors.tournaments_listed()
    return {group: [_tournament_summary(t) for t in listed[group]] for group in ("upcoming", "running", "finished")}


@api.get("/tournaments/{tournament_id}", response=answers(schemas.Tournament, 404), tags=["tournaments"])
def tournament(request: HttpRequest, tournament_id: int) -> Any:
    """One tournament: its settings and table options, participants, standings (the format's columns), the
    stages with their tables (pairings, seatings) and, for a knockout, the bracket."""
    t = TournamentModel.objects.exclude(status=TournamentModel.Status.DRAFT).filter(pk=tournament_id).first()
    if t is None:
        raise HttpError(404, "No such tournament.")
    entrants = list(t.entries.filter(status__in=(Entry.Status.REGISTERED, Entry.Status.PLAYING,
                                                 Entry.Status.REMOVED)).order_by("number").values_list("user_id", flat=True))
    standings = tournament_selectors.tournament_standings(tournament_id=t.pk) if t.status != t.Status.REGISTRATION else []
    stages = tournament_selectors.stages_of(t)
    seated = {u for stage in stages for st in stage.tables.all() for u in st.users if u is not None}
    refs = _refs(set(entrants) | {row["user_id"] for row in standings} | seated)
    unknown = schemas.PlayerRef(username=None, name="?")
    fmt = tournament_selectors.tournament_format(tournament=t)
    bracket = fmt.bracket({uid: ref.name for uid, ref in refs.items()})
    return {
        **_tournament_summary(t), "settings": t.settings, "options": t.options, "current_stage": t.current_stage,
        "participants": [refs.get(uid, unknown) for uid in entrants],
        "standings": [{**{k: v for k, v in row.items() if k != "user_id"}, "player": refs.get(row["user_id"], unknown)}
                      for row in standings],
        "stages": [_stage(stage, fmt, refs, unknown) for stage in stages],
        # Labels are lazy translations: through Django's JSON encoder into plain JSON.
        "bracket": json.loads(json.dumps(bracket, cls=DjangoJSONEncoder)) if bracket is not None else None,
    }


def _stage(stage: Stage, fmt: Any, refs: dict[int, schemas.PlayerRef], unknown: schemas.PlayerRef) -> dict[str, Any]:
    tables = list(stage.tables.all())
    finished = [st.table_id for st in tables if st.table_id is not None and st.finished_at is not None]
    hidden = games_selectors.tables_staff_only(table_ids=finished, user=AnonymousUser())
    return {
        "number": stage.number, "label": str(fmt.stage_label(stage.number)), "started_at": stage.started_at,
        "finished_at": stage.finished_at,
        "tables": [
            {"number": st.number, "table_id": st.table_id,
             "players": [refs.get(u, unknown) if u is not None else None for u in st.users],
             "finished": st.finished_at is not None,
             "record_url": _last_record_url(st.table_id) if st.table_id in finished and st.table_id not in hidden
             else None}
            for st in sorted(tables, key=lambda st: st.number)
        ],
    }


def _last_record_url(table_id: int) -> str | None:
    match = match_selectors.table_last_match(table_id=table_id, viewer=None)
    if match is None or match.status != Match.Status.FINISHED:
        return None
    return reverse("api-v1:match_record", kwargs={"match_id": match.pk})


@api.get("/tables", response=answers(list[schemas.LobbyTable], 404), tags=["lobby"])
def lobby(request: HttpRequest, game: str | None = None) -> Any:
    """The lobby's public tables that are open or being played, newest first (no cards: a table's state is
    for its seats and watchers over the socket)."""
    return games_selectors.lobby_tables(game=_game(game) if game else None)
