"""Python's garbage collector in a serving process.

A full collection (generation 2) stops every thread of the process while it walks every container object
alive. In a daphne process most of them come from starting up: Django, the apps, and the games' engines with
their lookup tables, built on import. Measured with ``python -m loadtest --stages`` (which times every
collection): in a burst of 1,000 sockets the site's daphne paused up to 165 ms in a full collection, the bare
stack's up to 95 ms, and such a pause is a stall of every socket of the process.

``freeze_start()`` runs once the application is built: it collects what starting up left over, then moves
everything still alive into the permanent generation (``gc.freeze``), which collections do not walk. Objects
made while serving are collected as before."""

from __future__ import annotations

import gc


def freeze_start() -> int:
    """Collect, then freeze what is alive; returns how many objects are frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
