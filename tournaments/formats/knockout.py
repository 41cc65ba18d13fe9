"""The knockout (gin): a bracket of the next power of two, seeded by rating; the loser of a match is out."""

from __future__ import annotations

import secrets

from django.utils.translation import gettext as _

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
    label = "K.-o.-System"

    def stage_count(self, players: int | None = None) -> int:
        if players is None:
            players = len(self.participants())
        return pairing.knockout_rounds(players)

    def seeds(self, entries: list[Entry], rating: Rating) -> dict[int, int]:
        rng = secrets.SystemRandom()
        rated, provisional = [], []
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
            return [list(p) for p in pairing.knockout_first_round(seeded)]
        previous = self.t.stages.get(number=number - 1)
        removed = self.removed()
        # A removed player forfeits: the other goes through (a walkover is recorded as a bye).
        winners = [None if w in removed else w for w in map(self.winner_of, previous.tables.order_by("number"))]
        return [[a, b] if a is not None else [b, a] for a, b in pairing.knockout_next_round(winners)]

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
        rounds = []
        for stage in self.t.stages.prefetch_related("tables").order_by("number"):
            matches = []
            for st in stage.tables.all():
                winner = self.winner_of(st)
                matches.append({"players": [{"name": names.get(u, _("Freilos")) if u else _("Freilos"),
                                             "won": u is not None and u == winner} for u in st.users],
                                "table": st.table_id})
            rounds.append({"number": stage.number, "matches": matches})
        return rounds
