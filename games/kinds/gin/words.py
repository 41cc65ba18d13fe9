"""Gin Rommé's own words in the browser: the table page's (the Restpunkte meter, Klopfen / Gin! / Big Gin, the
score sheet's boxes and bonuses, how a round ended) and the replay viewer's, in the request's language. The
shells' words (``games.templatetags.table_i18n``, ``games.web.match_views``) stand beside them."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.kinds.gin import glossary as g


def _forms(one: str, other: str) -> dict[str, str]:
    return {"one": one, "other": other}


def table_words() -> dict[str, Any]:
    """The words of ``gin/table.js``."""
    return {
        # --- the Restpunkte meter
        "deadwood": str(g.DEADWOOD),
        "deadwood_after": _("Restpunkte nach bestem Abwurf"),
        "gin_possible": _("Gin möglich!"),
        "knock_possible": _("Klopfen möglich"),
        "knock_limit": _forms(
            ngettext("Klopfen bei höchstens {n} Restpunkt", "Klopfen bei höchstens {n} Restpunkten", 1),
            ngettext("Klopfen bei höchstens {n} Restpunkt", "Klopfen bei höchstens {n} Restpunkten", 2),
        ),
        "gin_only": _("Nur Gin beendet die Runde"),
        "tip_text": _forms(
            ngettext("Tipp: {card} abwerfen – dann bleibt {n} Restpunkt.", "Tipp: {card} abwerfen – dann bleiben {n} Restpunkte.", 1),
            ngettext("Tipp: {card} abwerfen – dann bleibt {n} Restpunkt.", "Tipp: {card} abwerfen – dann bleiben {n} Restpunkte.", 2),
        ),
        "tip_knock": _("Tipp: klopfen und {card} abwerfen."),
        "tip_gin": _("Tipp: Gin! {card} abwerfen."),
        "tip_big_gin": _("Tipp: Big Gin!"),
        "tip_draw_stock": _("Tipp: vom Stapel ziehen."),
        "tip_take_pile": _("Tipp: die offene Karte {card} nehmen."),
        # --- the buttons
        "knock": str(g.KNOCK),
        "knock_with": _forms(
            ngettext("Klopfen mit {card} ({n} Restpunkt)", "Klopfen mit {card} ({n} Restpunkte)", 1),
            ngettext("Klopfen mit {card} ({n} Restpunkt)", "Klopfen mit {card} ({n} Restpunkte)", 2),
        ),
        "gin": _("Gin!"),
        "gin_with": _("Gin! ({card} abwerfen)"),
        "big_gin": _("Big Gin!"),
        "tip": _("Tipp"),
        # --- what the others did
        "mv_knock": _("klopft und wirft {card} ab"),
        "mv_gin": _("macht Gin und wirft {card} ab"),
        "mv_big_gin": _("macht Big Gin"),
        # --- the score sheet
        "boxes": _("Gewonnene Runden"),
        "bonuses": _("Boni"),
        "column_n": _("Spalte {n}"),
        # --- the end of a round
        "dead_round": _("Tote Runde – niemand punktet, derselbe Geber gibt neu."),
        "round_winner": _forms(
            ngettext("{name} gewinnt die Runde – {what}, {n} Punkt", "{name} gewinnt die Runde – {what}, {n} Punkte", 1),
            ngettext("{name} gewinnt die Runde – {what}, {n} Punkt", "{name} gewinnt die Runde – {what}, {n} Punkte", 2),
        ),
        "result_knock": str(g.KNOCK),
        "result_undercut": str(g.UNDERCUT),
        "result_gin": str(g.GIN),
        "result_big_gin": str(g.BIG_GIN),
        "result_dead": str(g.DEAD_ROUND),
        "knocker": str(g.KNOCKER),
        "layoffs": str(g.LAID_OFF),
        "deadwood_cards": str(g.DEADWOOD),
        "deadwood_n": _forms(ngettext("{n} Restpunkt", "{n} Restpunkte", 1), ngettext("{n} Restpunkt", "{n} Restpunkte", 2)),
    }


def replay_words() -> dict[str, Any]:
    """The words of ``gin/replay.js``."""
    return {
        "knock": _("{name} klopft und wirft {card} ab"),
        "gin": _("{name} macht Gin und wirft {card} ab"),
        "big_gin": _("{name} macht Big Gin"),
        "deadwood": _("Restpunkte: {n}"),
        "round_won": _forms(
            ngettext("{name} gewinnt die Runde: {result}, {n} Punkt.", "{name} gewinnt die Runde: {result}, {n} Punkte.", 1),
            ngettext("{name} gewinnt die Runde: {result}, {n} Punkt.", "{name} gewinnt die Runde: {result}, {n} Punkte.", 2),
        ),
        "result_knock": str(g.KNOCK),
        "result_undercut": str(g.UNDERCUT),
        "result_gin": str(g.GIN),
        "result_big_gin": str(g.BIG_GIN),
    }
