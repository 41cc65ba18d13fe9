"""The "Gewertet spielen" waiting pool: one click puts a person in the pool of a game; the pairing seats
people of close Wertungszahl at a new ranked table (gin: 2; Rommé: 4, or 3 after a minute of waiting, 2
after two), the window of who is close enough widening the longer they wait (both waits are settings:
``RATINGS_POOL_WIDEN_PER_SECOND``, ``RATINGS_POOL_ROMME_STEP_SECONDS``).

The pool lives in the database (``PoolEntry``), so it survives a restart and any process may pair it: the
referee on every pass (``games.signals.referee_tick``) and the web request right after a join. Two workers
never seat one person twice: the waiting rows are locked (``select_for_update(skip_locked=True)`` on
PostgreSQL; SQLite's IMMEDIATE transaction lets one writer in at a time) and the entries are marked seated
only where they are still waiting, else the whole table is rolled back.

One live table at a time (ratings.md): a person holds at most one live seat at a ranked or tournament table.
The person's user row is their lock: whoever changes their pool entry or seats them at a ranked table takes
it first (``select_for_update``; joining waits for it, a pairing pass skips whoever is locked), and checks
under it that they hold no live seat, are not entered in a tournament that is running or about to start
(``pool_guard_add``) and serve no wait for abandoning. However many tabs race, a person is seated once or
waits, never both.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from accounts.protocols import Person
from games import registry
from games import services as game_services
from games.delivery import notices
from games.models import Seat, Table
from ratings import selectors
from ratings.models import PoolEntry

logger = logging.getLogger(__name__)

#: Who is close enough: Wertungszahl apart at most this, plus ``settings.RATINGS_POOL_WIDEN_PER_SECOND``
#: (5) per second waited (both must agree).
WINDOW_START = 100
#: Rommé tables the pool forms: this many seats, one fewer after each ``RATINGS_POOL_ROMME_STEP_SECONDS``
#: (60) the longest waiter has waited.
#: The largest table the pool forms (a Rommé pool: 4, then 3 and 2 as the wait grows).
POOL_TABLE_MOST = 4
#: A "your table is ready" notice is dropped once its table is over, or after this long.
READY_KEEP = timedelta(hours=3)
#: Whoever is entered in a tournament starting within this long may not join the pool (ratings.md).
TOURNAMENT_LEAD = timedelta(minutes=15)

#: Checks a higher layer registers (``pool_guard_add``; tournaments: entered in a running tournament or one
#: starting within ``TOURNAMENT_LEAD``): ``guard(user, now) -> str | None``, a reason refuses the pool.
POOL_GUARDS: list[Callable[[Person, datetime], str | None]] = []


def pool_guard_add(guard: Callable[[Person, datetime], str | None]) -> None:
    """Register ``guard(user, now) -> str | None``; called under the person's lock, so keep it to reads."""
    if guard not in POOL_GUARDS:
        POOL_GUARDS.append(guard)


class _Raced(Exception):
    """Someone in the group was seated by another worker meanwhile: this table is rolled back."""


def _waited(entry: PoolEntry, now: datetime) -> float:
    return max(0.0, (now - entry.joined_at).total_seconds())


def window(*, waited_seconds: float) -> float:
    """How far apart in Wertungszahl a person accepts an opponent after waiting ``waited_seconds``."""
    return WINDOW_START + float(settings.RATINGS_POOL_WIDEN_PER_SECOND) * waited_seconds


def pool_sizes(game: str) -> tuple[int, ...]:
    """The table sizes the pool forms for ``game``, largest first: its seat range capped at four (gin: 2;
    Rommé: 4, 3, 2)."""
    least, most = registry.get(game).seats
    return tuple(range(min(most, POOL_TABLE_MOST), least - 1, -1))


