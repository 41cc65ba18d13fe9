"""Rommé's points from the engine's facts: the Masters Wertungspunkte, list results and places
(``tournaments.scoring``), the casual minus points, the score sheet and the replay summary of
docs/records-romme.md. Pure: it imports the engine's scoring rules and ``tournaments.scoring`` only, no Django.

>>> from games.engine.records import replay_record
>>> summary(replay_record({"game": "romme", "options": {"seats": 3, "scoring": "masters"}, "rounds": []}))["places"]
[1, 1, 1]
"""

from __future__ import annotations

from typing import Any

from games.engine.romme.scoring import casual_places
from tournaments.scoring import (
    ListStanding,
    list_result,
    loser_wertungspunkte,
    rank_list,
    winner_wertungspunkte,
)

JSON = dict[str, Any]


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


def _totals(facts: JSON) -> tuple[JSON, list[list[int]]]:
    """Per seat minus points, WP, Augen and rounds won over the list, and each round's WP."""
    seats = facts["seats"]
    per_round = [round_wertungspunkte(s) for s in facts["rounds"]]
    wertungspunkte = [sum(wp[seat] for wp in per_round) for seat in range(seats)]
    totals = facts["totals"]
    return ({"minus": list(totals["minus"]), "wertungspunkte": wertungspunkte, "augen": list(totals["augen"]),
             "rounds_won": list(totals["rounds_won"])}, per_round)


def _results(facts: JSON, totals: JSON) -> list[int]:
    """The Masters list results per seat: 10 × WP − Augen, −700 for an Abbruch."""
    return [
        list_result(wertungspunkte=[totals["wertungspunkte"][seat]], points=[totals["augen"][seat]],
                    aborted=facts["left"][seat])
        for seat in range(facts["seats"])
    ]


def _places(facts: JSON, totals: JSON, results: list[int]) -> list[int]:
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


def _standing(facts: JSON) -> tuple[JSON, list[list[int]], list[int], list[int]]:
    totals, per_round = _totals(facts)
    results = _results(facts, totals)
    return totals, per_round, results, _places(facts, totals, results)


def _sole_first(places: list[int]) -> int | None:
    firsts = [seat for seat, place in enumerate(places) if place == 1]
    return firsts[0] if len(firsts) == 1 else None


def outcome(facts: JSON) -> JSON:
    totals, _, results, places = _standing(facts)
    masters = _masters(facts)
    return {"winner": _sole_first(places), "final": results if masters else totals["minus"], "places": places,
            "left": list(facts["left"]), "tournament": masters, **totals}


def score_sheet(facts: JSON) -> JSON:
    totals, per_round, results, places = _standing(facts)
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


def last_round(last: JSON | None) -> JSON | None:
    """A view's last finished round as views show it: its facts with the Wertungspunkte beside them."""
    return None if last is None else _round_shown(last["round"], last)


def _round_shown(number: int, s: JSON) -> JSON:
    """A finished round as views show it (``last_round``): its facts with the Wertungspunkte beside them."""
    return {"round": number, "result": s["result"], "winner": s["winner"], "hand_romme": s["hand_romme"],
            "augen": s["augen"], "minus": s["minus"], "wertungspunkte": round_wertungspunkte(s),
            "opened": s["opened"], "hands": s["hands"], "melds": s["melds"]}


def summary(facts: JSON) -> JSON:
    totals, per_round, results, places = _standing(facts)
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
