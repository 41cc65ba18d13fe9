"""Names that cannot be told apart: a user name or display name may not look like another player's name, nor
like a label the site itself shows in place of a person ("Gelöschter Spieler", "Computer 2 (Einfach)").

Two names look alike when their **skeletons** are equal: NFKC, then every character replaced by one
representative of the characters Unicode lists as confusable with it (``confusable_homoglyphs``' table, made
from Unicode's confusables.txt: Cyrillic а and Latin a, l and I and 1, O and 0), case folded, spaces,
dots, hyphens and underscores dropped.

>>> skeleton("аlice") == skeleton("alice") == skeleton("AIice")
True
>>> skeleton("Anna") == skeleton("Hanna")
False
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from confusable_homoglyphs import confusables
from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _

#: Labels the site shows in place of a person, in every language it speaks: a name may not look like one.
RESERVED_LABELS = ("Gelöschter Spieler", "Deleted player", "Computer", "Platz", "Seat")
#: Labels that begin a computer player's or an empty seat's name ("Computer 2 (Einfach)", "Platz 1"): no
#: name may be one of them followed by a number or a bracket.
RESERVED_PREFIXES = ("Computer", "Platz", "Seat")
_DROPPED = " .-_\u00a0"


@lru_cache(maxsize=1)
def _representatives() -> dict[str, str]:
    """Each character of a confusable class mapped to the class's smallest member (union-find over the pairs
    of single characters the table lists)."""
    parent: dict[str, str] = {}

    def find(c: str) -> str:
        root = c
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(c, c) != root:
            parent[c], c = root, parent[c]
        return root

    for char, entries in confusables.confusables_data.items():
        if len(char) != 1:
            continue
        for entry in entries:
            other = entry["c"].strip("\u200e\u200f")
            if len(other) != 1:
                continue
            a, b = find(char), find(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    return {c: find(c) for c in parent}


def skeleton(name: str) -> str:
    """What ``name`` looks like: equal skeletons are names a reader cannot tell apart."""
    reps = _representatives()
    text = unicodedata.normalize("NFKC", name)
    for _round in range(2):  # folding case can bring out a new confusable (I → i), so map twice
        text = "".join(reps.get(c, c) for c in text).casefold()
    return "".join(c for c in text if c not in _DROPPED and unicodedata.category(c) not in ("Mn", "Cf"))


def name_refusal(name: str, *, user_id: int | None) -> str | None:
    """Why ``name`` may not be the user name or display name of the account ``user_id`` (None: a new one),
    or None when it may: it looks like a label of the site, or like another account's name."""
    mark = skeleton(name)
    for label in RESERVED_LABELS:
        if mark == skeleton(label):
            return _("Dieser Name ist der Seite vorbehalten: er sieht aus wie „%(label)s“.") % {"label": label}
    numbered = {skeleton(c)[:1] for c in "0123456789(["}
    for prefix in RESERVED_PREFIXES:
        rest = mark[len(skeleton(prefix)):] if mark.startswith(skeleton(prefix)) else None
        if rest is not None and rest[:1] in numbered:  # "Computer 2 Einfach", "Platz 1"; not "Platzhirsch"
            return _("Ein Name darf nicht mit „%(label)s“ beginnen: so nennt die Seite ihre Plätze und "
                     "Computerspieler.") % {"label": prefix}
    others = get_user_model().objects.all()
    if user_id is not None:
        others = others.exclude(pk=user_id)
    for username, display_name in others.values_list("username", "profile__display_name").iterator():
        for other in (username, display_name):
            if other and skeleton(other) == mark:
                return _("Dieser Name ist dem Namen eines anderen Spielers zum Verwechseln ähnlich "
                         "(„%(other)s“). Bitte wähle einen anderen.") % {"other": other}
    return None
