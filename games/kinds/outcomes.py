"""Points from facts: the one place where what the engine reports about a match becomes scores.

The engine (``games.engine``) reports what happened: per round who went out or knocked, Hand-Rommé, who had
opened, who laid off on others' melds, the Augen and the round points the rules give; per match the totals,
rounds won, who left and whether it is over (``Match.facts()``). This module turns those facts into the
Masters Wertungspunkte, list results and places, the gin match bonuses, final scores and the winner of a
Hollywood match, all with ``tournaments.scoring``. It is pure: it imports the engine and
``tournaments.scoring`` only, no Django, so the live layer (``games.engines``), ``manage.py replay`` and the
pages all use it alike.

>>> from games.engine.records import replay_record
>>> summary(replay_record({"game": "romme", "options": {"seats": 3, "scoring": "masters"}, "rounds": []}))["places"]
[1, 1, 1]
"""

from __future__ import annotations

from typing import Any

from games.engine.records import replay_record
from games.engine.romme.scoring import casual_places
from tournaments.scoring import (
    ListStanding,
    gin_match_bonuses,
    list_result,
    loser_wertungspunkte,
    rank_list,
    winner_wertungspunkte,
)

JSON = dict[str, Any]


def _points_of(facts: JSON) -> tuple:
    try:
        return _BY_GAME[facts["game"]]
    except KeyError:
        raise ValueError(f"no points for the game {facts['game']!r} here (known: {', '.join(_BY_GAME)})") from None


def outcome(facts: JSON) -> JSON | None:
    """The result of a finished match (None while it runs): ``winner`` (a seat, or None for a shared first
    place), ``final`` (the final score per seat), ``places`` (1-based, shared where equal) and the game's
    details (gin ``totals``, ``boxes``, ``resigned``, ``rounds``, Hollywood ``columns``; Rommé ``left``,
    ``tournament`` (true for a Masters list), ``minus``, ``wertungspunkte``, ``augen``, ``rounds_won``)."""
    if not facts["over"]:
        return None
    return _points_of(facts)[0](facts)


def score_sheet(facts: JSON) -> JSON:
    """The score sheet of a view (``view["scores"]``): gin totals, boxes, finals and the rounds so far (with
    Hollywood's columns); Rommé per round the casual minus points or the Masters WP beside the Augen, totals,
    places and (Masters) the list results."""
    return _points_of(facts)[1](facts)


def summary(facts: JSON) -> JSON:
    """The replay summary of records.md (gin) and docs/records-romme.md (Rommé): what ``manage.py replay``
    prints for the facts of a replayed record."""
    return _points_of(facts)[2](facts)


def replay(record: JSON) -> JSON:
    """Replay a record with the engine and summarise it; ``InvalidRecord`` names round, move and reason."""
    return summary(replay_record(record))


def view_with_points(view: JSON) -> JSON:
    """An engine view (whose ``scores`` hold the match's facts) with the score sheet and the result in their
    places, and (Rommé) the Wertungspunkte of the last round beside its facts. Changes ``view`` and returns it."""
    facts = view["scores"]
    view["scores"] = score_sheet(facts)
    view["result"] = outcome(facts)
    view["last_round"] = _points_of(facts)[3](view["last_round"])
    return view


# --- gin ------------------------------------------------------------------------------------------------


def _gin_columns(facts: JSON) -> list[JSON]:
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


def _gin_final(facts: JSON, columns: list[JSON]) -> tuple[list[int], int | None]:
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


def gin_outcome(facts: JSON) -> JSON:
    columns = _gin_columns(facts)
    final, winner = _gin_final(facts, columns)
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


def gin_score_sheet(facts: JSON) -> JSON:
    columns = _gin_columns(facts)
    final, _ = _gin_final(facts, columns)
    sheet: JSON = {
        "totals": list(facts["totals"]),
        "boxes": list(facts["boxes"]),
        "final": final,
        "rounds": [{key: s[key] for key in ("round", "result", "winner", "points")} for s in facts["rounds"]],
    }
    if facts["options"]["hollywood"]:
        sheet["columns"] = columns
    return sheet


def gin_summary(facts: JSON) -> JSON:
    columns = _gin_columns(facts)
    final, winner = _gin_final(facts, columns)
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


# --- Rommé ----------------------------------------------------------------------------------------------


def _masters(facts: JSON) -> bool:
    return facts["options"]["scoring"] == "masters"


def round_wertungspunkte(round_facts: JSON) -> list[int]:
    """The Wertungspunkte (WP) of every seat for one Rommé round's facts (all 0 for a round without a winner).

    >>> round_wertungspunkte({"winner": 1, "hand_romme": True, "augen": [24, 0, 130],
    ...                       "opened": [True, True, False], "laid_off": [False, True, False]})
    [2, 8, -1]
    """
    winner = round_facts["winner"]
    augen = round_facts["augen"]
    if winner is None:
        return [0] * len(augen)
    opened = round_facts["opened"]
    others_opened = any(has for seat, has in enumerate(opened) if seat != winner)
    return [
        winner_wertungspunkte(hand_romme=round_facts["hand_romme"], others_opened=others_opened,
                              laid_off=round_facts["laid_off"][seat])
        if seat == winner
        else loser_wertungspunkte(points=points, opened=opened[seat])
        for seat, points in enumerate(augen)
    ]