def pool_size(*, game: str, waited_seconds: float) -> int:
    """The smallest table the pool accepts for a waiter who has waited ``waited_seconds``: one seat fewer
    every ``RATINGS_POOL_ROMME_STEP_SECONDS``, down to the game's least."""
    sizes = pool_sizes(game)
    steps = int(waited_seconds // float(settings.RATINGS_POOL_ROMME_STEP_SECONDS))
    return sizes[min(steps, len(sizes) - 1)]


def groups_form(*, game: str, entries: list[PoolEntry], now: datetime) -> list[list[PoolEntry]]:
    """Tables from the waiting ``entries`` (oldest first): each oldest waiter not yet placed takes the
    closest people within both their windows, if there are enough for the size its wait allows."""
    used: set[int] = set()
    groups = []
    for entry in entries:
        if entry.pk in used:
            continue
        waited = _waited(entry, now)
        reach = window(waited_seconds=waited)
        close = [
            other for other in entries
            if other.pk not in used and other.pk != entry.pk
            and abs(other.display - entry.display) <= min(reach, window(waited_seconds=_waited(other, now)))
        ]
        close.sort(key=lambda other: (abs(other.display - entry.display), other.joined_at, other.pk))
        least, most = pool_size(game=game, waited_seconds=waited), pool_sizes(game)[0]
        if len(close) + 1 < least:
            continue
        group = [entry, *close[: most - 1]]
        used.update(member.pk for member in group)
        groups.append(group)
    return groups


def abandon_guard(user: Person | None) -> str | None:
    """The ranked-seat guard (``games.services.ranked_seat_guard_add``): refuses someone serving a wait."""
    wait = selectors.abandon_wait(user=user)
    if wait is None:
        return None
    return abandon_message(wait=wait)


def tournament_abandon_refusal(user: Person | None, *, starts_at: datetime | None, now: datetime | None = None) -> str | None:
    """Why ``user`` may not register for, or check in to, a tournament starting at ``starts_at`` (ratings.md
    "Farming"): they serve a wait for abandoning that lasts past its start. A tournament without a start
    time may start whenever staff press start, so it counts as starting within the wait. None: they may."""
    wait = selectors.abandon_wait(user=user, now=now)
    if wait is None or (starts_at is not None and starts_at >= wait.until):
        return None
    return _(
        "%(why)s Dieses Turnier beginnt vorher; melde dich für ein späteres an."
    ) % {"why": abandon_message(wait=wait)}


def abandon_message(*, wait: selectors.AbandonWait) -> str:
    local = timezone.localtime(wait.until)
    if local.date() == timezone.localdate():
        until = formats.time_format(local, "TIME_FORMAT")
    else:
        until = formats.date_format(local, "SHORT_DATETIME_FORMAT")
    return _(
        "Bis %(until)s kannst du nicht gewertet spielen: Du hast %(left)s deiner letzten %(window)s "
        "gewerteten Partien verlassen oder abgebrochen."
    ) % {"left": wait.left, "window": selectors.ABANDON_WINDOW, "until": until}


def _lock_people(user_ids: Iterable[int], *, skip_locked: bool = False) -> set[int]:
    """Lock the user rows of ``user_ids`` (in id order, so two lockers cannot deadlock) and return the ids
    locked: with ``skip_locked`` those another transaction holds are left out. SQLite has no row locks;
    its IMMEDIATE transactions let one writer in at a time instead."""
    return set(
        get_user_model().objects.select_for_update(skip_locked=skip_locked)
        .filter(pk__in=list(user_ids)).order_by("pk").values_list("pk", flat=True)
    )


def live_table(*, user: Person) -> Table | None:
    """The ranked or tournament table where ``user`` holds a live seat (open, or in play and not left)."""
    seat = (
        Seat.objects.filter(user_id=user.pk, left=False, table__status__in=[Table.Status.OPEN, Table.Status.PLAYING])
        .filter(Q(table__ranked=True) | Q(table__tournament=True))
        .select_related("table")
        .order_by("table_id")
        .first()
    )
    return seat.table if seat is not None else None


def live_table_message(table: Table) -> str:
    if table.status == Table.Status.OPEN:
        return _("Du sitzt schon an einem offenen gewerteten Tisch (Tisch %(table)s); steh dort erst auf.") % {
            "table": table.pk}
    return _("Du spielst gerade eine gewertete Partie (Tisch %(table)s); spiel sie erst zu Ende.") % {
        "table": table.pk}


def live_table_guard(user: Person) -> str | None:
    """The ranked-seat guard for one live table at a time: refuses whoever holds a live ranked or tournament
    seat. Takes the person's lock (so a pool pass seating them meanwhile is waited for, then seen)."""
    with transaction.atomic(savepoint=False):
        _lock_people([user.pk])
        table = live_table(user=user)
    return live_table_message(table) if table is not None else None


def pool_refusal(*, user: Person, now: datetime | None = None) -> tuple[str, str] | None:
    """Why ``user`` may not wait in the pool now, as (code, message), or None. Reads only; callers that
    act on the answer hold the person's lock."""
    now = now or timezone.now()
    table = live_table(user=user)
    if table is not None:
        return "already_seated", live_table_message(table)
    for guard in POOL_GUARDS:
        reason = guard(user, now)
        if reason:
            return "in_tournament", reason
    reason = abandon_guard(user)
    if reason:
        return "not_allowed", reason
    return None


def pool_join(*, user: Person | None, game: str, now: datetime | None = None) -> PoolEntry:
    """Put ``user`` in the pool of ``game`` (out of any other pool) and pair right away. Refused, with the
    reason, while they hold a live ranked seat, are entered in a tournament that runs or starts soon, or
    serve a wait for abandoning; checked and written under their lock, so racing joins seat them once."""
    if user is None or not getattr(user, "is_authenticated", False):
        raise game_services.ServiceError("not_signed_in", _("Bitte melde dich an, um gewertet zu spielen."))
    if not registry.is_game(game):
        raise game_services.ServiceError("bad_options", _("Unbekanntes Spiel."))
    now = now or timezone.now()
    display = selectors.rating_of(user=user, game=game).display
    with transaction.atomic():
        _lock_people([user.pk])
        refusal = pool_refusal(user=user, now=now)
        if refusal is not None:
            raise game_services.ServiceError(*refusal)
        entry = PoolEntry.objects.filter(user_id=user.pk).first()
        if entry is None or entry.game != game or entry.table_id is not None:
            # A second tab joining the same pool keeps the wait it has; any other entry (another game's
            # pool, the notice of a table that is over) gives way to the new one.
            PoolEntry.objects.filter(user_id=user.pk).delete()
            entry = PoolEntry.objects.create(user_id=user.pk, game=game, display=display, joined_at=now)
    try:
        pool_pair(game=game, now=now)
    except Exception:  # the join stands; the referee pairs on its next pass
        logger.exception("pairing the %s pool after a join failed", game)
    return PoolEntry.objects.select_related("table").filter(pk=entry.pk).first() or entry


def pool_leave(*, user: Person | None) -> bool:
    """Take ``user`` out of the pool (or drop their "table ready" notice). True if they were in it."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    with transaction.atomic():
        _lock_people([user.pk])
        deleted, _rows = PoolEntry.objects.filter(user_id=user.pk).delete()
    return bool(deleted)


def pool_drop_seated(*, user_ids: Iterable[int | None]) -> int:
    """People a tournament has just seated leave the pool they were still waiting in (ratings.md). Called by
    the tournament's seating, in its transaction. Returns how many left."""
    user_ids = sorted({uid for uid in user_ids if uid is not None})
    if not user_ids:
        return 0
    _lock_people(user_ids)
    deleted, _rows = PoolEntry.objects.filter(user_id__in=user_ids, table__isnull=True).delete()
    return deleted


def _seat_group(*, game: str, group: list[PoolEntry], now: datetime) -> Table | None:
    """Seat one group at a new ranked table; the caller holds the members' locks. Whoever may no longer
    wait (seated elsewhere, a tournament about to start, a wait for abandoning since they joined) leaves
    the pool and the rest wait on."""
    blocked = [entry for entry in group if pool_refusal(user=entry.user, now=now) is not None]
    if blocked:
        PoolEntry.objects.filter(pk__in=[entry.pk for entry in blocked], table__isnull=True).delete()
        return None
    try:
        with transaction.atomic():
            table = game_services.table_create_seated(game=game, users=[entry.user for entry in group], ranked=True)
            seated = PoolEntry.objects.filter(
                pk__in=[entry.pk for entry in group], table__isnull=True
            ).update(table=table, seated_at=now)
            if seated != len(group):
                raise _Raced
            notices.table_ready([entry.user_id for entry in group], table)  # sent once this commits
    except _Raced:
        return None
    except game_services.ServiceError:
        logger.exception("the %s pool could not seat %s", game, [entry.user_id for entry in group])
        return None
    return table


def pool_pair(*, game: str, now: datetime | None = None) -> list[Table]:
    """One pairing pass over the pool of ``game``: seat every table it can form now. Returns the tables.

    The waiting people's locks are taken first (skipping whoever another transaction holds: they are
    joining, leaving or being seated right now), then their entries: the same order as a join's."""
    now = now or timezone.now()
    # An unlocked look first: an idle pool costs the referee no write lock.
    if PoolEntry.objects.filter(game=game, table__isnull=True).count() < 2:
        return []
    tables = []
    with transaction.atomic():
        waiting = PoolEntry.objects.filter(game=game, table__isnull=True).values_list("user_id", flat=True)
        locked = _lock_people(waiting, skip_locked=True)
        entries = list(
            PoolEntry.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(game=game, table__isnull=True, user_id__in=locked)
            .select_related("user")
            .order_by("joined_at", "pk")
        )
        for group in groups_form(game=game, entries=entries, now=now):
            table = _seat_group(game=game, group=group, now=now)
            if table is not None:
                tables.append(table)
    return tables


def pool_pair_all(*, now: datetime | None = None) -> list[Table]:
    """The referee's pass: pair each game's pool and drop notices of tables that are over."""
    now = now or timezone.now()
    tables = []
    for game in registry.names():
        tables += pool_pair(game=game, now=now)
    # Read first, delete only what there is: the referee's idle pass writes nothing.
    stale = list(
        PoolEntry.objects.filter(table__isnull=False)
        .filter(~Q(table__status__in=[Table.Status.OPEN, Table.Status.PLAYING]) | Q(seated_at__lt=now - READY_KEEP))
        .values_list("pk", flat=True)[:500]
    )
    if stale:
        PoolEntry.objects.filter(pk__in=stale).delete()
    return tables
