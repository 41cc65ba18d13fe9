"""The last ``state`` frames built for each table, in this process's memory, keyed by the table's version.

A (re)connecting socket at a version nothing has changed since costs no database read for its state: the
table's row says the version, and the frames of that version (and the seating they were built from) are
here. Every write bumps a table's version in the same transaction, so a frame of version ``v`` is the frame
of version ``v`` for as long as the table has it.

Hidden information: an entry keeps the seating of its version; which frame a socket gets is decided by
``presenters.seat_of_user`` on that seating, exactly as without the cache. A seat's frame is stored under its
seat index and only handed to whoever holds that seat at that version; anyone else gets the public frame.

Not cached: tables sharing their deals (a tournament stage, ``deal_seed``), whose public frames can change
when *another* table finishes a round without this table's version moving.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from accounts.protocols import Person
from games.models import Table
from games.reads import presenters

#: How many tables' frames are kept (the least recently used go first).
MAX_TABLES = 4096

#: An audience: the public (None) or a seat index.
Audience = int | None


@dataclass
class _Entry:
    key: tuple
    snapshot: presenters.TableSnapshot
    frames: dict[Audience, dict] = field(default_factory=dict)


_entries: OrderedDict[int, _Entry] = OrderedDict()
_lock = threading.Lock()


def _key(table: Table) -> tuple:
    # The creation time too: SQLite may give a deleted table's id to the next one (a test database).
    return (table.pk, table.created_at, table.version)


def cacheable(table: Table) -> bool:
    return not table.deal_seed


def snapshot_at(table: Table) -> presenters.TableSnapshot | None:
    """The snapshot kept for ``table`` at the version its row has, or None."""
    with _lock:
        entry = _entries.get(table.pk)
        if entry is None or entry.key != _key(table):
            return None
        _entries.move_to_end(table.pk)
        return entry.snapshot


def keep(snapshot: presenters.TableSnapshot) -> None:
    """Keep ``snapshot`` (all rows of one version) as its table's entry, unless an entry of a newer version
    is there already."""
    table = snapshot.table
    if not cacheable(table):
        return
    with _lock:
        entry = _entries.get(table.pk)
        if entry is not None and entry.key == _key(table):
            return
        if entry is not None and entry.key[:2] == _key(table)[:2] and entry.key[2] > table.version:
            return
        _entries[table.pk] = _Entry(key=_key(table), snapshot=snapshot)
        _entries.move_to_end(table.pk)
        while len(_entries) > MAX_TABLES:
            _entries.popitem(last=False)


def moved(table_id: int, version: int) -> None:
    """``table_id`` is at ``version`` now (a socket here got its frame): an entry of an older version is of no
    use any more, and goes. Kept, it would hold its snapshot (the rows, the engine's state, the frames: about
    a hundred objects the garbage collector tracks) until 4,096 other tables pushed it out, and every full
    collection would walk them (ginsite/collector.py)."""
    with _lock:
        entry = _entries.get(table_id)
        if entry is not None and entry.key[2] < version:
            del _entries[table_id]


def state_for(snapshot: presenters.TableSnapshot, user: Person | None) -> dict:
    """The ``state`` frame ``user`` may see in ``snapshot``: their seat's view or the public one, built once
    per audience and version."""
    seat = presenters.seat_of_user(snapshot.seats, user)
    table = snapshot.table
    with _lock:
        entry = _entries.get(table.pk)
        if entry is not None and entry.key == _key(table) and entry.snapshot is snapshot:
            frame = entry.frames.get(seat)
            if frame is not None:
                return frame
        else:
            entry = None
    frame = presenters.table_state(snapshot, seat)
    if entry is not None:
        with _lock:
            entry.frames.setdefault(seat, frame)
    return frame


def clear() -> None:
    with _lock:
        _entries.clear()
