"""Reads of live play for pages, sockets and the referee: the lobby, one table as a client sees it, a player's
history, the chat, and the tables whose turn time or computer move is due."""

from __future__ import annotations

import hmac
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from django.contrib.auth.models import User as AuthUser
from django.db import connection, transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet, Window
from django.db.models.functions import RowNumber
from django.utils.translation import gettext

from accounts.protocols import Person
from games import registry
from games.delivery import framecache, notices
from games.models import ChatMessage, Match, Round, Seat, Table
from games.reads import presenters
from games.reads.prepared import MARK, Prepared, PreparedIn, fetch_in_together
from games.thinking import HINT_LEVEL

if TYPE_CHECKING:
    from games.kinds.base import GameEntry

#: Whoever asks: a request's or a socket's user (signed in or anonymous), or None (no user at all).
User = Person | None

#: How many chat lines a socket gets when it connects.
CHAT_HISTORY = 30


def _someone_plays() -> Exists:
    """A person still in the match at the table (computer players have no user; who resigned has left)."""
    return Exists(Seat.objects.filter(table=OuterRef("pk"), user__isnull=False, left=False))


def lobby_tables(*, game: str | None = None, limit: int = 100) -> list[dict]:
    """Public tables that are open or being played, newest first, as lobby summaries. A match that only
    computer players still play (everyone who sat down resigned) is nobody's game any more: not listed."""
    tables = (
        Table.objects.filter(private=False)
        .filter(Q(status=Table.Status.OPEN) | Q(_someone_plays(), status=Table.Status.PLAYING))
        .prefetch_related("seats__user")
        .order_by("-created_at")
    )
    if game:
        tables = tables.filter(game=game)
    return [presenters.table_summary(table, list(table.seats.all())) for table in tables[:limit]]


#: The reads a socket's handshake makes of its table, compiled once (games.reads.prepared): a burst of sockets
#: after a restart or a tournament's start makes them for hundreds of tables at once.
_TABLE: Prepared[Table] = Prepared(lambda pk: Table.objects.select_related("current_match").filter(pk=pk), MARK)
#: A table's seats with their users (``seats_of``; the services read them with the row lock, ``_common``).
SEATS: Prepared[Seat] = Prepared(
    lambda table_id: Seat.objects.filter(table_id=table_id).select_related("user").order_by("index"), MARK)
_LAST_ROUNDS: Prepared[Round] = Prepared(lambda match_id: Round.objects.filter(match_id=match_id).order_by("-number")[:2], MARK)
_CHAT: Prepared[ChatMessage] = Prepared(
    lambda table_id: ChatMessage.objects.filter(table_id=table_id).select_related("user").order_by("-created_at")[:CHAT_HISTORY],
    MARK)


def table_get(*, table_id: int | str) -> Table | None:
    try:
        pk = int(table_id)
    except (TypeError, ValueError):
        return None
    if not -(2**63) <= pk < 2**63:
        return None  # no row has it (and PostgreSQL's bigint would refuse it)
    found = _TABLE.fetch(pk)
    return found[0] if found else None


def seats_of(table: Table) -> list[Seat]:
    """A table's seats in order, with their users."""
    seats = SEATS.fetch(table.pk)
    for seat in seats:
        seat.table = table  # as a related manager's queryset sets it
    return seats


#: Reads of one table's rows before the snapshot is taken under the row lock instead.
SNAPSHOT_TRIES = 3


def table_snapshot(*, table: Table) -> presenters.TableSnapshot:
    """Everything the presenter needs about ``table``, all of one version.

    The table, its seats and its rounds are separate rows read by separate queries, and a move may commit
    between them (on PostgreSQL each statement sees the latest commit). Every write bumps the table's
    version in the same transaction, so the rows belong together when the version read after them is the
    one ``table`` has; otherwise the table is read again. A table changing faster than that is read under
    its row lock, which no write can pass.
    """
    for _ in range(SNAPSHOT_TRIES):
        snapshot = _snapshot_rows(table)
        version = table_version(table_id=table.pk)
        if version == table.version:
            return snapshot
        again = table_get(table_id=table.pk)
        if again is None:
            break  # deleted meanwhile: the lock below says so
        table = again
    with transaction.atomic():
        table = Table.objects.select_for_update(of=("self",)).select_related("current_match").get(pk=table.pk)
        return _snapshot_rows(table)


