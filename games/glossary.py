"""The site's one glossary: the shared words of both games and of tournaments, German (the msgid) with the English
in the ``en`` catalogue. Each game's own terms live in its package (``games/kinds/<game>/glossary.py``); templates,
Python and the table's JavaScript words (the games' ``words.py``) take their term from here, and
``tests/games/test_glossary.py`` scans for the variants listed in ``BANNED``."""

from __future__ import annotations

from django.utils.translation import gettext_lazy, ngettext

#: The one minus sign of displayed numbers (U+2212, as in "−5"); CSV cells keep the ASCII "-" for spreadsheets.
MINUS = "\u2212"

ROUND = gettext_lazy("Runde")
BYE = gettext_lazy("Freilos")
FORFEIT = gettext_lazy("kampflos")
#: A match the loser resigned, in a tournament's round cell ("+13 gegen ben durch Aufgabe").
BY_RESIGNATION = gettext_lazy("durch Aufgabe")
WIN = gettext_lazy("Sieg")
LOSS = gettext_lazy("Niederlage")

#: Variants that must not come back in German text, each with the term that replaces it (a regular expression).
BANNED: dict[str, str] = {
    r"Punkt\(e\)": "ngettext: Punkt / Punkte",
    r"\b1 Minuten\b": "ngettext: Minute / Minuten",
    r"%\(\w+\)d Punkt\(e\)": "ngettext",
    r"automatisch viele": "the computed number of rounds",
}


def signed(n: int) -> str:
    """A displayed difference with its sign: ``+13``, ``−5`` (U+2212), ``0``.

    >>> signed(-5)
    '−5'
    """
    if n > 0:
        return f"+{n}"
    if n < 0:
        return f"{MINUS}{-n}"
    return "0"


def points(n: int) -> str:
    """``1 Punkt`` / ``3 Punkte`` (``1 point`` / ``3 points``)."""
    return ngettext("%(n)d Punkt", "%(n)d Punkte", n) % {"n": n}


def minutes(n: int) -> str:
    """``1 Minute`` / ``5 Minuten``."""
    return ngettext("%(n)d Minute", "%(n)d Minuten", n) % {"n": n}


def rounds(n: int) -> str:
    """``1 Runde`` / ``3 Runden``."""
    return ngettext("%(n)d Runde", "%(n)d Runden", n) % {"n": n}


def series(n: int) -> str:
    """``1 Serie`` / ``2 Serien`` (a Rommé tournament's stage)."""
    return ngettext("%(n)d Serie", "%(n)d Serien", n) % {"n": n}


def number(n: int) -> str:
    """A displayed number with the one minus sign when negative: ``−2``, ``14`` (no plus sign)."""
    return f"{MINUS}{-n}" if n < 0 else str(n)
