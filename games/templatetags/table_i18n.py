"""The words of the live table page, translated for the request: the catalogue the table's ES modules read
(``{% table_strings table.game as strings %}{{ strings|json_script:"table-strings" }}``: the shell's words here,
each game's own from its package, ``games/kinds/<game>/words.py`` through its entry) and the games' names.

Texts carry ``{name}`` placeholders that the page fills in. Texts with a number come in both plural forms
(``{"one": ..., "other": ...}``, from ``ngettext``); the page picks one with ``Intl.PluralRules``, which for
German and English knows exactly these two. One word per thing: ``Meldung`` (a meld), ``Stapel`` (stock),
``Ablagestapel`` (discard pile); the games keep theirs (``Restpunkte``, ``Augen``).
"""

from __future__ import annotations

from django import template
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import registry

register = template.Library()

@register.filter
def game_label(game: str) -> str:
    """A game's name in the page's language: "Gin Rommé" / "Gin Rummy", "Rommé" / "Rummy". Views hand either
    its code or its German label (the models' choices) to templates."""
    for entry in registry.entries():
        if str(game) in (entry.name, entry.label):
            # With a context of their own: the names as titles, whatever other pages' running text says.
            return str(entry.title)
    return str(game)


def _forms(one: str, other: str) -> dict[str, str]:
    return {"one": one, "other": other}


@register.simple_tag
def table_strings(game: str | None = None) -> dict:
    """Every text the live table of ``game`` shows, in the request's language: the shell's (below) and the game's
    own (its entry's ``table_words``, which win where a key is in both). Without a game, the shell's alone;
    ``UnknownGame`` for a name no game has."""
    words = _shell_words()
    if game is not None:
        words.update(registry.get(game).table_words())
    return words


