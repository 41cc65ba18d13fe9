"""The Swiss system (gin): a fixed number of rounds, each paired by the standings so far."""

from __future__ import annotations

from typing import Any, ClassVar, cast

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games import glossary
from tournaments import pairing
from tournaments.fields import whole_number_field
from tournaments.formats.base import PairedFormat, Rating, Seating, int_setting
from tournaments.models import Entry


class SwissFormat(PairedFormat):
    """``rounds`` (min(n − 1, max(3, ⌈log₂ n⌉)) when not set). Pairing after every match of the previous
    round has ended: by match points, then rating; each score group's top half meets its bottom half;
    nobody meets the same opponent twice; with an odd number the lowest-placed player without a bye gets
    it. Standings: match points, Buchholz, margins, the direct encounter.

    A void match is a loss for both (see :class:`PairedFormat`): neither gets the win's points, the pair
    counts as met (they are not paired again) and each adds the other's points to their Buchholz."""

    name = "swiss"
    label = gettext_lazy("Schweizer System")
    buchholz = True
    defaults: ClassVar[dict[str, Any]] = {"rounds": None, **PairedFormat.defaults}

    @classmethod
    def own_form_fields(cls) -> dict[str, forms.Field]:
        rounds = whole_number_field(
            gettext_lazy("Runden"), low=1, high=30,
            help_text=gettext_lazy("Leer: nach der Zahl der Teilnehmer, mindestens 3 (bei 8 Spielern 3, bei 20 "
                                   "Spielern 5), höchstens eine weniger als Teilnehmer."))
        return {"rounds": rounds, **super().own_form_fields()}

    @classmethod
    def check_settings(cls, s: dict[str, Any]) -> None:
        super().check_settings(s)
        if s["rounds"] is not None:
            int_setting("rounds", s["rounds"], 1, 30)

    def stage_count(self, players: int | None = None) -> int:
        if players is None:
            players = len(self.participants())
        return self.settings["rounds"] or pairing.swiss_rounds(players)

    def is_over(self, number: int) -> bool:
        return super().is_over(number) or self.t.entries.filter(status=Entry.Status.PLAYING).count() < 2

    def seating(self, number: int, rating: Rating) -> Seating:
        entries = self.playing()
        history = self.results()
        points = pairing.match_points(history, **self.points())
        rated = {e.user_id: rating(e.user).display for e in entries}
        ranked = sorted((e.user_id for e in entries), key=lambda u: -rated[u])  # stable: registration order
        ranked.sort(key=lambda u: -points.get(u, 0))
        pairs, bye = pairing.swiss_pairings(ranked, points, history)
        return cast(Seating, [list(p) for p in pairs] + ([[bye, None]] if bye is not None else []))

    def ranked(self, players: list[int], results: list[pairing.GinResult]) -> list[pairing.GinStanding]:
        return pairing.swiss_standings(players, results, **self.points())

    def description(self) -> str:
        return _("Schweizer System, keine Paarung doppelt")

    def more_words(self) -> list[str]:
        if self.settings["rounds"]:
            return [glossary.rounds(self.settings["rounds"])]
        # The automatic number for the players so far (registered before the start), at least the minimum needed.
        so_far = len(self.participants()) or self.t.entries.filter(status=Entry.Status.REGISTERED).count()
        players = max(so_far, int(self.settings.get("min_players") or 2))
        n = pairing.swiss_rounds(players)
        return [ngettext("%(n)d Runde (automatisch bei %(p)d Teilnehmern)",
                         "%(n)d Runden (automatisch bei %(p)d Teilnehmern)", n) % {"n": n, "p": players}]

    def columns(self) -> list[tuple[str, str]]:
        return [(_("Punkte"), "match_points"), (_("Buchholz"), "buchholz"), (_("Differenz"), "margin")]
