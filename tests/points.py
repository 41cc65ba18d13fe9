"""The points of any game's facts, as the site computes them: through the game's registry entry (each game's
own ``games/kinds/<game>/points.py``). For tests that score facts or records without naming the game."""

from __future__ import annotations

from typing import Any

from games import registry
from games.engine.records import replay_record

JSON = dict[str, Any]


def outcome(facts: JSON) -> JSON | None:
    return registry.get(facts["game"]).outcome(facts)


def score_sheet(facts: JSON) -> JSON:
    return registry.get(facts["game"]).score_sheet(facts)


def summary(facts: JSON) -> JSON:
    return registry.get(facts["game"]).summary(facts)


def replay(record: JSON) -> JSON:
    """Replay a record with the engine and summarise it, as ``manage.py replay`` does."""
    return summary(replay_record(record))


def view_with_points(view: JSON) -> JSON:
    """An engine view (whose ``scores`` hold the match's facts) with its points in their places, as the entry's
    ``view`` gives it: the score sheet, the result and the last round as views show it."""
    facts = view["scores"]
    entry = registry.get(facts["game"])
    view["scores"] = entry.score_sheet(facts)
    view["result"] = entry.outcome(facts)
    view["last_round"] = entry.last_round_shown(view["last_round"])
    return view