def _snapshot_rows(table: Table, *, seats: list[Seat] | None = None,
                   rounds: list[Round] | None = None) -> presenters.TableSnapshot:
    """The snapshot of ``table`` from its rows: ``seats`` and its match's last two ``rounds`` (newest first)
    as given (read for many tables at once, ``table_openings_many``), else read here."""
    if seats is None:
        seats = seats_of(table)
    match = table.current_match
    state = registry.get(table.game).engine.Match.from_json(table.state) if table.state else None
    current = last = None
    if match is not None:
        if rounds is None:
            rounds = _LAST_ROUNDS.fetch(match.pk)
        for one in rounds:
            one.match = match
        current = rounds[0] if rounds else None
        last = next((r for r in rounds if r.finished_at is not None), None)
    return presenters.TableSnapshot(
        table=table, seats=seats, match=match, state=state, current_round=current, last_finished_round=last,
        last_deal_disclosed=last_round_disclosed(table=table, match=match, last_round=last),
    )


# --- same deals: what may be shown of a shared deal, and who may watch --------------------------------------

#: A table in one of these states deals no more.
_ENDED = (Table.Status.FINISHED, Table.Status.ABORTED)


def deal_rounds_disclosed(*, match: Match, table: Table | None = None, rounds: Iterable[Round] | None = None) -> set[int]:
    """The numbers of ``match``'s rounds (of ``rounds``, else all of them) whose deal, record and round-end
    hands may be shown to anyone who did not play them at this table: the one rule every door asks.

    A round is shown once it has ended; at a table sharing its deals (a ``deal_seed``) only once every other
    table dealt the same cards (same group and seed, same match and round number) has finished that round, or
    has ended or ended that match without reaching it. A table that has not yet started the match will deal
    it: nothing is shown. Two queries for a shared deal, none otherwise.
    """
    table = match.table if table is None else table
    if rounds is None:
        rounds = match.rounds.filter(finished_at__isnull=False)
    shown = {r.number for r in rounds if r.finished_at is not None}
    if not shown or not table.deal_seed:
        return shown
    playing = list(
        Table.objects.filter(deal_group=table.deal_group, deal_seed=table.deal_seed)
        .exclude(pk=table.pk)
        .exclude(status__in=_ENDED)
        .values_list("pk", flat=True)
    )
    if not playing:
        return shown
    theirs = dict(Match.objects.filter(table_id__in=playing, number=match.number).values_list("pk", "status"))
    if len(theirs) < len(playing):  # a table that has not dealt this match yet will deal these cards
        return set()
    # A match already over there deals no more; one still played shows what it has finished.
    done: dict[int, set[int]] = {pk: set() for pk, status in theirs.items() if status == Match.Status.PLAYING}
    for match_id, number in Round.objects.filter(match_id__in=done, finished_at__isnull=False).values_list(
        "match_id", "number"
    ):
        done[match_id].add(number)
    for numbers in done.values():
        shown &= numbers
    return shown


def deal_disclosed(*, match: Match, round_number: int, table: Table | None = None) -> bool:
    """Whether round ``round_number`` of ``match`` may be shown (see :func:`deal_rounds_disclosed`)."""
    return round_number in deal_rounds_disclosed(
        match=match, table=table, rounds=match.rounds.filter(number=round_number)
    )


def last_round_disclosed(*, table: Table, match: Match | None, last_round: Round | None) -> bool:
    """Whether the last finished round a table's frames speak of may be shown to a non-player (no query at a
    table that shares no deals)."""
    if match is None or last_round is None or last_round.finished_at is None:
        return False
    if not table.deal_seed:
        return True
    return last_round.number in deal_rounds_disclosed(match=match, table=table, rounds=[last_round])


def deal_group_open(*, table: Table) -> bool:
    """Whether ``table`` belongs to a group of same-deal tables (a tournament stage) not all of which have
    ended: until then its tables are watched by staff and their own players only."""
    if not table.deal_group:
        return False
    if table.status not in _ENDED:
        return True
    return Table.objects.filter(deal_group=table.deal_group).exclude(status__in=_ENDED).exists()


def deal_groups_open() -> QuerySet:
    """The keys of the groups of same-deal tables still being played (a subquery for other reads)."""
    return Table.objects.filter(deal_group__gt="").exclude(status__in=_ENDED).values("deal_group")


