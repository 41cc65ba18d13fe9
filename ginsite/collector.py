"""Python's garbage collector in a serving process.

A full collection (generation 2) stops every thread of the process while it walks every container object
alive. In a daphne process most of them come from starting up: Django, the apps, and the games' engines with
their lookup tables, built on import. Measured with ``python -m loadtest --stages`` (which times every
collection): in a burst of 1,000 sockets the site's daphne paused up to 165 ms in a full collection, the bare
stack's up to 95 ms, and such a pause is a stall of every socket of the process.

``freeze_start()`` runs once the application is built: it collects what starting up left over, then moves
everything still alive into the permanent generation (``gc.freeze``), which collections do not walk. Objects
made while serving are collected as before, with the thresholds ``GC_THRESHOLDS`` (``ginsite/settings.py``)
instead of Python's 700, 10, 10:

- **Generation 0** is collected when the tracked objects made outnumber those freed by its threshold. A
  move makes a few thousand (queries, model instances, the engine's state, the frames); at 700 a collection
  fell inside every third move or so (the scaled evening: 1,307 in 40 s over two processes) and promoted
  what was alive at that moment (the move's own objects, the frames on their way) to the older generations,
  where they died later, unwalked until a full collection. With a larger threshold the move is over before
  the next collection: its objects die young, by their reference counts, and are never promoted (after: 31
  collections of generation 0 in the same evening, none of generation 1 or 2).
- **Not 100,000** (tried 2026-12-06): with 1,000 sockets a young collection walks mostly what is alive, not
  garbage: each socket's waiting tasks, futures, coroutines and contexts (channels' receive loop makes them anew
  for every message), 20,000-70,000 objects, of which it frees ~2-5 %. So a pause costs nearly as much at 20,000
  as at 100,000 (30 against 85 ms of CPU): at 100,000 the scaled evening's daphnes collected five times less
  often and stalled a third as long, but the tournament start's pauses grew to 110 ms of CPU (376 ms wall) and
  its move p99 was worse in both pairs run, so the default stayed (docs/scale.md).
- **Full collections**: CPython 3.11 starts one when generation 1 was collected ``threshold[2]`` times **and**
  the objects promoted into generation 2 since the last one exceed a quarter of those it held then (the
  frozen ones do not count). So what starts them is the flow of objects promoted, and what they cost is
  what is alive and not frozen: both are what the caches per table keep (``games.delivery.framecache``,
  ``games.delivery.events``), which therefore keep texts, not parsed containers, where they only compare.

docs/scale.md ("Garbage collection") has the measurements."""

from __future__ import annotations

import gc

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


def thresholds() -> tuple[int, int, int]:
    """``GC_THRESHOLDS`` checked: three whole numbers, the first at least 1."""
    value = tuple(settings.GC_THRESHOLDS)
    if len(value) != 3 or not all(isinstance(n, int) and n >= 0 for n in value) or value[0] < 1:
        raise ImproperlyConfigured(f"GC_THRESHOLDS must be three whole numbers (the first at least 1), not {value!r}")
    return value


def freeze_start() -> int:
    """Collect, freeze what is alive and set the serving thresholds; returns how many objects are frozen."""
    wanted = thresholds()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*wanted)
    return gc.get_freeze_count()