def _romme_totals(facts: JSON) -> tuple[JSON, list[list[int]]]:
    """Per seat minus points, WP, Augen and rounds won over the list, and each round's WP."""
    seats = facts["seats"]
    per_round = [round_wertungspunkte(s) for s in facts["rounds"]]
    wertungspunkte = [sum(wp[seat] for wp in per_round) for seat in range(seats)]
    totals = facts["totals"]
    return ({"minus": list(totals["minus"]), "wertungspunkte": wertungspunkte, "augen": list(totals["augen"]),
             "rounds_won": list(totals["rounds_won"])}, per_round)


def _romme_results(facts: JSON, totals: JSON) -> list[int]:
    """The Masters list results per seat: 10 × WP − Augen, −700 for an Abbruch."""
    return [
        list_result(wertungspunkte=[totals["wertungspunkte"][seat]], points=[totals["augen"][seat]],
                    aborted=facts["left"][seat])
        for seat in range(facts["seats"])
    ]


def _romme_places(facts: JSON, totals: JSON, results: list[int]) -> list[int]:
    if not _masters(facts):
        return casual_places(totals["minus"], left=facts["left"])
    standings = [
        ListStanding(seat, results[seat], totals["wertungspunkte"][seat], totals["augen"][seat],
                     totals["rounds_won"][seat])
        for seat in range(facts["seats"])
    ]
    places = [0] * facts["seats"]
    for place, standing in rank_list(standings):
        seat = standing.player
        assert isinstance(seat, int)  # the standings above name seats; ListStanding.player is any key
        places[seat] = place
    return places


def _romme_standing(facts: JSON) -> tuple[JSON, list[list[int]], list[int], list[int]]:
    totals, per_round = _romme_totals(facts)
    results = _romme_results(facts, totals)
    return totals, per_round, results, _romme_places(facts, totals, results)


def _sole_first(places: list[int]) -> int | None:
    firsts = [seat for seat, place in enumerate(places) if place == 1]
    return firsts[0] if len(firsts) == 1 else None


def romme_outcome(facts: JSON) -> JSON:
    totals, _, results, places = _romme_standing(facts)
    masters = _masters(facts)
    return {"winner": _sole_first(places), "final": results if masters else totals["minus"], "places": places,
            "left": list(facts["left"]), "tournament": masters, **totals}


def romme_score_sheet(facts: JSON) -> JSON:
    totals, per_round, results, places = _romme_standing(facts)
    masters = _masters(facts)
    rounds = []
    for number, (s, wp) in enumerate(zip(facts["rounds"], per_round, strict=True), start=1):
        row: JSON = {"round": number, "result": s["result"], "winner": s["winner"], "hand_romme": s["hand_romme"]}
        if masters:
            # Rounds without a winner count no Augen.
            row.update(wertungspunkte=wp, augen=s["augen"] if s["winner"] is not None else [0] * facts["seats"])
        else:
            row["minus"] = s["minus"]
        rounds.append(row)
    sheet: JSON = {"mode": "masters" if masters else "casual", "rounds": rounds, "places": places,
                   "left": list(facts["left"]), **totals}
    if masters:
        sheet["results"] = results
    return sheet


def romme_last_round(last: JSON | None) -> JSON | None:
    """A view's last finished round as views show it: its facts with the Wertungspunkte beside them."""
    return None if last is None else _romme_round_shown(last["round"], last)


def _romme_round_shown(number: int, s: JSON) -> JSON:
    """A finished round as views show it (``last_round``): its facts with the Wertungspunkte beside them."""
    return {"round": number, "result": s["result"], "winner": s["winner"], "hand_romme": s["hand_romme"],
            "augen": s["augen"], "minus": s["minus"], "wertungspunkte": round_wertungspunkte(s),
            "opened": s["opened"], "hands": s["hands"], "melds": s["melds"]}


def romme_summary(facts: JSON) -> JSON:
    totals, per_round, results, places = _romme_standing(facts)
    rounds = [
        {"round": number, "result": s["result"], "winner": s["winner"], "hand_romme": s["hand_romme"],
         "augen": s["augen"], "minus": s["minus"], "wertungspunkte": wp, "opened": s["opened"],
         "melds": [meld["cards"] for meld in s["melds"]], "hands": s["hands"]}
        for number, (s, wp) in enumerate(zip(facts["rounds"], per_round, strict=True), start=1)
    ]
    return {
        "game": "romme",
        "rounds": rounds,
        "totals": totals["minus"],
        "wertungspunkte": totals["wertungspunkte"],
        "augen": totals["augen"],
        "rounds_won": totals["rounds_won"],
        "results": results,
        "final": results if _masters(facts) else totals["minus"],
        "places": places,
        "left": list(facts["left"]),
        "over": facts["over"],
        "winner": _sole_first(places) if facts["over"] else None,
    }


def _as_engine_gave_it(last: JSON | None) -> JSON | None:
    return last


#: Each game's points, by name: outcome, score sheet, replay summary, last round as views show it.
_BY_GAME = {
    "gin": (gin_outcome, gin_score_sheet, gin_summary, _as_engine_gave_it),
    "romme": (romme_outcome, romme_score_sheet, romme_summary, romme_last_round),
}