def _staff(user: User) -> bool:
    return user is not None and getattr(user, "is_authenticated", False) and bool(getattr(user, "is_staff", False))


def _staff_only_message() -> str:
    """Why a table of a running same-deals stage turns a visitor away."""
    return gettext(
        "An diesem Turniertisch werden dieselben Karten gespielt wie an den anderen Tischen der Runde: "
        "bis alle fertig sind, schaut hier nur die Turnierleitung zu."
    )


def watch_refusal(*, table: Table, user: User) -> str | None:
    """Why ``user`` may not watch ``table`` (its page, socket, records, match page) now, or None.

    A table of a group of same-deal tables is open only to staff and to whoever holds a seat there until every
    table of the group has ended; then it is public like any other."""
    if not table.deal_group or _staff(user):
        return None
    # Signed in means a row of the user model (cast: mypy cannot follow ``getattr``).
    if user is not None and getattr(user, "is_authenticated", False) and table.seats.filter(
            user=cast(AuthUser, user)).exists():
        return None
    return _staff_only_message() if deal_group_open(table=table) else None


def tables_staff_only(*, table_ids: Iterable[int], user: User) -> set[int]:
    """Which of ``table_ids`` ``user`` may not watch now (see :func:`watch_refusal`), in one query: the pages
    that list tables then offer no "watch" link for them."""
    ids = [i for i in table_ids if i is not None]
    if not ids or _staff(user):
        return set()
    closed = Table.objects.filter(pk__in=ids, deal_group__in=deal_groups_open())
    if user is not None and getattr(user, "is_authenticated", False):
        closed = closed.exclude(seats__user=cast(AuthUser, user))  # signed in: a row of the user model
    return set(closed.values_list("pk", flat=True))


def invite_matches(*, table: Table, invite_token: object) -> bool:
    """Whether ``invite_token`` is this private table's invitation (compared in constant time, as bytes so
    that any text a client sends can be compared)."""
    if not table.invite_token or not isinstance(invite_token, str) or not invite_token:
        return False
    try:
        given = invite_token.encode()
    except UnicodeEncodeError:  # a lone surrogate is no token
        return False
    return hmac.compare_digest(given, table.invite_token.encode())


def table_may_watch(*, table: Table, user: User, invite_token: str = "") -> bool:
    """Anyone may watch a public table; a private one only its seated players or holders of the invitation."""
    if not table.private:
        return True
    if invite_matches(table=table, invite_token=invite_token):
        return True
    if user is not None and getattr(user, "is_authenticated", False):
        return table.seats.filter(user=cast(AuthUser, user)).exists()  # signed in: a row of the user model
    return False


def table_opening(*, table_id: int | str, user: User, invite_token: str = "") -> tuple[dict, list[dict]] | str | bool | None:
    """What a table socket's handshake reads, in one trip to the database thread: the state as ``user`` sees
    it and the recent chat; None if there is no such table, False if ``user`` may not watch it, the reason
    (``watch_refusal``) if only staff may watch it for now."""
    return table_openings(table_id=table_id, viewers=[(user, invite_token)])[0]


Opening = tuple[dict, list[dict]] | str | bool | None


def table_openings(*, table_id: int | str, viewers: list[tuple[User, str]], table: Table | None = None,
                   snapshot: presenters.TableSnapshot | None = None,
                   chat: list[ChatMessage] | None = None) -> list[Opening]:
    """:func:`table_opening` for several sockets of one table at once (games.web.handshakes batches the
    handshakes that arrive together): one read of the table, its rows and its chat for all of them, each
    socket's view built from that one snapshot. At a version whose frames this process keeps
    (games.delivery.framecache) the rows are not read again at all. ``table``, ``snapshot`` and ``chat``
    (its latest lines, newest first): read already for many tables at once (``table_openings_many``)."""
    if table is None:
        table = table_get(table_id=table_id)
    if table is None:
        return [None] * len(viewers)
    chat_frames: list[dict] | None = None
    group_open: bool | None = None
    out: list[tuple[dict, list[dict]] | str | bool | None] = []
    for user, invite_token in viewers:
        if table.private and not invite_matches(table=table, invite_token=invite_token):
            if snapshot is None:
                snapshot = _snapshot_kept(table)
            if not _holds_a_seat(snapshot, user):
                out.append(False)
                continue
        if table.deal_group and not _staff(user):
            if snapshot is None:
                snapshot = _snapshot_kept(table)
            if not _holds_a_seat(snapshot, user):
                if group_open is None:
                    group_open = deal_group_open(table=table)
                if group_open:
                    out.append(_staff_only_message())
                    continue
        if snapshot is None:
            snapshot = _snapshot_kept(table)
        if chat_frames is None:
            if chat is None:
                chat_frames = chat_recent(table_id=table.pk)
            else:
                seat_by_user = {seat.user_id: seat.index for seat in snapshot.seats if seat.user_id is not None}
                chat_frames = [presenters.chat_frame(m, seat_index=seat_by_user.get(m.user_id)) for m in reversed(chat)]
        out.append((framecache.state_for(snapshot, user), chat_frames))
    return out