def _shell_words() -> dict:
    """The words of the game-free shell (games/static/games/table.js and table/): connection, seats, stock and
    pile, the moves every game shares, the score sheet's frame, the end of a round and of the match."""
    return {
        # --- connection and errors
        "conn_back": _("Wieder verbunden"),
        "conn_reconnecting": _("Verbindung unterbrochen – verbinde neu …"),
        "conn_connecting": _("Verbinde …"),
        "conn_flooded": _("Zu viele Nachrichten: der Server hat die Verbindung getrennt. In 10 Sekunden verbinde ich neu."),
        "conn_crowded": _("Zu viele offene Tische und Tabs: bitte andere schließen. In 10 Sekunden verbinde ich neu."),
        "not_connected": _("Keine Verbindung – nichts wurde gesendet. Sobald die Verbindung wieder steht, bitte noch einmal."),
        "error": _("Das ging nicht."),
        "err_not_your_turn": _("Du bist nicht am Zug."),
        "err_stale_version": _("Der Tisch hat sich inzwischen geändert – bitte noch einmal."),
        "err_illegal_action": _("Dieser Zug ist nach den Regeln nicht erlaubt."),
        "err_chat_rate_limited": _("Bitte langsamer: höchstens 5 Nachrichten in 10 Sekunden."),
        "err_chat_off": _("An Turniertischen ist der Chat aus."),
        "err_chat_too_long": _("Eine Chat-Nachricht hat höchstens 300 Zeichen."),
        "err_not_seated": _("Du sitzt nicht (mehr) an diesem Tisch."),
        "err_seat_left": _("Jemand hat die Partie verlassen; für eine Revanche braucht es alle."),
        "err_turn_over": _("Deine Zeit war abgelaufen; für dich wurde gespielt."),
        # A refused Tipp (docs/protocol.md, `hint`): the German page shows the server's own sentence.
        "err_no_hint": _("An diesem Tisch gibt es keine Tipps (im Turnier nie)."),
        "err_not_playing": _("Hier läuft gerade keine Partie: Tipps gibt es nur im eigenen Zug."),
        "err_busy": _("Der Server hatte gerade zu viel zu tun – bitte noch einmal."),
        # --- the bar, seats and players
        "round_n": _("Runde {n}"),
        "round_n_of": _("Runde {n} von {total}"),
        "ranked": _("gewertet"),
        "seats_free": _forms(
            ngettext("Noch {n} Platz frei", "Noch {n} Plätze frei", 1),
            ngettext("Noch {n} Platz frei", "Noch {n} Plätze frei", 2),
        ),
        "sound_on": _("Töne an"),
        "sound_off": _("Töne aus"),
        "panel_open": _("Punkteliste und Chat zeigen"),
        "panel_close": _("Punkteliste und Chat schließen"),
        "seat_n": _("Platz {n}"),
        "computer_n": _("Comp. {n}"),
        "computer_tiny": _("C{n}"),
        "computer_name": _("Computer {n} ({level})"),
        "computer_plain": _("Computer {n}"),
        "level_simple": _("Anfänger"),
        "level_advanced": _("Fortgeschritten"),
        "level_expert": _("Experte"),
        "left": _("hat verlassen"),
        "offline": _("offline"),
        "cards_in_hand": _forms(
            ngettext("{n} Karte auf der Hand", "{n} Karten auf der Hand", 1),
            ngettext("{n} Karte auf der Hand", "{n} Karten auf der Hand", 2),
        ),
        "timeouts_n": _("{n}× Zeit abgelaufen"),
        "you_are": _("Deine Karten, {name}"),
        # --- stock, pile, whose turn
        "stock_n": _forms(
            ngettext("Stapel: {n} Karte", "Stapel: {n} Karten", 1),
            ngettext("Stapel: {n} Karte", "Stapel: {n} Karten", 2),
        ),
        "draw_stock_n": _forms(
            ngettext("Vom Stapel ziehen (noch {n} Karte)", "Vom Stapel ziehen (noch {n} Karten)", 1),
            ngettext("Vom Stapel ziehen (noch {n} Karte)", "Vom Stapel ziehen (noch {n} Karten)", 2),
        ),
        "empty": _("leer"),
        "pile_top": _forms(
            ngettext("Ablagestapel: oben {card}, {n} Karte", "Ablagestapel: oben {card}, {n} Karten", 1),
            ngettext("Ablagestapel: oben {card}, {n} Karte", "Ablagestapel: oben {card}, {n} Karten", 2),
        ),
        "pile_empty": _("Ablagestapel: leer"),
        "take_pile": _("Offene Karte nehmen"),
        "drop_here": _("Karte hierher ziehen zum Abwerfen"),
        "match_over": _("Partie beendet"),
        "round_over": _("Runde beendet"),
        "turn_of": _("{name} ist am Zug"),
        "your_turn": _("Du bist am Zug"),
        "hint_first_turn": _("Du bist am Zug: die offene Karte nehmen oder passen?"),
        "hint_draw": _("Du bist am Zug: vom Stapel ziehen oder die offene Karte nehmen."),
        "hint_discard": _("Wirf eine Karte ab: auf den Ablagestapel ziehen oder wählen und „Abwerfen“ tippen."),
        # --- action buttons
        "take_upcard": _("{card} nehmen"),
        "pass": _("Passen"),
        "draw_stock": _("Vom Stapel ziehen"),
        "discard": _("Abwerfen"),
        "discard_card": _("{card} abwerfen"),
        "cannot_discard": _("{card} kannst du jetzt nicht abwerfen."),
        # --- the score sheet
        "round": _("Runde"),
        "totals": _("Summe"),
        "final": _("Endstand"),
        "place": _("Platz"),
        "player": _("Spieler"),
        "no_rounds": _("Noch keine Runde beendet."),
        "left_short": _("ausgestiegen"),
        # --- round end and match end
        "round_end_title": _("Ende von Runde {n}"),
        "match_end_title": _("Ende der Partie"),
        "waiting_others": _("Warte auf die anderen …"),
        "next_round": _("Weiter zur nächsten Runde"),
        "round_winner_what": _("{name} gewinnt die Runde – {what}!"),
        "round_no_winner": _("Die Runde endet ohne Sieger ({what})."),
        "result_resign": _("Aufgabe"),
        "result_abandoned": _("abgebrochen"),
        "points_n": _forms(ngettext("{n} Punkt", "{n} Punkte", 1), ngettext("{n} Punkt", "{n} Punkte", 2)),
        "match_winner": _("{name} gewinnt die Partie!"),
        "match_winner_forfeit": _("{name} hat die Partie kampflos gewonnen."),
        "match_draw": _("Die Partie endet unentschieden."),
        "rematch": _("Revanche"),
        "rematch_waiting": _("Revanche angefragt – warte auf die anderen …"),
        # --- what the others did (a turn is "{name} {moves}", the moves joined as a list)
        "turn_line": _("{name} {moves}"),
        "mv_pass": _("passt"),
        "mv_draw": _("zieht vom Stapel"),
        "mv_take": _("nimmt {card} vom Ablagestapel"),
        "mv_discard": _("wirft {card} ab"),
        "mv_resign": _("gibt auf"),
        "timeout_played": _("Zeit abgelaufen – für dich wurde gespielt: {moves}"),
        "match_over_elsewhere": _("Die Partie ist beendet – der letzte Zug kam aus einem anderen Fenster."),
        # --- fairness
        "deal_hash": _("Runde {n}, Prüfsumme der Mischung: {hash}…"),
        "deal_download": _("Mischung von Runde {n} zum Nachprüfen (JSON)"),
    }
