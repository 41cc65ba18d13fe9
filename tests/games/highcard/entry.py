"""High card's registry entry: everything the site needs to offer it, and nothing more.

``register()`` adds it to ``games.registry`` and returns it; ``unregister()`` takes it off again.
"""

from __future__ import annotations

from django.utils.translation import get_language, gettext_lazy

from games import registry
from games.kinds.base import JSON, TURN_SECONDS, GameEntry, OptionField, Preset, deal_of
from tests.games.highcard import bots, engine


def _places(facts: JSON) -> list[int]:
    """More rounds won, better; whoever left below whoever stayed."""
    key = [(facts["left"][seat], -facts["totals"][seat]) for seat in range(facts["seats"])]
    return [1 + sum(1 for other in key if other < mine) for mine in key]


class HighCardEntry(GameEntry):
    name = "highcard"
    label = "Höchste Karte"
    title = gettext_lazy("Höchste Karte")
    engine = engine
    bots = bots
    seats = (2, 2)
    default_seats = 2
    sign = "♦"
    sign_class = "red"
    presets = (
        Preset("kurz", gettext_lazy("Kurz"), gettext_lazy("Eine Runde")),
        Preset("lang", gettext_lazy("Lang"), gettext_lazy("Drei Runden"), {"rounds": 3}),
    )
    option_fields = (
        OptionField("rounds", gettext_lazy("Runden"), (("1", "1"), ("3", "3"), ("5", "5")), int),
        OptionField("turn_seconds", gettext_lazy("Bedenkzeit pro Zug"), TURN_SECONDS, int),
    )
    replay = staticmethod(engine.replay)
    client_module = "highcard/client.js"

    # A game of the test suite has no catalogue: its few words in both languages here.
    TABLE_WORDS = {
        "de": {"hc_play": "Karte ausspielen", "hc_play_card": "{card} ausspielen", "hc_mv_play": "spielt {card}",
               "hc_hint": "Du bist am Zug: eine Karte wählen und ausspielen.",
               "hc_nothing_played": "Noch liegt keine Karte.", "result_high": "höchste Karte",
               "result_tie": "Gleichstand"},
        "en": {"hc_play": "Play a card", "hc_play_card": "Play {card}", "hc_mv_play": "plays {card}",
               "hc_hint": "Your turn: choose a card and play it.", "hc_nothing_played": "No card played yet.",
               "result_high": "high card", "result_tie": "tie"},
    }
    REPLAY_WORDS = {
        "de": {"hc_play": "{name} spielt {card}", "result_high": "höchste Karte", "result_tie": "Gleichstand"},
        "en": {"hc_play": "{name} plays {card}", "result_high": "high card", "result_tie": "tie"},
    }

    @staticmethod
    def _language() -> str:
        return "en" if (get_language() or "de").startswith("en") else "de"

    def table_words(self) -> JSON:
        return dict(self.TABLE_WORDS[self._language()])

    def replay_words(self) -> JSON:
        return dict(self.REPLAY_WORDS[self._language()])

    def result_label(self, round_result: JSON) -> str:
        return self.REPLAY_WORDS[self._language()].get(f"result_{round_result.get('result')}", "–")

    def option_summary(self, options: JSON) -> list[str]:
        return [f"{options.get('rounds', 1)} ×"]

    def outcome(self, facts: JSON) -> JSON | None:
        if not facts["over"]:
            return None
        places = _places(facts)
        firsts = [seat for seat, place in enumerate(places) if place == 1]
        return {"winner": firsts[0] if len(firsts) == 1 else None, "final": list(facts["totals"]),
                "places": places, "left": list(facts["left"])}

    def score_sheet(self, facts: JSON) -> JSON:
        return {"totals": list(facts["totals"]), "rounds": list(facts["rounds"]), "places": _places(facts)}

    def summary(self, facts: JSON) -> JSON:
        out = self.outcome({**facts, "over": True}) or {}
        return {"game": engine.GAME, "rounds": list(facts["rounds"]), "totals": list(facts["totals"]),
                "final": out["final"], "places": out["places"], "winner": out["winner"] if facts["over"] else None,
                "over": facts["over"]}

    def record_extras(self, result: JSON) -> JSON:
        left = [seat for seat, gone in enumerate(result.get("left") or []) if gone]
        return {"resigned": left[0]} if left else {}

    def replay_positions(self, record: JSON) -> tuple[list[JSON], list[JSON]]:
        rounds: list[JSON] = []
        positions: list[JSON] = []
        m = None
        for number, rnd in enumerate(record["rounds"], start=1):
            deal = deal_of(rnd)
            m = (engine.match_from_deal(record.get("options", {}), players=record.get("players"), **deal)
                 if m is None else engine.next_round_from_deal(m, **deal))
            first = len(positions)
            positions.append({"round": number, "move": None, "hands": [list(h) for h in m.hands],
                              "to_act": m.to_act, "phase": m.phase})
            for move in rnd["moves"]:
                m = engine.apply_action(m, move["seat"], {k: v for k, v in move.items() if k != "seat"})
                positions.append({"round": number, "move": dict(move), "hands": [list(h) for h in m.hands],
                                  "to_act": m.to_act, "phase": m.phase})
            rounds.append({"number": number, "deal": deal, "first": first, "last": len(positions) - 1})
        return rounds, positions


ENTRY = HighCardEntry()


def register() -> GameEntry:
    return registry.register(ENTRY)


def unregister() -> None:
    registry.unregister(ENTRY.name)