def opening_reads(table_ids: Iterable[int]) -> list[tuple[PreparedIn, list[int]]]:
    """The first reads of :func:`table_openings_many` (the tables, their chat), for a caller that sends them in
    a round trip of its own together with reads of its own (``prepared.fetch_in_together``)."""
    ids = [table_id for table_id in table_ids if -(2**63) <= table_id < 2**63]
    return [(_OPENING_TABLES, ids), (_OPENING_CHATS, ids)]


def snapshot_reads(table_ids: list[int], match_ids: list[int]) -> list[tuple[PreparedIn, list[int]]]:
    """The second round trip of :func:`table_openings_many`: the seats of ``table_ids``, the last rounds of
    ``match_ids`` (their current matches) and, last, the tables' versions (so that a table that changed while its
    seats and rounds were read is seen to have moved)."""
    return [(_OPENING_SEATS, table_ids), (_OPENING_ROUNDS, match_ids), (_OPENING_VERSIONS, table_ids)]


def table_openings_many(requests: dict[int, list[tuple[User, str]]], *,
                        read: tuple[list[Table], list[ChatMessage]] | None = None) -> dict[int, list[Opening]]:
    """:func:`table_openings` for the sockets of many tables at once (a burst after a restart or a
    tournament's start opens hundreds of tables together): the tables, their seats, their last rounds, their
    versions and their chat read in one statement each for all of them, not five per table. A table whose
    version moved while its rows were read is read again alone, as ``table_snapshot`` does. ``read``: what
    :func:`opening_reads` gave for these tables, read already."""
    if not requests:  # a batch of notice sockets only: no table to read
        return {}
    # The tables and their chat in one round trip to PostgreSQL, then the rows of their snapshots in another
    # (their seats, rounds and versions: ``_snapshots_many``), each statement compiled once per process.
    found, lines = read if read is not None else fetch_in_together(*opening_reads(requests))
    tables = {table.pk: table for table in found}
    chats = _chats_grouped(lines)
    snapshots = _snapshots_many(list(tables.values()))
    out: dict[int, list[Opening]] = {}
    for table_id, viewers in requests.items():
        table = tables.get(table_id)
        if table is None:
            out[table_id] = [None] * len(viewers)
            continue
        out[table_id] = table_openings(table_id=table_id, viewers=viewers, table=table,
                                       snapshot=snapshots.get(table_id), chat=chats.get(table_id, []))
    return out


def _snapshots_many(tables: list[Table]) -> dict[int, presenters.TableSnapshot]:
    """The snapshots of ``tables``: kept ones from games.delivery.framecache, the others from rows read for
    all of them at once; a table whose version moved meanwhile is left out (its caller reads it alone)."""
    found: dict[int, presenters.TableSnapshot] = {}
    unread: list[Table] = []
    for table in tables:
        kept = framecache.snapshot_at(table) if framecache.cacheable(table) else None
        if kept is not None:
            found[table.pk] = kept
        else:
            unread.append(table)
    if not unread:
        return found
    seats: dict[int, list[Seat]] = {table.pk: [] for table in unread}
    matches = [table.current_match_id for table in unread if table.current_match_id is not None]
    rounds: dict[int, list[Round]] = {match_id: [] for match_id in matches}
    # In this order, in one round trip on PostgreSQL: the versions read last, so a table that changed while
    # its seats and rounds were read is seen to have moved.
    seat_rows, round_rows, version_rows = fetch_in_together(*snapshot_reads(list(seats), matches))
    for seat in seat_rows:
        seats[seat.table_id].append(seat)
    for one in round_rows:
        rounds[one.match_id].append(one)
    versions = {table.pk: table.version for table in version_rows}
    for table in unread:
        if versions.get(table.pk) != table.version:
            continue
        for seat in seats[table.pk]:
            seat.table = table  # as seats_of sets it
        snapshot = _snapshot_rows(table, seats=seats[table.pk],
                                  rounds=rounds.get(table.current_match_id, []) if table.current_match_id else None)
        framecache.keep(snapshot)
        found[table.pk] = snapshot
    return found


