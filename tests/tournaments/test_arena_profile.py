"""The arena's load profile (loadtest/arena.py) at a tiny size: it runs through the real services and its
checks hold (every finished table's players re-paired within a pass, nothing lost, nobody at two tables)."""

import pytest

from loadtest import arena as profile


@pytest.mark.django_db(transaction=True)
def test_the_arena_profile_runs_small_and_meets_its_goals():
    figures = profile.run(players=12, passes=4, share=0.5, prefix="smoke", seed=3)
    assert figures["tables"] > 6 and figures["ended"] >= 6  # tables ended and new ones were paired
    assert figures["most_passes_free"] <= 2
    assert figures["unrecorded"] == 0 and figures["at_two_tables"] == 0
