"""Gin Rommé's own terms, once: what the table, the replay, the match page and the profile call each thing.

German club players say "Restpunkte" for the unmatched cards' count (English: deadwood), "klopfen" for ending a
round with few of them (knock), "Gin" / "Big Gin" as in English, and "Unterschnitt" when the other side has as few
or fewer Restpunkte after laying off (undercut)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

DEADWOOD = gettext_lazy("Restpunkte")  # deadwood
KNOCK = gettext_lazy("Klopfen")  # knock (the result and the button)
KNOCKER = gettext_lazy("klopft")  # the seat that knocked (never said of a gin)
GIN = gettext_lazy("Gin")
BIG_GIN = gettext_lazy("Big Gin")
UNDERCUT = gettext_lazy("Unterschnitt")  # undercut
UNDERCUT_BONUS = gettext_lazy("Unterschnitt-Bonus")
DEAD_ROUND = gettext_lazy("tote Runde")
LAID_OFF = gettext_lazy("angelegt")  # laid off on the knocker's melds

#: Variants that must not come back in German text (regular expression → the glossary's term).
BANNED: dict[str, str] = {
    r"\bDeadwood\b": "Restpunkte",
    r"\bUnterbiete?n?\b": "Unterschnitt",
    r"\bUnterschnitte\b": "Unterschnitt",
}
