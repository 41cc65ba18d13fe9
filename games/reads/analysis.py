"""The post-match analysis as the match page shows it (``games.analysis`` computes it, ``MatchAnalysis`` keeps
it): per person the decisions, the accuracy and the points lost; the three costliest moments with the replay
position each one is at; every decision in words of the page's language.

Never for a match still being played (the match page has none), and never for a table of a same-deal group
(a tournament stage) before every table of the group has ended, whoever asks, staff included: the expert's
moves would tell what the deal holds (``selectors.deal_group_open``, the rule the match page and the records
follow); nor while another app holds it back (``panels.ANALYSIS_HELD``: tournaments, while the match's stage
runs).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone
from django.utils.formats import number_format

from games import panels, registry
from games.analysis import RECENT_DAYS
from games.models import Match, MatchAnalysis
from games.reads import selectors
from games.reads.matches import Player


def _points(value: float) -> str:
    return number_format(value, 1)


def for_page(*, match: Match, players: list[Player], replay_rounds: list[dict] | None) -> dict[str, Any] | None:
    """What the match page's analysis card shows: None (no card: the game has no analysis, or nobody but
    computers played), ``{"state": "secret"}`` (a same-deal stage still running), ``"pending"`` (not computed
    yet), ``"none"`` (not computed, and older than the clock looks back), ``"failed"``, or ``"ready"`` with the figures. ``replay_rounds``: the replay's rounds (number, first
    position), so that each decision links to the position its move led to."""
    entry = registry.get(match.game)
    people = [p for p in match.players if not p.get("bot")]
    if not entry.analysis or not people or match.status != Match.Status.FINISHED:
        return None
    if selectors.deal_group_open(table=match.table):
        return {"state": "secret"}
    held = panels.collect(panels.ANALYSIS_HELD, match=match)
    if held:  # another app's reason (tournaments: the match's stage still runs)
        return {"state": "held", "reason": held[0]}
    row = MatchAnalysis.objects.filter(match=match).first()
    data = (row.data if row is not None else None) or {}
    if row is not None and row.error:
        return {"state": "failed"}
    if not data:  # none yet, or a referee has claimed it and is computing it (games.services.analysis.claim)
        recent = match.finished_at is not None and match.finished_at >= timezone.now() - timedelta(days=RECENT_DAYS)
        # The clock analyses recent matches only; an older one waits for ``manage.py analyse``.
        return {"state": "pending" if recent else "none"}
    names = {p.seat: p.name for p in players}
    firsts = {r["number"]: r["first"] for r in replay_rounds or []}
    decisions = []
    top = list(data.get("top") or [])
    for i, d in enumerate(data["decisions"]):
        first = firsts.get(d["round"])
        decisions.append({
            "index": i,
            "round": d["round"],
            "move": d["move"] + 1,
            "seat": d["seat"],
            "name": names.get(d["seat"], "?"),
            "played": entry.describe_action(d["action"]),
            "best": entry.describe_action(d["best"]),
            "same": d["action"] == d["best"],
            "cost": d["cost"],
            "cost_text": _points(d["cost"]),
            "accurate": d["cost"] <= data["threshold"],
            "top": i in top,
            "rank": top.index(i) + 1 if i in top else None,
            # The position the move led to (the replay shows the move there), as replay.js counts them.
            "position": None if first is None else first + d["move"] + 1,
        })
    seats = []
    for seat, summary in sorted(data["seats"].items(), key=lambda item: int(item[0])):
        seats.append({"seat": int(seat), "name": names.get(int(seat), "?"), "decisions": summary["decisions"],
                      "accurate": summary["accurate"], "accuracy": summary["accuracy"],
                      "lost": _points(summary["lost"])})
    return {
        "state": "ready",
        "unit": str(entry.analysis_unit),
        "threshold": _points(data["threshold"]),
        "seats": seats,
        "top": [decisions[i] for i in top],
        "decisions": decisions,
    }
