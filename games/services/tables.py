"""Tables and seats: open a table (from a preset, or with its seats already given to named people), take
and give up seats, seat computer players, start the match. Each game's seats, presets and options come from
its registry entry (``games.registry``)."""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User as AuthUser
from django.db import transaction
from django.db.models import OuterRef, Subquery

from games import registry
from games.delivery import events
from games.models import BotLevel, Match, Round, Seat, Table
from games.reads import selectors
from games.services import _common
from games.services._common import ServiceError
from games.services._course import match_players, schedule_turn, start_match


def _normalize_options(game: str, options: dict) -> tuple[dict, int]:
    if not isinstance(options, dict):
        raise ServiceError("bad_options", "Die Tischoptionen müssen ein Objekt sein.")
    entry = registry.get(game)
    low, high = entry.seats
    seats = options.get("seats", entry.default_seats)
    if isinstance(seats, bool) or not isinstance(seats, int) or not low <= seats <= high:
        where = f"genau {low}" if low == high else f"{low} bis {high}"
        raise ServiceError("bad_options", f"Die Zahl der Plätze muss {where} sein.")
    try:
        normalized = entry.engine.normalize_options(dict(options), seats=seats)
    except ValueError as error:
        raise ServiceError("bad_options", f"Ungültige Tischoption: {error}") from None
    return normalized, seats


def _preset_options(game: str, preset: str, options: dict | None) -> tuple[str, dict, int]:
    if not registry.is_game(game):
        names = " oder ".join(registry.names())
        raise ServiceError("bad_options", f"Unbekanntes Spiel: {game!r} ({names}).")
    entry = registry.get(game)
    preset = preset or entry.default_preset
    chosen = entry.preset(preset)
    if chosen is None:
        names = ", ".join(p.code for p in entry.presets)
        raise ServiceError("bad_options", f"Unbekannte Voreinstellung {preset!r} (möglich: {names}).")
    if options is not None and not isinstance(options, dict):
        raise ServiceError("bad_options", "Die Tischoptionen müssen ein Objekt sein.")
    normalized, seat_count = _normalize_options(game, {**chosen.options, **(options or {})})
    return preset, normalized, seat_count


def table_create(
    *,
    user: selectors.User,
    game: str,
    preset: str = "",
    options: dict | None = None,
    ranked: bool = False,
    private: bool = False,
    bots: str = "",
) -> Table:
    """Open a table with the creator in seat 0. ``options`` override the preset's and are validated by the
    engine (every option of the spec, with its defaults filled in). ``bots`` (a level) seats computer players
    in the other seats and starts the match, all in the same transaction: a refused level leaves no table."""
    _common.require_signed_in(user, "Bitte melde dich an, um einen Tisch zu eröffnen.")
    user = cast(AuthUser, user)  # signed in: a row of the user model (cast: mypy cannot follow the getattr check)
    preset, normalized, seat_count = _preset_options(game, preset, options)
    if ranked and private:
        raise ServiceError("bad_options", "Gewertete Tische sind öffentlich; privat geht nur ungewertet.")
    if ranked and bots:
        raise ServiceError("not_allowed", "An gewerteten Tischen spielen nur Menschen.")
    with transaction.atomic():
        _require_below_open_table_cap(user)
        if ranked:  # under the creator's lock (taken just above): a racing seat elsewhere is seen
            _common.require_may_sit_ranked(None, [user])
        table = Table.objects.create(
            game=game,
            preset=preset,
            options=normalized,
            seat_count=seat_count,
            ranked=bool(ranked),
            private=bool(private),
            invite_token=secrets.token_urlsafe(24) if private else "",
            created_by=user,
            version=1,
        )
        seats = [
            Seat.objects.create(table=table, index=index, user=user if index == 0 else None) for index in range(seat_count)
        ]
        events.table_changed(_common.snapshot(table, seats), lobby=True)
        if bots:
            table_fill_with_bots(table_id=table.pk, user=user, level=bots)
            table.refresh_from_db()
    return table


