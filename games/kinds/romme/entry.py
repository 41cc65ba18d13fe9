"""Rommé (romme.md) as the site knows it: 2 to 6 seats (4 by default), casual or Masters scoring, points
through ``points.py``, the replay viewer's positions with every hand and the melds on the table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from games import glossary
from games.engine.romme import bots as romme_bots
from games.engine.romme import hints as romme_hints
from games.engine.romme import match as romme_match
from games.engine.romme import replay as romme_replay
from games.kinds.base import (
    JSON,
    TURN_SECONDS,
    OptionField,
    Preset,
    RoundRowRecordsEntry,
    SheetRow,
    card_text,
    deal_of,
)
from games.kinds.romme import glossary as romme_glossary
from games.kinds.romme import points, words


class RommeEntry(RoundRowRecordsEntry):
    name = "romme"
    label = "Rommé"
    title = pgettext_lazy("Spielname", "Rommé")
    engine = romme_match
    bots = romme_bots
    seats = (2, 6)
    default_seats = 4
    sign = "♥"
    sign_class = "red"
    analysis = "games.engine.romme.analysis"
    analysis_unit = gettext_lazy("Minuspunkte der Runde")
    profile_wins_label = gettext_lazy("Listen gewonnen")
    leaderboard_wins_label = gettext_lazy("Listen gewonnen")
    pool_note = gettext_lazy("Rommé: ein Tisch zu viert, nach einer Minute auch zu dritt, nach zwei Minuten zu zweit.")
    presets = (
        Preset("standard", gettext_lazy("Standard"), gettext_lazy("Auslegen ab 40 Punkten, Minuspunkte, eine Liste")),
        Preset("turnier", gettext_lazy("Turnier (Masters)"),
               gettext_lazy("Wertungspunkte nach der Masters-Wertung, ohne Chat"), {"scoring": "masters"}),
    )
    option_fields = (
        OptionField("seats", gettext_lazy("Spieler"), (("4", "4"), ("2", "2"), ("3", "3"), ("5", "5"), ("6", "6")), int),
        OptionField("opening_points", gettext_lazy("Auslegen ab"),
                    (("40", gettext_lazy("40 Punkten")), ("30", gettext_lazy("30 Punkten")),
                     ("0", gettext_lazy("sofort"))), int),
        OptionField("rounds", gettext_lazy("Runden in der Liste"),
                    (("", gettext_lazy("zweimal die Spielerzahl")), *[(str(n), str(n)) for n in (2, 4, 6, 8, 10, 12)]),
                    int),
        OptionField("turn_seconds", gettext_lazy("Bedenkzeit pro Zug"), TURN_SECONDS, int),
        OptionField("scoring", gettext_lazy("Wertung"),
                    (("casual", gettext_lazy("Minuspunkte")),
                     ("masters", gettext_lazy("Masters: Wertungspunkte, ohne Chat")))),
    )
    replay = staticmethod(romme_replay.replay)
    client_module = "romme/client.js"
    stylesheet = "romme/romme.css"
    round_results = {"romme": romme_glossary.ROMME, "hand_romme": romme_glossary.HAND_ROMME}
    #: The hand's Augen, its best opening, the card drawn this turn and where from, and which of the hand's cards
    #: fit both ends of a run (before opening).
    seat_only_keys = ("hand_augen", "best_opening", "drawn", "drawn_from", "lay_off_both_ends")
    profile_round_facts = ("winner", "hand_romme")
    #: The meld builder's question, bounded for any input (``romme_hints.PREVIEW_BUDGET``).
    meld_preview = staticmethod(romme_hints.meld_preview)

    def describe_action(self, action: JSON) -> str:
        kind = action.get("action")
        card = card_text(str(action.get("card", "")))
        if kind == "draw":
            return _("vom Stapel ziehen") if action.get("from") == "stock" else _("die offene Karte nehmen")
        if kind == "discard":
            return _("%(card)s abwerfen") % {"card": card}
        if kind == "lay":
            melds = " · ".join(" ".join(card_text(str(c)) for c in meld) for meld in action.get("melds") or [])
            text = _("auslegen: %(melds)s") % {"melds": melds}
            lay_offs = action.get("lay_offs") or []
            if lay_offs:
                text += ", " + ", ".join(self.describe_action({"action": "lay_off", **lay}) for lay in lay_offs)
            return text
        if kind == "lay_off":
            return _("%(card)s an Meldung %(meld)s anlegen") % {"card": card, "meld": action.get("meld")}
        if kind == "swap":
            text = _("%(card)s gegen den Joker aus Meldung %(meld)s tauschen") % {"card": card, "meld": action.get("meld")}
            then = action.get("then")
            return f"{text}, {self.describe_action(then)}" if isinstance(then, dict) else text
        return str(kind)

    def table_words(self) -> JSON:
        return words.table_words()

    def replay_words(self) -> JSON:
        return words.replay_words()

    def form_options(self, preset: str, options: JSON) -> JSON:
        # The Masters preset is Masters scoring unless the details say otherwise.
        if preset == "turnier":
            options.setdefault("scoring", "masters")
        return options

    def masters_scoring(self, options: JSON) -> bool:
        # As stored: the old ``tournament`` flag counts too.
        return romme_match.scoring_mode(options) == "masters"

    def option_summary(self, options: JSON) -> list[str]:
        parts: list[str] = []
        if self.masters_scoring(options):
            parts.append(_("Turnier (Wertungspunkte)"))
        opening = options.get("opening_points", 40)
        parts.append(_("Auslegen ab %(n)s") % {"n": opening} if opening else _("Auslegen sofort"))
        if options.get("rounds"):
            parts.append(glossary.rounds(int(options["rounds"])))
        return parts

    # Looked up in ``points`` at each call (a test may count them).
    def outcome(self, facts: JSON) -> JSON | None:
        return points.outcome(facts) if facts["over"] else None

    def score_sheet(self, facts: JSON) -> JSON:
        return points.score_sheet(facts)

    def summary(self, facts: JSON) -> JSON:
        return points.summary(facts)

    def last_round_shown(self, last_round: JSON | None) -> JSON | None:
        return points.last_round(last_round)

    def score_kind(self, options: JSON) -> str:
        return "result" if self.masters_scoring(options) else "minus"

    def won(self, result: JSON, seat: int, place: int) -> bool:
        # The list won, a shared first place included.
        return place == 1

    def result_label(self, round_result: JSON) -> str:
        if round_result.get("hand_romme"):
            return str(self.round_results["hand_romme"])
        return super().result_label(round_result)

    def match_sheet(self, result: JSON, rounds: Sequence[Any], seats: int) -> JSON:
        masters = bool(result.get("tournament"))
        rows = []
        for rnd in rounds:
            r = rnd.result or {}
            winner = r.get("winner")
            if masters:
                wp = r.get("wertungspunkte") or [""] * seats
                augen = r.get("augen") if winner is not None else None
                augen = augen or [0] * seats
                cells = [f"{glossary.number(w)} WP · {a}" for w, a in zip(wp, augen, strict=False)]
            else:
                cells = list(r.get("minus") or [""] * seats)
            rows.append(SheetRow(label=str(rnd.number), cells=cells, winner=winner, note=self.result_label(r)))
        sums = []
        if masters:
            sums += [
                SheetRow(label=_("Wertungspunkte"), cells=list(result.get("wertungspunkte") or []), kind="total"),
                SheetRow(label=_("Augen"), cells=list(result.get("augen") or []), kind="total"),
                SheetRow(label=_("Listenergebnis"), cells=list(result.get("final") or []), kind="final",
                         winner=result.get("winner")),
            ]
        else:
            sums.append(SheetRow(label=_("Minuspunkte"), cells=list(result.get("minus") or result.get("final") or []),
                                 kind="final", winner=result.get("winner")))
        sums.append(SheetRow(label=_("Gewonnene Runden"), cells=list(result.get("rounds_won") or []), kind="total"))
        sums.append(SheetRow(label=_("Platz"), cells=list(result.get("places") or []), kind="place"))
        return {"mode": "masters" if masters else "casual", "rounds": rows, "sums": sums}

    def profile_facts(self, stats: JSON) -> list[tuple[str, str, str]]:
        facts = [
            ("hand-rommes", _("Hand-Rommés"), str(stats.get("hand_rommes", 0))),
            ("rounds-won", _("Runden gewonnen"), str(stats.get("rounds_won", 0))),
        ]
        if stats.get("masters_lists"):
            facts += [
                ("masters-lists", _("Masters-Listen"), str(stats["masters_lists"])),
                ("masters-wp", _("Wertungspunkte je Liste (Schnitt)"), number_format(stats["masters_wp_average"], 1)),
                ("masters-result", _("Listenergebnis (Schnitt)"), number_format(stats["masters_result_average"], 1)),
            ]
        return facts

    def profile_statistics(self, *, matches: Sequence[tuple[int, JSON]], rounds: Sequence[tuple[int, JSON]]) -> JSON:
        masters_wp: list[int] = []
        masters_result: list[int] = []
        for seat, result in matches:
            if result.get("tournament"):
                wp, final = result.get("wertungspunkte") or [], result.get("final") or []
                if seat < len(wp) and seat < len(final):
                    masters_wp.append(wp[seat])
                    masters_result.append(final[seat])
        romme: JSON = {"hand_rommes": 0, "rounds_won": 0}
        for seat, facts in rounds:
            if facts["winner"] == seat:
                romme["rounds_won"] += 1
                if facts["hand_romme"]:
                    romme["hand_rommes"] += 1
        romme["masters_lists"] = len(masters_wp)
        romme["masters_wp_average"] = sum(masters_wp) / len(masters_wp) if masters_wp else None
        romme["masters_result_average"] = sum(masters_result) / len(masters_result) if masters_result else None
        return romme

    def meld_preview_unsearched(self, cards: list[str]) -> JSON | None:
        if len(cards) < 3:  # no reading to search for (and two jokers alone would be reported as "no cards")
            return {"meld": None, "points": None, "error": f"a meld needs at least 3 cards, not {len(cards)}"}
        return None

    def replay_positions(self, record: JSON) -> tuple[list[JSON], list[JSON]]:
        # The Rommé replay's own deal check and move step, so the positions come from exactly the rules the
        # replay command applies (a resignation, a reshuffle and a seat played by the server included).
        from games.engine.romme.match import Match, normalize_options
        from games.engine.romme.melds import meld_codes_sorted
        from games.engine.romme.replay import _check_deal, _replay_move

        rounds_in = record["rounds"]
        options = record.get("options", {})
        seats = len(rounds_in[0]["hands"]) if rounds_in else None
        if "seats" not in options and seats is not None:
            options = normalize_options(options, seats=seats)
        else:
            options = normalize_options(options)

        def position(m: Match, number: int, move: dict | None) -> dict:
            r = m.round
            return {
                "round": number,
                "move": move,
                "hands": [meld_codes_sorted(h) for h in r.hands],
                "melds": [{"number": t.number, "owner": t.owner, "cards": list(t.meld.cards)} for t in r.melds],
                "opened": list(r.opened),
                "left": list(m.left),
                "to_act": None if r.over else r.to_act,
                "phase": r.phase,
                "discard": r.discard_pile[-1] if r.discard_pile else None,
                "discard_size": len(r.discard_pile),
                "stock_size": len(r.stock),
                "stock_top": r.stock[0] if r.stock else None,
            }

        rounds: list[dict] = []
        positions: list[dict] = []
        m: Match | None = None
        for number, rnd in enumerate(rounds_in, start=1):
            expected = None if m is None else (m.round.dealer + 1) % options["seats"]
            r = _check_deal(rnd, options["seats"], number, expected)
            r.opening_points = options["opening_points"]
            if m is None:
                m = Match(options=options, players=record.get("players"), round_=r)
            else:
                m.round = r
                m.round_logged = False
            first = len(positions)
            positions.append(position(m, number, None))
            for index, move in enumerate(rnd["moves"]):
                _replay_move(m, move, number, index)
                shown = {k: v for k, v in move.items() if k != "stock"}  # a reshuffle's new order: its size
                if move.get("action") == "reshuffle":
                    shown["stock_size"] = len(move["stock"])
                elif move.get("action") == "draw" and m.round.drawn_card is not None:
                    shown["card"] = m.round.drawn_card
                positions.append(position(m, number, shown))
            rounds.append({"number": number, "deal": deal_of(rnd), "first": first, "last": len(positions) - 1})
        return rounds, positions


ENTRY = RommeEntry()
