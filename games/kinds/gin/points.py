"""Gin's points from the engine's facts: the match bonuses (``tournaments.scoring``), the finals, the winner of a
Hollywood match, the score sheet and the replay summary of records.md. Pure: it imports the engine's results
and ``tournaments.scoring`` only, no Django, so the entry (``entry.py``), ``manage.py replay`` and the benches
use it alike.

>>> from games.engine.records import replay_record
>>> summary(replay_record({"game": "gin", "rounds": []}))["final"]
[0, 0]
"""

from __future__ import annotations

from typing import Any

from tournaments.scoring import gin_match_bonuses

JSON = dict[str, Any]


def _columns(facts: JSON) -> list[JSON]:
    """Hollywood's columns with their bonuses once finished: scores, boxes, finished, winner, bonuses, final."""
    options = facts["options"]
    columns = []
    for column in facts["columns"]:
        bonuses = [0, 0]
        if column["finished"] and options["match_bonuses"]:
            bonuses = gin_match_bonuses(rounds_won=column["boxes"], winner=column["winner"],
                                        game_bonus=options["game_bonus"], box_bonus=options["box_bonus"])
        columns.append({
            "scores": list(column["scores"]), "boxes": list(column["boxes"]), "finished": column["finished"],
            "winner": column["winner"], "bonuses": bonuses,
            "final": [s + b for s, b in zip(column["scores"], bonuses, strict=True)],
        })
    return columns


def _final(facts: JSON, columns: list[JSON]) -> tuple[list[int], int | None]:
    """The final score per seat and the match winner (None while it runs, or for equal Hollywood finals).

    Round points plus, once the match is over, the box and game bonuses (gin.md, ``target`` above 0); with
    Hollywood the sum of the three columns, and the higher sum wins unless a player left.
    """
    options = facts["options"]
    if options["hollywood"]:
        final = [sum(column["final"][seat] for column in columns) for seat in (0, 1)]
        if not facts["over"]:
            return final, None
        if facts["resigned"] is not None:
            return final, 1 - facts["resigned"]
        if final[0] == final[1]:
            return final, None
        return final, 0 if final[0] > final[1] else 1
    totals = list(facts["totals"])
    if not facts["over"]:
        return totals, None
    winner = facts["winner"]
    if options["match_bonuses"] and options["target"] > 0:
        bonuses = gin_match_bonuses(rounds_won=facts["boxes"], winner=winner, game_bonus=options["game_bonus"],
                                    box_bonus=options["box_bonus"])
        return [t + b for t, b in zip(totals, bonuses, strict=True)], winner
    return totals, winner


def outcome(facts: JSON) -> JSON:
    columns = _columns(facts)
    final, winner = _final(facts, columns)
    out: JSON = {
        "winner": winner,
        "final": final,
        # A drawn Hollywood match shares first place.
        "places": [1, 1] if winner is None else [1 if seat == winner else 2 for seat in (0, 1)],
        "totals": list(facts["totals"]),
        "boxes": list(facts["boxes"]),
        "resigned": facts["resigned"],
        "rounds": len(facts["rounds"]),
    }
    if facts["options"]["hollywood"]:
        out["columns"] = columns
    return out


def score_sheet(facts: JSON) -> JSON:
    columns = _columns(facts)
    final, _ = _final(facts, columns)
    sheet: JSON = {
        "totals": list(facts["totals"]),
        "boxes": list(facts["boxes"]),
        "final": final,
        "rounds": [{key: s[key] for key in ("round", "result", "winner", "points")} for s in facts["rounds"]],
    }
    if facts["options"]["hollywood"]:
        sheet["columns"] = columns
    return sheet


def summary(facts: JSON) -> JSON:
    columns = _columns(facts)
    final, winner = _final(facts, columns)
    out: JSON = {
        "rounds": facts["rounds"],
        "totals": list(facts["totals"]),
        "boxes": list(facts["boxes"]),
        "final": final,
        "winner": winner,
        "over": facts["over"],
    }
    if facts["options"]["hollywood"]:
        out["columns"] = columns
    if facts["resigned"] is not None:
        out["resigned"] = facts["resigned"]
    return out