def _require_below_open_table_cap(user: AuthUser) -> None:
    """Refuse (``too_many_tables``) a sixth open or running table of one creator. The creator's row is locked
    first, so two tabs racing cannot both open the last one."""
    cap = int(settings.GAMES_MAX_OPEN_TABLES)
    if not cap:
        return
    list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True))
    opened = Table.objects.filter(created_by=user, status__in=[Table.Status.OPEN, Table.Status.PLAYING]).count()
    if opened >= cap:
        raise ServiceError(
            "too_many_tables",
            f"Du hast schon {opened} offene oder laufende Tische eröffnet (höchstens {cap}); "
            "spiele oder schließe erst einen davon.",
        )


@dataclass(frozen=True)
class SeatedTable:
    """One table of :func:`tables_create_seated_many`: its people in seat order, the options that override the
    preset's, and (a tournament's "same deals") the secret ``deal_seed`` and the ``deal_group`` it is closed
    with, as :func:`table_create_seated` takes them."""

    users: Sequence
    options: dict | None = None
    deal_seed: str | None = None
    deal_group: str | None = None


@dataclass
class _Planned:
    """A table checked and dealt, not yet written: its rows, seats, first state and its turn's deadline."""

    table: Table
    seats: list[Seat]
    players: list[dict[str, Any]]
    state: Any
    match: Match | None = None
    round: Round | None = None


def table_create_seated(
    *,
    game: str,
    users: Sequence,
    options: dict | None = None,
    preset: str = "",
    ranked: bool = True,
    tournament: bool = False,
    created_by: AuthUser | None = None,
    deal_seed: str | None = None,
    deal_group: str | None = None,
) -> Table:
    """Open a table with its seats given to ``users`` (seat order as given) and start the match at once.

    For the matchmaking pool and tournaments: nobody has to find the table and sit down. The table is
    public; ``tournament`` marks it as a tournament table (no chat, no computer players, no rematch).
    Runs in the caller's transaction if there is one. ``deal_seed`` (a secret, at most 64 characters) makes
    the table deal what every table given the same seed deals (a tournament's "same deals"); it never leaves
    the server. ``deal_group`` names the tables that stay closed together (a tournament passes its stage):
    nothing of a shared deal is shown before every table of the group dealt it has finished that round, and
    only staff and the table's players watch until all of the group's tables have ended. Without one, the
    tables given the same seed are the group.

    One table of :func:`tables_create_seated_many`, the one road for tables whose seats are given.
    """
    seated = SeatedTable(users=users, options=options, deal_seed=deal_seed, deal_group=deal_group)
    return tables_create_seated_many(game=game, tables=[seated], preset=preset, ranked=ranked,
                                     tournament=tournament, created_by=created_by)[0]


#: Rows a bulk statement writes at once: a stage of 500 tables is one INSERT per kind of row, and SQLite's
#: bound-parameter limit (32,766) is far off (Django splits the batches further where a backend needs it).
BULK_BATCH = 500