def _chats_query(table_ids: list[int]) -> QuerySet[ChatMessage]:
    """The latest ``CHAT_HISTORY`` lines of each table, newest first, in one statement."""
    newest = Window(RowNumber(), partition_by=F("table_id"), order_by=F("created_at").desc())
    return (ChatMessage.objects.filter(table_id__in=table_ids).select_related("user")
            .annotate(newest=newest).filter(newest__lte=CHAT_HISTORY).order_by("table_id", "-created_at"))


def _rounds_query(match_ids: list[int]) -> QuerySet[Round]:
    """The two newest rounds of each match, newest first."""
    newest = Window(RowNumber(), partition_by=F("match_id"), order_by=F("number").desc())
    return (Round.objects.filter(match_id__in=match_ids).annotate(newest=newest).filter(newest__lte=2)
            .order_by("match_id", "-number"))


#: The reads of a batch of handshakes (``table_openings_many``), each a list of ids to one statement whose SQL
#: is compiled once per process (``prepared.PreparedIn``).
_OPENING_TABLES = PreparedIn(lambda ids: Table.objects.select_related("current_match").filter(pk__in=ids))
_OPENING_CHATS = PreparedIn(_chats_query)
_OPENING_SEATS = PreparedIn(
    lambda ids: Seat.objects.filter(table_id__in=ids).select_related("user").order_by("table_id", "index"))
_OPENING_ROUNDS = PreparedIn(_rounds_query)
_OPENING_VERSIONS = PreparedIn(lambda ids: Table.objects.only("id", "version").filter(pk__in=ids))


def _chats_grouped(messages: Iterable[ChatMessage]) -> dict[int, list[ChatMessage]]:
    lines: dict[int, list[ChatMessage]] = {}
    for message in messages:
        lines.setdefault(message.table_id, []).append(message)
    return lines


def _holds_a_seat(snapshot: presenters.TableSnapshot, user: User) -> bool:
    """Whether ``user`` has a seat row at the table (left or not), as ``table_may_watch`` asks it."""
    return bool(user is not None and getattr(user, "is_authenticated", False)
                and any(seat.user_id == user.pk for seat in snapshot.seats))


def _snapshot_kept(table: Table) -> presenters.TableSnapshot:
    """The snapshot of ``table`` at its row's version: from games.delivery.framecache if kept, else read (and kept)."""
    kept = framecache.snapshot_at(table) if framecache.cacheable(table) else None
    if kept is not None:
        return kept
    snapshot = table_snapshot(table=table)
    framecache.keep(snapshot)
    return snapshot


def table_state_for(*, table_id: int | str, user: User) -> dict | None:
    """The full ``state`` frame ``user`` may see now (their seat's view, or the public one)."""
    table = table_get(table_id=table_id)
    if table is None:
        return None
    return framecache.state_for(_snapshot_kept(table), user)


def table_version(*, table_id: int | str) -> int | None:
    with connection.cursor() as cursor:  # the one column: no queryset to compile for it
        cursor.execute(f"SELECT version FROM {Table._meta.db_table} WHERE id = %s", [int(table_id)])
        row = cursor.fetchone()
    return row[0] if row else None


def chat_recent(*, table_id: int | str, limit: int = CHAT_HISTORY) -> list[dict]:
    """The latest chat lines of a table, oldest first, as ``chat`` frames."""
    if limit == CHAT_HISTORY:
        messages = _CHAT.fetch(int(table_id))
    else:
        messages = list(ChatMessage.objects.filter(table_id=table_id).select_related("user").order_by("-created_at")[:limit])
    if not messages:
        return []
    seat_by_user = dict(Seat.objects.filter(table_id=table_id, user__isnull=False).values_list("user_id", "index"))
    return [presenters.chat_frame(m, seat_index=seat_by_user.get(m.user_id)) for m in reversed(messages)]


