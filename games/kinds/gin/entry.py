"""Gin Rommé (gin.md) as the site knows it: two seats, the presets and options of the lobby, points through
``points.py``, the replay viewer's positions with each hand arranged into its least-deadwood melds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from games.engine.gin import bots as gin_bots
from games.engine.gin import match as gin_match
from games.engine.gin import replay as gin_replay
from games.kinds.base import (
    JSON,
    NO_YES,
    TURN_SECONDS,
    YES_NO,
    OptionField,
    Preset,
    RoundRowRecordsEntry,
    SheetRow,
    card_text,
    deal_of,
)
from games.kinds.gin import glossary as gin_glossary
from games.kinds.gin import points, words


class GinEntry(RoundRowRecordsEntry):
    name = "gin"
    label = "Gin Rommé"
    title = pgettext_lazy("Spielname", "Gin Rommé")
    engine = gin_match
    bots = gin_bots
    seats = (2, 2)
    default_seats = 2
    sign = "♠"
    profile_wins_label = gettext_lazy("Gewonnen")
    leaderboard_wins_label = gettext_lazy("Siegquote")
    presets = (
        Preset("klassisch", gettext_lazy("Klassisch"),
               gettext_lazy("Bis 100 Punkte, Angebot der ersten Karte, Partie- und Rundenbonus")),
        Preset("schnell", gettext_lazy("Schnell"), gettext_lazy("Eine gewertete Runde entscheidet"),
               {"target": 0, "first_turn": "free"}),
        Preset("oklahoma", gettext_lazy("Oklahoma"),
               gettext_lazy("Die erste Karte setzt die Klopfgrenze, Pik zählt doppelt"), {"variant": "oklahoma"}),
        Preset("straight", gettext_lazy("Straight Gin"), gettext_lazy("Kein Klopfen – nur Gin beendet die Runde"),
               {"variant": "straight"}),
        Preset("hollywood", gettext_lazy("Hollywood"), gettext_lazy("Drei Partien auf einmal, in drei Spalten"),
               {"hollywood": True}),
    )
    option_fields = (
        OptionField("target", gettext_lazy("Partie bis"),
                    (("100", "100"), ("0", gettext_lazy("eine Runde")), ("50", "50"), ("150", "150"), ("200", "200")),
                    int),
        OptionField("variant", gettext_lazy("Variante"),
                    (("standard", gettext_lazy("Standard (Klopfen bis 10)")), ("oklahoma", "Oklahoma"),
                     ("straight", "Straight Gin"))),
        OptionField("first_turn", gettext_lazy("Erster Zug"),
                    (("pass", gettext_lazy("Angebot der offenen Karte (klassisch)")),
                     ("free", gettext_lazy("Freier erster Zug")))),
        OptionField("next_dealer", gettext_lazy("Nächster Geber"),
                    (("winner", gettext_lazy("Gewinner der Runde")), ("loser", gettext_lazy("Verlierer der Runde")),
                     ("alternate", gettext_lazy("abwechselnd")))),
        OptionField("undercut_bonus", gin_glossary.UNDERCUT_BONUS, (("25", "25"), ("20", "20"), ("10", "10")),
                    int),
        OptionField("gin_bonus", gettext_lazy("Gin-Bonus"), (("25", "25"), ("20", "20")), int),
        OptionField("big_gin", gettext_lazy("Big Gin erlaubt (31 Bonus)"), NO_YES, bool),
        OptionField("match_bonuses", gettext_lazy("Partie- und Rundenbonus (100 / 25)"), YES_NO, bool),
        OptionField("hollywood", gettext_lazy("Hollywood (drei Spalten)"), NO_YES, bool),
        OptionField("turn_seconds", gettext_lazy("Bedenkzeit pro Zug"), TURN_SECONDS, int),
    )
    replay = staticmethod(gin_replay.replay)
    client_module = "gin/client.js"
    stylesheet = "gin/gin.css"
    round_results = {"knock": gin_glossary.KNOCK, "undercut": gin_glossary.UNDERCUT, "gin": gin_glossary.GIN,
                     "big_gin": gin_glossary.BIG_GIN}
    #: The deadwood meter, and the upcard the seat to act took (the public history says only that one was).
    seat_only_keys = ("meter", "taken")
    profile_round_facts = ("result", "winner", "knocker", "deadwood")
    analysis = "games.engine.gin.analysis"
    analysis_unit = gettext_lazy("Punkte der Runde")

    def table_words(self) -> JSON:
        return words.table_words()

    def replay_words(self) -> JSON:
        return words.replay_words()

    def describe_action(self, action: JSON) -> str:
        kind = action.get("action")
        card = card_text(str(action.get("card", "")))
        if kind == "pass":
            return _("passen")
        if kind == "draw":
            return _("vom Stapel ziehen") if action.get("from") == "stock" else _("die offene Karte nehmen")
        if kind == "discard":
            return _("%(card)s abwerfen") % {"card": card}
        if kind == "knock":
            return _("klopfen, %(card)s ablegen") % {"card": card}
        if kind == "big_gin":
            return str(gin_glossary.BIG_GIN)
        return str(kind)

    def option_summary(self, options: JSON) -> list[str]:
        parts: list[str] = []
        target = options.get("target", 100)
        parts.append(_("eine Runde") if target == 0 else _("bis %(n)s") % {"n": target})
        variant: str = options.get("variant", "standard")
        if variant != "standard":
            parts.append({"oklahoma": "Oklahoma", "straight": "Straight Gin"}.get(variant, variant))
        if options.get("hollywood"):
            parts.append("Hollywood")
        if options.get("first_turn") == "free":
            parts.append(_("freier erster Zug"))
        if options.get("big_gin"):
            parts.append("Big Gin")
        if target and not options.get("match_bonuses", True):
            parts.append(_("ohne Boni"))
        return parts

    # Looked up in ``points`` at each call (a test may count them).
    def outcome(self, facts: JSON) -> JSON | None:
        return points.outcome(facts) if facts["over"] else None

    def score_sheet(self, facts: JSON) -> JSON:
        return points.score_sheet(facts)

    def summary(self, facts: JSON) -> JSON:
        return points.summary(facts)

    def record_extras(self, result: JSON) -> JSON:
        # A resignation ends a gin match in the middle of a round: the record says who, so it replays.
        resigned = result.get("resigned")
        return {"resigned": resigned} if isinstance(resigned, int) else {}

    def won(self, result: JSON, seat: int, place: int) -> bool:
        return result.get("winner") == seat

    def match_sheet(self, result: JSON, rounds: Sequence[Any], seats: int) -> JSON:
        rows = []
        for rnd in rounds:
            r = rnd.result or {}
            winner = r.get("winner")
            cells: list = ["", ""]
            if isinstance(winner, int) and r.get("points"):
                cells[winner] = r["points"]
            note = ""
            deadwood = r.get("deadwood")
            if isinstance(deadwood, list) and len(deadwood) == 2:
                note = _("Restpunkte %(a)s : %(b)s") % {"a": deadwood[0], "b": deadwood[1]}
            rows.append(SheetRow(label=str(rnd.number), cells=cells, note=self.result_label(r) +
                                 (f" · {note}" if note else ""), winner=winner))
        totals = result.get("totals") or [0, 0]
        final = result.get("final") or totals
        sums = [
            SheetRow(label=_("Punkte"), cells=list(totals), kind="total"),
            SheetRow(label=_("Gewonnene Runden"), cells=list(result.get("boxes") or [0, 0]), kind="total"),
        ]
        columns = result.get("columns")
        if columns:  # Hollywood: three games at once, each with its own bonuses
            for index, column in enumerate(columns, start=1):
                sums.append(SheetRow(label=_("Spalte %(n)s") % {"n": index}, cells=list(column.get("final") or []),
                                     kind="bonus", winner=column.get("winner")))
        else:
            bonuses = [f - t for f, t in zip(final, totals, strict=False)]
            if any(bonuses):
                sums.append(SheetRow(label=_("Boni (Spiel und Runden)"), cells=bonuses, kind="bonus"))
        sums.append(SheetRow(label=_("Endstand"), cells=list(final), kind="final", winner=result.get("winner")))
        return {"mode": "gin", "rounds": rows, "sums": sums}

    def profile_facts(self, stats: JSON) -> list[tuple[str, str, str]]:
        average = stats.get("deadwood_average")
        return [
            ("gins", _("Gin"), str(stats.get("gins", 0))),
            ("undercuts-given", _("Unterschnitt geschafft"), str(stats.get("undercuts_given", 0))),
            ("undercuts-suffered", _("Unterschnitt erlitten"), str(stats.get("undercuts_suffered", 0))),
            ("knock-deadwood", _("Restpunkte beim Klopfen (Schnitt)"),
             "–" if average is None else number_format(average, 1)),
        ]

    def profile_statistics(self, *, matches: Sequence[tuple[int, JSON]], rounds: Sequence[tuple[int, JSON]]) -> JSON:
        gin: JSON = {"gins": 0, "undercuts_given": 0, "undercuts_suffered": 0, "knocks": 0, "deadwood_sum": 0}
        for seat, facts in rounds:
            kind, winner, knocker, deadwood = facts["result"], facts["winner"], facts["knocker"], facts["deadwood"]
            if kind in ("gin", "big_gin") and winner == seat:
                gin["gins"] += 1
            if kind == "undercut":
                if winner == seat:
                    gin["undercuts_given"] += 1
                elif knocker == seat:
                    gin["undercuts_suffered"] += 1
            # Gin is a knock with no deadwood, so it counts towards the average too.
            if knocker == seat and isinstance(deadwood, list) and seat < len(deadwood):
                gin["knocks"] += 1
                gin["deadwood_sum"] += deadwood[seat]
        gin["deadwood_average"] = gin["deadwood_sum"] / gin["knocks"] if gin["knocks"] else None
        return gin

    def replay_positions(self, record: JSON) -> tuple[list[JSON], list[JSON]]:
        from games.engine.cards import ALL_CARDS
        from games.engine.gin.match import apply_action, match_from_deal, next_round_from_deal
        from games.engine.gin.melds import best_melds, cards_of

        def position(m: gin_match.Match, number: int, move: dict | None) -> dict:
            rnd = m.round
            arranged, deadwood = [], []
            for mask in rnd.hands:
                cards = cards_of(mask)
                groups, points = best_melds(cards)
                melded = {c for group in groups for c in group}
                arranged.append(groups + [[c for c in cards if c not in melded]])
                deadwood.append(points)
            remaining = rnd.stock[rnd.stock_pos:]
            return {
                "round": number,
                "move": move,
                "arranged": arranged,
                "deadwood": deadwood,
                "to_act": None if rnd.phase == "round_over" else rnd.to_act,
                "phase": rnd.phase,
                "discard": ALL_CARDS[rnd.discard[-1]] if rnd.discard else None,
                "discard_size": len(rnd.discard),
                "stock_size": len(remaining),
                "stock_top": ALL_CARDS[remaining[0]] if remaining else None,
            }

        options = record.get("options", {})
        players = record.get("players")
        rounds: list[dict] = []
        positions: list[dict] = []
        m = None
        for number, rnd in enumerate(record["rounds"], start=1):
            deal = deal_of(rnd)
            if m is None:
                m = match_from_deal(options, players=players, **deal)
            else:
                m = next_round_from_deal(m, **deal)
            first = len(positions)
            positions.append(position(m, number, None))
            for move in rnd["moves"]:
                seat = move["seat"]
                before = m.round.hands[seat]
                m = apply_action(m, seat, {k: v for k, v in move.items() if k != "seat"})
                shown = dict(move)
                if move["action"] == "draw":
                    (shown["card"],) = cards_of(m.round.hands[seat] & ~before)
                positions.append(position(m, number, shown))
            rounds.append({"number": number, "deal": deal, "first": first, "last": len(positions) - 1})
        return rounds, positions


ENTRY = GinEntry()