def tables_create_seated_many(
    *,
    game: str,
    tables: Sequence[SeatedTable],
    preset: str = "",
    ranked: bool = True,
    tournament: bool = False,
    created_by: AuthUser | None = None,
) -> list[Table]:
    """Open many tables with their seats given (a tournament's stage) and start every match, in one
    transaction with a constant number of statements however many tables there are: each kind of row
    (tables, seats, matches, their players, first rounds) is one bulk INSERT per :data:`BULK_BATCH` rows,
    and the tables' links to their match and round one UPDATE. Each table is what
    :func:`table_create_seated` makes of it (the same checks, deals, hashes, clocks and frames); the frames
    of all tables go out in one batch after the commit. Every table is checked before anything is written:
    a refused one leaves none. Returns the tables in the order given."""
    if not isinstance(tables, Sequence) or isinstance(tables, (str, bytes)):
        raise ServiceError("bad_options", "Die Tische sind eine Liste.")
    given = list(tables)
    if any(not isinstance(t, SeatedTable) for t in given):
        raise ServiceError("bad_options", "Jeder Tisch ist ein SeatedTable.")
    options_of: dict[tuple[str, int], tuple[str, dict, int]] = {}
    planned: list[_Planned] = []
    everyone: set[int] = set()
    now = _common.now_or()
    entry = registry.get(game) if registry.is_game(game) else None
    eng = entry.engine if entry is not None else None
    for seated in given:
        users, chosen, normalized, seat_count, deal_seed, deal_group = _check_seated(game, seated, preset,
                                                                                    options_of)
        ids = {u.pk for u in users}
        if ids & everyone:
            raise ServiceError("bad_options", "Niemand sitzt an zwei der Tische zugleich.")
        everyone |= ids
        if ranked and not tournament:
            # A tournament seats whoever it drew; the pool checks its seekers when they join it.
            _common.require_may_sit_ranked(None, users)
        table = Table(
            game=game, preset=chosen, options=normalized, seat_count=seat_count, ranked=bool(ranked),
            tournament=bool(tournament), deal_seed=deal_seed or "", deal_group=deal_group or "",
            created_by=created_by, status=Table.Status.PLAYING,
            # Opened at version 1 and started (one change): version 2, as the table a person filled.
            version=2, moves_logged=0,
        )
        seats = [Seat(table=table, index=index, user=user) for index, user in enumerate(users)]
        players = match_players(seats)
        assert entry is not None and eng is not None  # _check_seated refused an unknown game
        # Match 1, round 1: the deal's randomness as ``start_match`` draws it (the seed's, or the OS's).
        state = eng.new_match(normalized, seats=seat_count, rng=_common.deal_rng(table, 1, 1),
                              players=[p["name"] for p in players])
        table.state = entry.stored_state(state)
        schedule_turn(table, seats, state, now)
        planned.append(_Planned(table=table, seats=seats, players=players, state=state))
    if not planned:
        return []
    with transaction.atomic():
        Table.objects.bulk_create([p.table for p in planned], batch_size=BULK_BATCH)
        # The seats, matches and rounds name their table (or match) by the key the insert just returned.
        Seat.objects.bulk_create([seat for p in planned for seat in p.seats], batch_size=BULK_BATCH)
        for p in planned:
            p.match = Match(table=p.table, number=1, game=game, options=p.table.options, ranked=p.table.ranked,
                            players=p.players)
        Match.objects.bulk_create([p.match for p in planned if p.match is not None], batch_size=BULK_BATCH)
        through = Match.users.through
        through.objects.bulk_create(
            [through(match_id=p.match.pk, user_id=seat.user_id) for p in planned if p.match is not None
             for seat in p.seats if seat.user_id is not None],
            batch_size=BULK_BATCH,
        )
        for p in planned:
            deal = p.state.current_deal()
            p.round = Round(match=p.match, number=p.state.round_number, deal_hash=_common.deal_hash(deal), deal=deal)
        Round.objects.bulk_create([p.round for p in planned if p.round is not None], batch_size=BULK_BATCH)
        for p in planned:
            p.table.current_match, p.table.current_round, p.table.last_round = p.match, p.round, None
        # The tables' links to the match and round just made, one UPDATE that finds them itself (a
        # ``bulk_update`` of 500 rows builds a CASE of 500 branches a column: most of the start's time).
        made = [p.table.pk for p in planned]
        for start in range(0, len(made), BULK_BATCH):
            Table.objects.filter(pk__in=made[start:start + BULK_BATCH]).update(
                current_match=Subquery(Match.objects.filter(table=OuterRef("pk"), number=1).values("pk")[:1]),
                current_round=Subquery(Round.objects.filter(match__table=OuterRef("pk"), match__number=1, number=1)
                                       .values("pk")[:1]),
            )
        messages: list[tuple[str, dict]] = []
        for p in planned:
            snap = _common.snapshot(p.table, p.seats, match=p.match, state=p.state, current_round=p.round,
                                    last_round=None)
            messages += events.table_frames(snap)
            messages += events.lobby_frame(snap)
        events.send_after_commit(messages)  # every table's frames in one batch, once the tables exist
    return [p.table for p in planned]