def notices_pending(*, user_id: int) -> list[dict]:
    """What a (re)connecting notice socket of ``user_id`` is told: a ``table_ready`` notice (marked
    ``pending``) for each table where the site seated them (the pool or a tournament: ranked or tournament
    tables) and the match is on, oldest first. Read from the database, nothing kept in memory; whether the
    person has already opened a table is the browser's to know (it shows no banner for a table it saw)."""
    tables = list(
        Table.objects.filter(seats__user_id=user_id, seats__left=False, status=Table.Status.PLAYING)
        .filter(Q(ranked=True) | Q(tournament=True))
        .only("pk", "game")
        .order_by("pk")
    )
    if not tables:
        return []
    tournaments = notices.table_tournaments(table.pk for table in tables)
    return [
        notices.notice_frame("table_ready", {
            **notices.table_ready_payload(table, tournament=tournaments.get(table.pk)), "pending": True})
        for table in tables
    ]


def user_tables(*, user: AuthUser) -> QuerySet[Table]:
    """Tables where ``user`` holds a seat and play is not over (to take them back to their table). A match
    the user resigned from (a Rommé list goes on without them) is no longer theirs."""
    return Table.objects.filter(
        seats__user=user, seats__left=False, status__in=[Table.Status.OPEN, Table.Status.PLAYING]
    ).order_by("-created_at")


def tables_due(*, now: datetime, limit: int = 200) -> list[tuple[int, str]]:
    """Playing tables whose turn time ran out (``"timeout"``) or whose computer move is due (``"bot"``).

    Read without a lock: each service re-checks under its own lock, so a stale answer only costs a no-op.
    The clocks are not indexed (they change with every move, and an index of them would keep PostgreSQL from
    updating a move's row in place): the playing tables are walked in id order through ``table_playing_idx``
    and their clocks compared in the rows, ~2 ms for 5,000 playing tables with none due (``docs/scale.md``).
    """
    due = (
        Table.objects.filter(status=Table.Status.PLAYING)
        .filter(Q(turn_deadline__lte=now) | Q(bot_due_at__lte=now))
        .values_list("pk", "turn_deadline", "bot_due_at")
        .order_by("pk")[:limit]
    )
    result = []
    for pk, deadline, bot_due in due:
        result.append((pk, "timeout" if deadline is not None and deadline <= now else "bot"))
        if deadline is not None and deadline <= now and bot_due is not None and bot_due <= now:
            result.append((pk, "bot"))
    return result


#: Why a socket may not ask for a meld preview now: (code, German message) as the protocol's errors.
PREVIEW_NOT_SEATED = ("not_seated", "Meldungen prüfen lassen kann nur, wer an diesem Tisch sitzt und am Zug ist.")
PREVIEW_NOT_PLAYING = ("not_playing", "Hier läuft gerade keine Partie: Meldungen prüfen geht nur im eigenen Zug.")
PREVIEW_NOT_YOUR_TURN = ("not_your_turn", "Du bist nicht am Zug: Meldungen prüfen geht nur im eigenen Zug.")
PREVIEW_NONE = ("no_preview", "Dieses Spiel hat keine Vorschau für Meldungen.")


def meld_preview_refusal(*, table_id: int | str, user: User) -> tuple[int, str, tuple[str, str] | None]:
    """Whether ``user`` may ask for a meld preview at the table now: only the seat to act may (the builder
    is for laying out in one's own turn), at a table of a game that has one (its entry's ``meld_preview``).
    Returns the table's version and game as read and None, or the version, the game ("" when there is no such
    table) and why not (``PREVIEW_*``). One small read: the table's row and the user's seat; a socket keeps
    the answer for as long as the table's version stays the same."""
    if user is None or not user.is_authenticated:
        return -1, "", PREVIEW_NOT_SEATED
    row = Table.objects.filter(pk=table_id).values_list("version", "status", "game", "state").first()
    if row is None:
        return -1, "", PREVIEW_NOT_SEATED
    version, status, game, state = row
    entry = registry.get(game)
    if entry.meld_preview is None:
        return version, game, PREVIEW_NONE
    refusal, _match, _seat = _seat_to_act(entry, table_id, user, status, state)
    if refusal is not None:
        return version, game, {"not_seated": PREVIEW_NOT_SEATED, "not_playing": PREVIEW_NOT_PLAYING,
                               "not_your_turn": PREVIEW_NOT_YOUR_TURN}[refusal]
    return version, game, None


