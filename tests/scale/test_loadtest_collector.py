"""The load generator drives a stack with its garbage collector off (``loadtest.__main__.no_collector_pauses``):
one process holds every client socket, and a collection in it stalled them all at once, then sent their moves in
a burst, which the load test would have charged to the server. After the run the collector is as it was."""

from __future__ import annotations

import gc

from loadtest.__main__ import no_collector_pauses


def test_the_load_generator_never_collects_while_it_drives_and_collects_again_afterwards():
    assert gc.isenabled()
    before = gc.get_count()[0]
    held = [[] for _ in range(10)]  # a little that was alive before: frozen out of any collection
    with no_collector_pauses():
        assert not gc.isenabled()
        assert gc.get_freeze_count() > 0
        for _ in range(3 * max(gc.get_threshold()[0], 1000)):  # more than a collection's worth of cycles
            cycle: list = []
            cycle.append(cycle)
        assert gc.get_count()[0] > gc.get_threshold()[0], "a collection ran during the drive"
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert gc.get_count()[0] < max(before, 1) + 100, "the drive's garbage was not collected after it"
    assert held