def _check_seated(
    game: str, seated: SeatedTable, preset: str, options_of: dict[tuple[str, int], tuple[str, dict, int]]
) -> tuple[list, str, dict, int, str | None, str | None]:
    """The checks of one table whose seats are given: its people, options, seed and group (refusals as
    :func:`table_create_seated` words them). ``options_of`` remembers the options already normalised."""
    deal_seed, deal_group = seated.deal_seed, seated.deal_group
    if deal_seed is not None and (not isinstance(deal_seed, str) or not 16 <= len(deal_seed) <= 64):
        raise ServiceError("bad_options", "Ein Kartenschlüssel hat 16 bis 64 Zeichen.")
    if deal_group is not None and (not isinstance(deal_group, str) or not 1 <= len(deal_group) <= 64):
        raise ServiceError("bad_options", "Eine Tischgruppe hat 1 bis 64 Zeichen.")
    if deal_seed and not deal_group:
        # Tables given one seed are one group; its key names the seed without giving it away.
        deal_group = "seed-" + hashlib.sha256(deal_seed.encode()).hexdigest()[:32]
    users = list(seated.users)
    if len({getattr(u, "pk", None) for u in users}) != len(users) or any(
        u is None or not getattr(u, "is_authenticated", False) for u in users
    ):
        raise ServiceError("bad_options", "Jeder Platz braucht einen anderen angemeldeten Menschen.")
    options = seated.options
    if options is not None and not isinstance(options, dict):
        raise ServiceError("bad_options", "Die Tischoptionen müssen ein Objekt sein.")
    key = (json.dumps(options, sort_keys=True, default=repr), len(users))
    if key not in options_of:
        low, high = registry.get(game).seats if registry.is_game(game) else (0, 0)
        given = {**(options or {}), "seats": len(users)} if low != high else dict(options or {})
        options_of[key] = _preset_options(game, preset, given)
    chosen, normalized, seat_count = options_of[key]
    if seat_count != len(users):
        raise ServiceError("bad_options", f"Ein Tisch für {game} hat {seat_count} Plätze, nicht {len(users)}.")
    return users, chosen, dict(normalized), seat_count, deal_seed, deal_group


def table_join(*, table_id: int | str, user: selectors.User, seat: int | None = None, invite_token: str = "") -> Seat:
    """Take a free seat (the first free one unless ``seat`` names one). A full table starts at once."""
    _common.require_signed_in(user, "Bitte melde dich an, um dich an einen Tisch zu setzen.")
    user = cast(AuthUser, user)  # signed in: a row of the user model (cast: mypy cannot follow the getattr check)
    with transaction.atomic():
        table = _common.locked_table(table_id)
        _common.require_status(table, Table.Status.OPEN)
        if table.private and not selectors.invite_matches(table=table, invite_token=invite_token):
            raise ServiceError("not_invited", "Dieser Tisch ist privat; du brauchst eine Einladung.", version=table.version)
        seats = _common.seats_of(table)
        if _common.user_seat(seats, user) is not None:
            raise ServiceError("already_seated", "Du sitzt schon an diesem Tisch.", version=table.version)
        if table.ranked:
            _common.require_may_sit_ranked(table, [user])
        if seat is None:
            chosen = next((s for s in seats if not s.taken), None)
            if chosen is None:
                raise ServiceError("table_full", "An diesem Tisch ist kein Platz mehr frei.", version=table.version)
        else:
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(seats):
                raise ServiceError("bad_message", f"Platz {seat!r} gibt es an diesem Tisch nicht.", version=table.version)
            chosen = seats[seat]
            if chosen.taken:
                raise ServiceError("seat_taken", "Dieser Platz ist schon besetzt.", version=table.version)
        chosen.user = user
        chosen.save(update_fields=["user"])
        if all(s.taken for s in seats):
            start_match(table, seats, _common.now_or())
        else:
            events.table_changed(_common.open_snapshot(table, seats), lobby=True)
    return chosen