def _seat_to_act(
    entry: GameEntry, table_id: int | str, user: Person, status: str, state: dict | None
) -> tuple[str | None, Any, int | None]:
    """Whether ``user``'s seat at the table is the one to act, for what only the seat to act may ask (a meld
    preview, a hint): ("not_seated" | "not_playing" | "not_your_turn", None, None), or (None, the match, the
    seat's index). One small read: the user's seat."""
    seat = Seat.objects.filter(table_id=table_id, user_id=user.pk).values_list("index", "left").first()
    if seat is None or seat[1]:
        return "not_seated", None, None
    if status != Table.Status.PLAYING or state is None:
        return "not_playing", None, None
    match = entry.engine.Match.from_json(state)
    if match.to_act != seat[0]:
        return "not_your_turn", None, None
    return None, match, seat[0]


HINT_NOT_SEATED = ("not_seated", "Einen Tipp bekommt nur, wer an diesem Tisch sitzt und am Zug ist.")
HINT_NOT_PLAYING = ("not_playing", "Hier läuft gerade keine Partie: Tipps gibt es nur im eigenen Zug.")
HINT_NOT_YOUR_TURN = ("not_your_turn", "Du bist nicht am Zug: Tipps gibt es nur im eigenen Zug.")
HINT_NONE = ("no_hint", "Für dieses Spiel gibt es keine Tipps.")
HINT_TOURNAMENT = ("no_hint", "Im Turnier gibt es keine Tipps.")


def hint_request(*, table_id: int | str, user: User) -> tuple[int, tuple[str, str] | None, dict | None]:
    """What a hint for ``user`` at the table starts from: (the table's version, None, ``{"bots": the game's
    bots module, "view": the view of the user's own seat}``: never more than that seat sees), or (version,
    why not, None). Only the seat to act asks, at a
    table of a game whose computer players search (the entry's ``bot_searches`` of ``thinking.HINT_LEVEL``),
    and not at a tournament's table."""
    if user is None or not user.is_authenticated:
        return -1, HINT_NOT_SEATED, None
    row = Table.objects.filter(pk=table_id).values_list("version", "status", "game", "state", "tournament").first()
    if row is None:
        return -1, HINT_NOT_SEATED, None
    version, status, game, state, tournament = row
    entry = registry.get(game)
    if not entry.bot_searches(HINT_LEVEL):
        return version, HINT_NONE, None
    if tournament:
        return version, HINT_TOURNAMENT, None
    refusal, match, seat = _seat_to_act(entry, table_id, user, status, state)
    if refusal is not None:
        return version, {"not_seated": HINT_NOT_SEATED, "not_playing": HINT_NOT_PLAYING,
                         "not_your_turn": HINT_NOT_YOUR_TURN}[refusal], None
    return version, None, {"bots": entry.bots.__name__, "view": entry.engine.view(match, seat)}


def meld_preview(*, game: str, cards: list[str]) -> dict:
    """What ``cards`` (card codes, in any order) make as one meld of ``game``, for the page's meld builder:
    the order it is laid in and its points, or ``meld: None`` with the rules' reason; the game's entry
    answers (``meld_preview_unsearched``, else ``meld_preview``). Read-only and the same for everyone:
    nothing of a table is read (who may ask is ``meld_preview_refusal``). ``ValueError`` for a game that has
    no meld builder.

    >>> meld_preview(game="romme", cards=["7H", "JK", "5H"])
    {'meld': ['5H', 'JK', '7H'], 'points': 18, 'kind': 'run'}
    >>> meld_preview(game="romme", cards=["JK", "JK"])["error"]
    'a meld needs at least 3 cards, not 2'
    """
    entry = registry.get(game)
    return entry.meld_preview_unsearched(cards) or meld_previewer(game)(cards)


def meld_previewer(game: str) -> Callable[[list[str]], dict]:
    """The function that answers ``game``'s meld previews (its entry's ``meld_preview``); ``ValueError`` for
    a game that has none (``meld_preview_refusal`` refuses to ask, ``PREVIEW_NONE``)."""
    preview = registry.get(game).meld_preview
    if preview is None:
        raise ValueError(f"the game {game!r} has no meld preview")
    return preview
