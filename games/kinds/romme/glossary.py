"""Rommé's own terms, once: "Augen" for the cards' count in hand (points in hand), "auslegen" for the first melds
(lay out / open), "Meldung" for a meld, "anlegen" (lay off), Wertungspunkte and Minuspunkte as the score sheets say
them, and the two ways to go out, "Rommé" and "Hand-Rommé"."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

AUGEN = gettext_lazy("Augen")  # points in hand
OPENED = gettext_lazy("ausgelegt")  # has laid out (opened)
MELD = gettext_lazy("Meldung")
WP = gettext_lazy("Wertungspunkte")
MINUS_POINTS = gettext_lazy("Minuspunkte")
ROMME = gettext_lazy("Rommé")
HAND_ROMME = gettext_lazy("Hand-Rommé")
LAID_OFF = gettext_lazy("angelegt")

#: Variants that must not come back in German text (regular expression → the glossary's term).
BANNED: dict[str, str] = {
    r"\bStrafpunkte\b": "Minuspunkte",
    r"\bHandrommé\b": "Hand-Rommé",
}