def table_leave(*, table_id: int | str, user: selectors.User) -> None:
    """Give up a seat before the match starts. During a match leaving is resigning (see match_resign)."""
    with transaction.atomic():
        table = _common.locked_table(table_id)
        seats = _common.seats_of(table)
        seat = _common.require_seat(table, seats, user)
        user = cast(AuthUser, user)  # seated: a row of the user model
        if table.status == Table.Status.PLAYING:
            raise ServiceError(
                "match_running", "Die Partie läuft – wer gehen will, gibt auf (Aufgeben).", version=table.version
            )
        seat.user = None
        seat.ready = False
        seat.save(update_fields=["user", "ready"])
        if table.status == Table.Status.OPEN and not any(s.user_id for s in seats):
            # The last person left an open table: nobody is there to play it.
            table.status = Table.Status.ABORTED
        elif table.status == Table.Status.OPEN and table.created_by_id == user.pk:
            # Whoever opened it left: only they could start it or seat computer players, so it closes. A joiner
            # who leaves just leaves (the table stays open for others).
            table.status = Table.Status.ABORTED
        events.table_changed(_common.open_snapshot(table, seats), lobby=True, also_users=[user.pk])


def table_fill_with_bots(*, table_id: int | str, user: selectors.User, level: str = BotLevel.SIMPLE) -> list[Seat]:
    """Seat computer players of ``level`` in every free seat; the table then starts."""
    if not isinstance(level, str) or level not in BotLevel.values:
        raise ServiceError("bad_message", f"Unbekannte Spielstärke {level!r} (simple, advanced oder expert).")
    with transaction.atomic():
        table = _common.locked_table(table_id)
        _common.require_status(table, Table.Status.OPEN)
        seats = _common.seats_of(table)
        _common.require_seat(table, seats, user)
        _require_creator(table, user, "Computergegner setzen")
        if not _common.table_policy(table).bots:
            raise ServiceError(
                "not_allowed", "An gewerteten Tischen spielen nur Menschen; Computergegner gibt es an ungewerteten.",
                version=table.version,
            )
        filled = []
        for seat in seats:
            if not seat.taken:
                seat.bot_level = level
                seat.save(update_fields=["bot_level"])
                filled.append(seat)
        if not filled:
            raise ServiceError("table_full", "An diesem Tisch ist kein Platz mehr frei.", version=table.version)
        start_match(table, seats, _common.now_or())
    return filled


def _require_creator(table: Table, user: selectors.User, what: str) -> None:
    """Refuse (``not_creator``) someone who sat down at another person's open table: only whoever opened it
    seats computer players and starts it (issue 25: a joiner could fill a stranger's table with computer
    players and call the match off). A table nobody opened (the pool's, a tournament's) has no such rule."""
    if table.created_by_id is None or table.created_by_id == getattr(user, "pk", None):
        return
    creator = table.created_by
    name = creator.get_username() if creator is not None else "?"
    raise ServiceError(
        "not_creator", f"Nur wer den Tisch eröffnet hat ({name}), kann hier {what}.", version=table.version
    )


def table_start(*, table_id: int | str, user: selectors.User) -> Match:
    """Start the match when every seat is taken (a full table also starts by itself)."""
    with transaction.atomic():
        table = _common.locked_table(table_id)
        _common.require_status(table, Table.Status.OPEN)
        seats = _common.seats_of(table)
        _common.require_seat(table, seats, user)
        _require_creator(table, user, "die Partie beginnen")
        if not all(seat.taken for seat in seats):
            raise ServiceError("seats_free", "Es sind noch Plätze frei.", version=table.version)
        start_match(table, seats, _common.now_or())
        assert table.current_match is not None  # start_match set it
        return table.current_match
