"""Rommé's own words in the browser: the table page's (Augen, the opening total, the meld builder, lay-offs and
joker swaps, the Masters columns, how a round ended) and the replay viewer's, in the request's language. The
shells' words (``games.templatetags.table_i18n``, ``games.web.match_views``) stand beside them."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext


def _forms(one: str, other: str) -> dict[str, str]:
    return {"one": one, "other": other}


def table_words() -> dict[str, Any]:
    """The words of ``romme/table.js``."""
    return {
        # --- seats and whose turn
        "opened": _("ausgelegt"),
        "not_opened": _("noch nicht ausgelegt"),
        "hint_discard_romme": _("Melden, anlegen – zum Schluss eine Karte auf den Ablagestapel."),
        # --- numbers and melds
        "augen": _("Augen auf der Hand"),
        "augen_short": _("Augen"),
        "opening_total": _("Neue Meldungen"),
        "opening_short": _("Meldungen"),
        "best_opening": _("Beste Auslage auf der Hand"),
        "best_short": _("Beste"),
        "you_opened": _("Du hast ausgelegt"),
        "melds_on_table": _("Meldungen auf dem Tisch"),
        "no_melds": _("Noch liegt nichts auf dem Tisch."),
        "meld_label": _("Meldung {n}: {cards}"),
        "meld_target": _("Meldung {n}: {cards} – hier anlegen"),
        "your_new_melds": _("Deine neuen Meldungen"),
        "meld_checking": _("wird geprüft …"),
        "meld_invalid": _("keine gültige Meldung"),
        # --- the buttons
        "stage_meld": _("Als Meldung vormerken"),
        "lay_out": _forms(
            ngettext("Auslegen ({n} Punkt)", "Auslegen ({n} Punkte)", 1),
            ngettext("Auslegen ({n} Punkt)", "Auslegen ({n} Punkte)", 2),
        ),
        "unstage": _("Zurücknehmen"),
        "unstage_one": _("{cards} – antippen nimmt die Meldung zurück"),
        "use_suggestion": _("Vorschlag übernehmen"),
        "lay_off_at": _("{card} an Meldung {n} anlegen"),
        "lay_off_low": _("{card} unten an Meldung {n} anlegen"),
        "lay_off_high": _("{card} oben an Meldung {n} anlegen"),
        "swap_joker": _("{card} gegen den Joker in Meldung {n} tauschen"),
        "swap_joker_lay": _("{card} gegen den Joker in Meldung {n} tauschen und auslegen: {melds}"),
        "swap_take": _("{card} gegen den Joker in Meldung {n} tauschen und mit ihm selbst melden"),
        "swap_token": _("Joker aus Meldung {n} (dafür kommt {card} hinein)."),
        "swap_place_joker": _("Wähle ihn mit Karten deiner Hand als neue Meldung."),
        "swap_lay_out": _forms(
            ngettext("Tauschen und auslegen ({n} Punkt)", "Tauschen und auslegen ({n} Punkte)", 1),
            ngettext("Tauschen und auslegen ({n} Punkt)", "Tauschen und auslegen ({n} Punkte)", 2),
        ),
        "swap_cancel": _("Tausch abbrechen"),
        "layoff_staged": _("{card} an Meldung {n}: wird mit der Auslage angelegt (antippen nimmt es zurück)"),
        "layoff_staged_low": _("{card} unten an Meldung {n}: wird mit der Auslage angelegt (antippen nimmt es zurück)"),
        "layoff_staged_high": _("{card} oben an Meldung {n}: wird mit der Auslage angelegt (antippen nimmt es zurück)"),
        "layoff_item": _("{card} an Meldung {n}"),
        "cannot_lay_off_here": _("{card} passt nicht an Meldung {n}."),
        # --- the Tipp: the expert's move for this seat (a `hint` frame), in words
        "tip": _("Tipp"),
        "tip_title": _("Was würde der Experte jetzt tun? (nur im eigenen Zug, nicht im Turnier)"),
        "tip_draw_stock": _("Tipp: vom Stapel ziehen."),
        "tip_take_pile": _("Tipp: die offene Karte {card} nehmen."),
        "tip_lay": _("Tipp: auslegen – {melds}."),
        "tip_lay_offs": _("Tipp: auslegen – {melds}; dazu anlegen: {layoffs}."),
        "tip_lay_off": _("Tipp: {card} an Meldung {n} anlegen."),
        "tip_swap": _("Tipp: {card} gegen den Joker in Meldung {n} tauschen."),
        "tip_swap_lay": _("Tipp: {card} gegen den Joker in Meldung {n} tauschen und auslegen – {melds}."),
        "tip_discard": _("Tipp: {card} abwerfen."),
        # --- what the others did
        "mv_lay_out": _forms(
            ngettext("legt {n} Meldung aus", "legt {n} Meldungen aus", 1),
            ngettext("legt {n} Meldung aus", "legt {n} Meldungen aus", 2),
        ),
        "mv_lay_off": _("legt {card} an"),
        "mv_swap": _("tauscht {card} gegen einen Joker"),
        # --- the score sheet (casual: Minuspunkte; Masters: Wertungspunkte, Augen, the list's result)
        "wp": _("Wertungspunkte"),
        "wp_short": _("WP"),
        "augen_total": _("Augen"),
        "result": _("Ergebnis"),
        "result_short": _("Erg."),
        "minus": _("Minuspunkte"),
        # --- the end of a round
        "result_romme": _("Rommé"),
        "result_hand_romme": _("Hand-Rommé"),
        "layoffs": _("angelegt"),
        "in_hand": _("auf der Hand"),
        "augen_n": _forms(ngettext("{n} Auge", "{n} Augen", 1), ngettext("{n} Auge", "{n} Augen", 2)),
        "wp_n": _forms(
            ngettext("{n} Wertungspunkt", "{n} Wertungspunkte", 1), ngettext("{n} Wertungspunkt", "{n} Wertungspunkte", 2)
        ),
        "minus_n": _forms(ngettext("{n} Minuspunkt", "{n} Minuspunkte", 1), ngettext("{n} Minuspunkt", "{n} Minuspunkte", 2)),
    }


def replay_words() -> dict[str, str]:
    """The words of ``romme/replay.js``."""
    return {
        "lay": _("{name} legt aus: {melds}"),
        "lay_off": _("{name} legt {card} an Meldung {meld} an"),
        "swap": _("{name} tauscht {card} gegen den Joker aus Meldung {meld}"),
        "opened": _("ausgelegt"),
        "melds_table": _("Meldungen auf dem Tisch"),
        "no_melds": _("Noch keine Meldungen."),
        "owner": _("von {name}"),
        "result_romme": _("Rommé"),
        "result_hand_romme": _("Hand-Rommé"),
    }
