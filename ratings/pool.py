"""The "Gewertet spielen" waiting pool: one click puts a person in the pool of a game; the pairing seats
people of close Wertungszahl at a new ranked table (gin: 2; Rommé: 4, or 3 after a minute of waiting, 2
after two), the window of who is close enough widening the longer they wait.

The pool lives in the database (``PoolEntry``), so it survives a restart and any process may pair it: the
referee on every pass (``games.signals.referee_tick``) and the web request right after a join. Two workers
never seat one person twice: the waiting rows are locked (``select_for_update(skip_locked=True)`` on
PostgreSQL; SQLite's IMMEDIATE transaction lets one writer in at a time) and the entries are marked seated
only where they are still waiting, else the whole table is rolled back.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from games import registry
from games import services as game_services
from games.models import Game, Seat, Table
from ratings import selectors
from ratings.models import PoolEntry

logger = logging.getLogger(__name__)

#: Who is close enough: Wertungszahl apart at most this, plus this much per second waited (both must agree).
WINDOW_START = 100
WINDOW_PER_SECOND = 5
#: Rommé tables the pool forms: this many seats while the longest waiter has waited less than the seconds.
ROMME_SIZES = ((60, 4), (120, 3), (None, 2))
#: A "your table is ready" notice is dropped once its table is over, or after this long.
READY_KEEP = timedelta(hours=3)


class _Raced(Exception):
    """Someone in the group was seated by another worker meanwhile: this table is rolled back."""


def _waited(entry: PoolEntry, now: datetime) -> float:
    return max(0.0, (now - entry.joined_at).total_seconds())


def window(*, waited_seconds: float) -> float:
    """How far apart in Wertungszahl a person accepts an opponent after waiting ``waited_seconds``."""
    return WINDOW_START + WINDOW_PER_SECOND * waited_seconds


def romme_size(*, waited_seconds: float) -> int:
    """The table size the pool wants for a Rommé waiter who has waited ``waited_seconds``."""
    for limit, size in ROMME_SIZES:
        if limit is None or waited_seconds < limit:
            return size
    return 2


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
        if game == Game.GIN:
            least = most = 2
        else:
            least, most = romme_size(waited_seconds=waited), ROMME_SIZES[0][1]
        if len(close) + 1 < least:
            continue
        group = [entry, *close[: most - 1]]
        used.update(member.pk for member in group)
        groups.append(group)
    return groups


def abandon_guard(user) -> str | None:
    """The ranked-seat guard (``games.services.ranked_seat_guard_add``): refuses someone serving a wait."""
    wait = selectors.abandon_wait(user=user)
    if wait is None:
        return None
    return abandon_message(wait=wait)


def abandon_message(*, wait: selectors.AbandonWait) -> str:
    local = timezone.localtime(wait.until)
    if local.date() == timezone.localdate():
        until = formats.time_format(local, "TIME_FORMAT")
    else:
        until = formats.date_format(local, "SHORT_DATETIME_FORMAT")
    return _(
        "Bis %(until)s kannst du nicht gewertet spielen: Du hast %(left)s deiner letzten %(window)s "
        "gewerteten Partien verlassen."
    ) % {"left": wait.left, "window": selectors.ABANDON_WINDOW, "until": until}


def _playing_ranked(user) -> Table | None:
    seat = (
        Seat.objects.filter(user_id=user.pk, left=False, table__ranked=True, table__status=Table.Status.PLAYING)
        .select_related("table")
        .first()
    )
    return seat.table if seat is not None else None


def pool_join(*, user, game: str, now: datetime | None = None) -> PoolEntry:
    """Put ``user`` in the pool of ``game`` (out of any other pool) and pair right away."""
    if user is None or not getattr(user, "is_authenticated", False):
        raise game_services.ServiceError("not_signed_in", _("Bitte melde dich an, um gewertet zu spielen."))
    if not registry.is_game(game):
        raise game_services.ServiceError("bad_options", _("Unbekanntes Spiel."))
    reason = abandon_guard(user)
    if reason:
        raise game_services.ServiceError("not_allowed", reason)
    if _playing_ranked(user) is not None:
        raise game_services.ServiceError(
            "already_seated", _("Du spielst gerade eine gewertete Partie; spiel sie erst zu Ende.")
        )
    now = now or timezone.now()
    display = selectors.rating_of(user=user, game=game).display
    with transaction.atomic():
        PoolEntry.objects.filter(user_id=user.pk).delete()
        entry = PoolEntry.objects.create(user=user, game=game, display=display, joined_at=now)
    try:
        pool_pair(game=game, now=now)
    except Exception:  # the join stands; the referee pairs on its next pass
        logger.exception("pairing the %s pool after a join failed", game)
    return PoolEntry.objects.select_related("table").filter(pk=entry.pk).first() or entry


def pool_leave(*, user) -> bool:
    """Take ``user`` out of the pool (or drop their "table ready" notice). True if they were in it."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    deleted, _rows = PoolEntry.objects.filter(user_id=user.pk).delete()
    return bool(deleted)


def _seat_group(*, game: str, group: list[PoolEntry], now: datetime) -> Table | None:
    blocked = [entry for entry in group if abandon_guard(entry.user)]
    if blocked:
        # They joined before the wait began (an abandon since): out of the pool; the rest wait on.
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
    except _Raced:
        return None
    except game_services.ServiceError:
        logger.exception("the %s pool could not seat %s", game, [entry.user_id for entry in group])
        return None
    return table


def pool_pair(*, game: str, now: datetime | None = None) -> list[Table]:
    """One pairing pass over the pool of ``game``: seat every table it can form now. Returns the tables."""
    now = now or timezone.now()
    # An unlocked look first: an idle pool costs the referee no write lock.
    if PoolEntry.objects.filter(game=game, table__isnull=True).count() < 2:
        return []
    tables = []
    with transaction.atomic():
        entries = list(
            PoolEntry.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(game=game, table__isnull=True)
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
