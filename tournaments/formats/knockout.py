"""The knockout (gin): a bracket of the next power of two, seeded by rating; the loser of a match is out."""

from __future__ import annotations

import secrets
from typing import Any, cast

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.models import Match
from tournaments import pairing
from tournaments.errors import TournamentError
from tournaments.formats.base import PairedFormat, Rating, Seating
from tournaments.models import Entry, StageTable


class KnockoutFormat(PairedFormat):
    """Seeds by rating (highest first; provisional players after the rated ones, among themselves at
    random); standard seeding, byes to the top seeds. Places: winner 1, final loser 2, semi-final losers
    share 3, quarter-final losers share 5, and so on. A removed player's next match is a walkover.

    **A void match** is a loss for both (see :class:`PairedFormat`): *neither player goes through* (not
    the better seed, not seat 0). Their slot in the next round is empty, so that round's opponent has a
    walkover; two empty slots meeting leave the next slot empty too, and a void final has no winner (both
    finalists share place 2). Staff who ended a table correct its winner while the next round has not
    started; once it has, the bracket stands."""

    name = "knockout"
    label = gettext_lazy("K.-o.-System")

    def stage_count(self, players: int | None = None) -> int:
        if players is None:
            players = len(self.participants())
        return pairing.knockout_rounds(players)

    def seeds(self, entries: list[Entry], rating: Rating) -> dict[int, int]:
        rng = secrets.SystemRandom()
        rated: list[tuple[Any, Entry]] = []
        provisional: list[tuple[Any, Entry]] = []
        for entry in entries:
            r = rating(entry.user)
            (provisional if getattr(r, "provisional", False) else rated).append((r.display, entry))
        rated.sort(key=lambda pair: (-pair[0], pair[1].number))
        rng.shuffle(provisional)
        return {entry.user_id: seed for seed, (_r, entry) in enumerate(rated + provisional, start=1)}

    @staticmethod
    def winner_of(st: StageTable) -> int | None:
        """Who goes through from a table: its winner; nobody from a void match."""
        return (st.result or {}).get("winner")

    def seating(self, number: int, rating: Rating) -> Seating:
        if number == 1:
            seeded = [e.user_id for e in sorted(self.playing(), key=lambda e: e.seed or 0)]
            return cast(Seating, [list(p) for p in pairing.knockout_first_round(seeded)])
        previous = self.t.stages.get(number=number - 1)
        removed = self.removed()
        # A removed player forfeits: the other goes through (a walkover is recorded as a bye).
        winners = [None if w in removed else w for w in map(self.winner_of, previous.tables.order_by("number"))]
        return cast(Seating, [[a, b] if a is not None else [b, a] for a, b in pairing.knockout_next_round(winners)])

    def bye_result(self, seats: list[int | None]) -> dict:
        if all(u is None for u in seats):
            return {"void": True}  # an empty slot of the bracket: nobody to go through
        return super().bye_result(seats)

    def corrected_result(self, st: StageTable, result: dict) -> dict:
        corrected = super().corrected_result(st, result)
        if self.t.stages.filter(number__gt=st.stage.number).exists() and self.winner_of(st) != corrected["winner"]:
            raise TournamentError("too_late", "Die nächste K.-o.-Runde läuft schon; der Sieger steht fest.")
        return corrected

    def check_reinstate(self) -> None:
        raise TournamentError("not_allowed", "Im K.-o.-System ist ausgeschieden ausgeschieden.")

    def standings(self) -> list[dict]:
        entries = self.participants()
        rounds = pairing.knockout_rounds(len(entries))
        lost_in: dict[int, int] = {}
        for st in self.finished_tables():
            r = st.result or {}
            if r.get("loser") is not None:
                lost_in[r["loser"]] = st.stage.number
            elif r.get("void"):  # both lost
                for user_id in st.users:
                    if user_id is not None:
                        lost_in[user_id] = st.stage.number
        removed = {e.user_id for e in entries if e.status == Entry.Status.REMOVED}
        per_stage = self.stage_entries([e.user_id for e in entries])
        mp = pairing.match_points(self.results(), **self.points())
        rows = []
        for e in entries:
            out = lost_in.get(e.user_id)
            place = pairing.knockout_place(rounds=rounds, lost_in=out)
            if out is None and e.user_id in removed:
                place = pairing.knockout_place(rounds=rounds, lost_in=max(1, self.t.current_stage))
            rows.append({"user_id": e.user_id, "place": place, "stages": per_stage[e.user_id],
                         "match_points": mp.get(e.user_id, 0), "seed": e.seed,
                         "margin": sum((x["margin"] if x["won"] else -x["margin"])
                                       for x in per_stage[e.user_id] if x)})
        rows.sort(key=lambda r: (r["place"], r["seed"] or 0))
        return rows

    def description(self) -> str:
        return _("K.-o.-System, gesetzt nach Wertungszahl")

    def bracket(self, names: dict[int, str]) -> list[dict]:
        """Round by round: each match's players with their final scores (the match's totals; None while it
        runs or for a bye), who won, and the table; matches grouped in pairs that feed one match of the next
        round (the page draws the lines between them); the last round also names the champion."""
        stages = list(self.t.stages.prefetch_related("tables").order_by("number"))
        table_ids = [st.table_id for stage in stages for st in stage.tables.all() if st.table_id]
        scores: dict[int, dict[int, int]] = {}
        for match in Match.objects.filter(table_id__in=table_ids, status=Match.Status.FINISHED).order_by("number"):
            totals = match.final_scores or []
            scores[match.table_id] = {p["user_id"]: totals[p["seat"]] for p in match.players
                                      if p.get("user_id") is not None and p["seat"] < len(totals)}
        rounds: list[dict[str, Any]] = []
        for stage in stages:
            matches = []
            for st in stage.tables.all():
                winner = self.winner_of(st)
                table_scores = scores.get(st.table_id, {}) if st.table_id else {}
                matches.append({"players": [{"name": names.get(u, _("Freilos")) if u else _("Freilos"),
                                             "won": u is not None and u == winner,
                                             "score": table_scores.get(u) if u is not None else None}
                                            for u in st.users],
                                "table": st.table_id, "bye": st.table_id is None, "decided": winner is not None})
            rounds.append({"number": stage.number, "label": self.bracket_round_label(stage.number),
                           "matches": matches, "pairs": [matches[i:i + 2] for i in range(0, len(matches), 2)]})
        if self.t.status == "finished" and rounds and len(rounds[-1]["matches"]) == 1:
            final = rounds[-1]["matches"][0]
            champion = next((p["name"] for p in final["players"] if p["won"]), None)
            rounds[-1]["champion"] = champion
        return rounds

    def bracket_round_label(self, number: int) -> str:
        """"Finale", "Halbfinale", "Viertelfinale", else "Runde n" (counted from the final)."""
        left = self.stage_count() - number
        return {0: _("Finale"), 1: _("Halbfinale"), 2: _("Viertelfinale"), 3: _("Achtelfinale")}.get(
            left, self.stage_label(number))
