"""The Rommé series tournament (Masters): series of lists at tables of 3 to 6, seated by the standings."""

from __future__ import annotations

import secrets
from collections import Counter
from typing import Any, ClassVar, cast

from django import forms
from django.conf import settings as django_settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games import glossary, registry
from games.models import Match
from tournaments import pairing
from tournaments.errors import TournamentError
from tournaments.fields import WholeNumberField, lazy_format, whole_number_field
from tournaments.formats.base import (
    MAX_RESULT,
    CorrectionGroup,
    Rating,
    Seating,
    TournamentFormat,
    bad_result,
    int_setting,
)
from tournaments.models import Entry, StageTable
from tournaments.scoring import ListStanding, list_result, rank_list


def romme_rounds_allowed() -> tuple[int, ...]:
    """Rounds per list staff may choose (tournaments.md); the test setting widens it to keep tests short."""
    return tuple(django_settings.TOURNAMENTS_ROMME_ROUNDS)


def masters_options(options: dict) -> dict:
    """Rommé table options with Masters scoring on."""
    return {**{k: v for k, v in options.items() if k not in ("scoring", "tournament")}, "scoring": "masters"}


class SeriesFormat(TournamentFormat):
    """``series`` (3) series of one list each, ``rounds`` (12) per list, tables of ``table_size`` (4);
    series 1 seated at random, later series by the standings. Each list is scored with Masters
    Wertungspunkte (10 × ΣWP − ΣAugen, Abbruch −700); standings: results, WP, fewer Augen, rounds won.
    Who abandons a list (Abbruch) is out of later series unless staff reinstate them.

    **A void list** (the match ended without a result: called off by any path, or ended by staff) scores
    nothing for anyone at that table: no result, no WP, no Augen, no rounds won, nobody out; the
    standings show the series as not played for them, and it is not replayed. Staff who ended a table
    correct its result to what was played (``tournament_result_correct``)."""

    name = "series"
    game = "romme"
    label = gettext_lazy("Serienturnier (Masters)")
    min_players = 3
    defaults: ClassVar[dict[str, Any]] = {"series": 3, "rounds": 12, "table_size": 4, "same_deals": False}
    break_label = gettext_lazy("Pause zwischen den Serien (Minuten)")

    @classmethod
    def own_form_fields(cls) -> dict[str, forms.Field]:
        allowed = ", ".join(map(str, romme_rounds_allowed()))
        return {
            "series": whole_number_field(gettext_lazy("Serien"), low=1, high=10, default=cls.defaults["series"],
                                         help_text=gettext_lazy("Ab der zweiten Serie wird nach dem Tabellenstand "
                                                                "gesetzt.")),
            "rounds": whole_number_field(gettext_lazy("Runden je Liste"), low=1, high=30,
                                         default=cls.defaults["rounds"],
                                         help_text=lazy_format(gettext_lazy("Möglich: %(allowed)s (so gibt an Tischen "
                                                                            "zu 3 und zu 4 jeder gleich oft)."),
                                                               allowed=allowed)),
            "table_size": whole_number_field(gettext_lazy("Tischgröße"), low=3, high=6,
                                             default=cls.defaults["table_size"],
                                             help_text=gettext_lazy("Spieler je Tisch, 3 bis 6; die Tische werden so "
                                                                    "gleich groß wie möglich.")),
            "same_deals": forms.BooleanField(label=gettext_lazy("Gleiche Karten an allen Tischen einer Größe"),
                                             required=False),
        }

    @classmethod
    def form_errors(cls, values: dict[str, Any]) -> dict[str, str]:
        errors = super().form_errors(values)
        rounds = values.get("rounds")
        if rounds is not None and rounds not in romme_rounds_allowed():
            errors["rounds"] = _("Runden je Liste: %(allowed)s.") % {
                "allowed": ", ".join(map(str, romme_rounds_allowed()))}
        return errors

    @classmethod
    def check_settings(cls, s: dict[str, Any]) -> None:
        int_setting("series", s["series"], 1, 10)
        if s["rounds"] not in romme_rounds_allowed() or isinstance(s["rounds"], bool):
            allowed = ", ".join(map(str, romme_rounds_allowed()))
            raise TournamentError("bad_settings", f"Runden je Liste: {allowed}.")
        int_setting("table_size", s["table_size"], 3, 6)
        if not isinstance(s["same_deals"], bool):
            raise TournamentError("bad_settings", "same_deals ist an oder aus (true/false).")

    @classmethod
    def check_options(cls, options: dict, settings: dict[str, Any]) -> dict:
        for name in ("seats", "rounds", "scoring", "tournament"):
            if name in options:
                raise TournamentError("bad_options", f"Die Tischoption {name} legt das Turnier fest.")
        try:
            registry.get(cls.game).engine.normalize_options(masters_options({**options, "rounds": settings["rounds"]}),
                                                       seats=settings["table_size"])
        except ValueError as error:
            raise TournamentError("bad_options", f"Ungültige Tischoption: {error}") from None
        return options

    def table_options(self, seats: int) -> dict:
        return masters_options({**self.t.options, "rounds": self.settings["rounds"]})

    # --- stages -------------------------------------------------------------------------------------

    def stage_count(self, players: int | None = None) -> int:
        return self.settings["series"]

    def is_over(self, number: int) -> bool:
        active = self.t.entries.filter(status=Entry.Status.PLAYING, out=False)
        return super().is_over(number) or active.count() < 2

    def seating(self, number: int, rating: Rating) -> Seating:
        active = [e.user_id for e in self.playing() if not e.out]
        sizes = pairing.romme_table_sizes(len(active), self.settings["table_size"])
        if number == 1:
            return cast(Seating, pairing.romme_seating_random(active, sizes, secrets.SystemRandom()))
        seated = set(active)
        return cast(Seating, pairing.romme_seating([row["user_id"] for row in self.standings()
                                                    if row["user_id"] in seated], sizes))

    def deal_seeds(self, seating: Seating) -> dict[str, str]:
        if not self.settings.get("same_deals"):
            return {}
        return {str(size): secrets.token_hex(16) for size in sorted({len(s) for s in seating})}

    def table_result(self, st: StageTable, match: Match) -> dict:
        result = match.result or {}
        if match.status != Match.Status.FINISHED or not result:
            return {"void": True}
        left = result.get("left") or [False] * len(st.users)
        seats = []
        for i, user_id in enumerate(st.users):
            wp, augen = result["wertungspunkte"][i], result["augen"][i]
            seats.append({
                "user_id": user_id,
                "result": list_result(wertungspunkte=[wp], points=[augen], aborted=bool(left[i])),
                "wertungspunkte": wp, "augen": augen, "rounds_won": result["rounds_won"][i],
                "abbruch": bool(left[i]),
            })
        return {"seats": seats}

    def abandoned(self, result: dict) -> dict[int, bool]:
        return {seat["user_id"]: seat["abbruch"] for seat in result.get("seats", [])}

    def corrected_result(self, st: StageTable, result: dict) -> dict:
        seats = result.get("seats")
        if (not isinstance(seats, list)
                or Counter(s.get("user_id") for s in seats if isinstance(s, dict)) != Counter(st.users)):
            raise bad_result()
        out = []
        for seat in seats:
            try:
                wp, augen, won = int(seat["wertungspunkte"]), int(seat["augen"]), int(seat["rounds_won"])
            except (KeyError, TypeError, ValueError):
                raise bad_result() from None
            if augen < 0 or won < 0:
                raise bad_result()
            abbruch = bool(seat.get("abbruch", False))
            out.append({"user_id": seat["user_id"], "result": list_result(wertungspunkte=[wp], points=[augen],
                        aborted=abbruch), "wertungspunkte": wp, "augen": augen, "rounds_won": won,
                        "abbruch": abbruch})
        order = {u: i for i, u in enumerate(st.users)}
        return {"seats": sorted(out, key=lambda s: order[s["user_id"]])}

    def correction_fields(self, st: StageTable, names: dict[int, str]) -> list[CorrectionGroup]:
        """Each seat's Wertungspunkte, Augen, rounds won and Abbruch, a group per seat in seat order."""
        seats = {s.get("user_id"): s for s in (st.result or {}).get("seats", [])}
        rounds = self.settings.get("rounds") or 24
        groups: list[CorrectionGroup] = []
        for u in st.users:
            name = names.get(u, str(u))
            seat = seats.get(u, {})
            fields: dict[str, forms.Field] = {
                f"wp_{u}": WholeNumberField(label=_("WP %(name)s") % {"name": name}, min_value=-MAX_RESULT,
                                            max_value=MAX_RESULT),
                f"augen_{u}": WholeNumberField(label=_("Augen %(name)s") % {"name": name}, min_value=0,
                                               max_value=MAX_RESULT),
                f"won_{u}": WholeNumberField(label=_("Gewonnene Runden %(name)s") % {"name": name}, min_value=0,
                                             max_value=rounds),
                f"abbruch_{u}": forms.BooleanField(label=_("Abbruch %(name)s") % {"name": name}, required=False),
            }
            initial = {f"wp_{u}": seat.get("wertungspunkte", 0), f"augen_{u}": seat.get("augen", 0),
                       f"won_{u}": seat.get("rounds_won", 0), f"abbruch_{u}": seat.get("abbruch", False)}
            groups.append((name, fields, initial))
        return groups

    def correction_result(self, st: StageTable, values: dict[str, Any]) -> dict:
        return {"seats": [{"user_id": u, "wertungspunkte": values[f"wp_{u}"], "augen": values[f"augen_{u}"],
                           "rounds_won": values[f"won_{u}"], "abbruch": values[f"abbruch_{u}"]} for u in st.users]}

    def csv_stage_cells(self, entry: dict | None, names: dict[int, str]) -> list[Any]:
        return [entry["result"] if entry else ""]

    # --- reads --------------------------------------------------------------------------------------

    def standings(self) -> list[dict]:
        stages = self.t.stages.count()
        rows: dict[int, dict[str, Any]] = {e.user_id: {"user_id": e.user_id, "place": None, "stages": [None] * stages, "result": 0,
                            "wertungspunkte": 0, "augen": 0, "rounds_won": 0, "out": e.out,
                            "removed": e.status == Entry.Status.REMOVED} for e in self.participants()}
        for st in self.finished_tables():
            for seat in (st.result or {}).get("seats", []):  # a void list has none: nothing scored
                row = rows.get(seat["user_id"])
                if row is None:
                    continue
                row["stages"][st.stage.number - 1] = {k: seat[k] for k in
                                                      ("result", "wertungspunkte", "augen", "rounds_won", "abbruch")}
                for key in ("result", "wertungspunkte", "augen", "rounds_won"):
                    row[key] += seat[key]
        ranked = rank_list([ListStanding(u, r["result"], r["wertungspunkte"], r["augen"], r["rounds_won"])
                            for u, r in rows.items()])
        out = []
        for place, standing in ranked:
            row = rows[cast(int, standing.player)]
            row["place"] = place
            out.append(row)
        return out

    # --- the page -----------------------------------------------------------------------------------

    def words(self) -> list[str]:
        s = self.settings
        words = [_("%(series)s zu je %(rounds)s") % {"series": glossary.series(s["series"]),
                                                     "rounds": glossary.rounds(s["rounds"])},
                 _("Tische zu %(k)d Spielern, gesetzt nach Tabellenstand") % {"k": s["table_size"]},
                 _("Masters-Wertung: 10 × Wertungspunkte − Augen, Abbruch −700")]
        if s["same_deals"]:
            words.append(_("Gleiche Karten: alle Tische einer Größe spielen dieselben Verteilungen"))
        return words

    def columns(self) -> list[tuple[str, str]]:
        return [(_("Ergebnis"), "result"), (_("WP"), "wertungspunkte"), (_("Augen"), "augen"),
                (_("Runden gewonnen"), "rounds_won")]

    def stage_label(self, number: int) -> str:
        return _("Serie %(n)s") % {"n": number}

    def stage_tables_title(self, number: int) -> str:
        return _("Tische der Serie %(n)s") % {"n": number}

    def stage_break_words(self, minutes: int) -> str:
        return ngettext("%(m)d Minute Pause zwischen den Serien", "%(m)d Minuten Pause zwischen den Serien",
                        minutes) % {"m": minutes}

    def next_stage_countdown_label(self) -> str:
        return _("Nächste Serie in")

    def next_stage_now_label(self) -> str:
        return _("Nächste Serie jetzt")

    def stage_started_label(self, number: int) -> str:
        return _("Serie %(n)s gestartet") % {"n": number}

    def stage_cell(self, entry: dict | None, names: dict[int, str]) -> str:
        if not entry:
            return "–"
        return f"{entry['result']} ({_('Abbruch')})" if entry["abbruch"] else str(entry["result"])
