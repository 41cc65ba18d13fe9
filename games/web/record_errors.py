"""A pasted record's problem in the page's language: the engine names it in English (it has no Django and no
catalogue), this sorts its reason into a few kinds a player can act on and says where it is (round, move)."""

from __future__ import annotations

import re

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engine.errors import InvalidRecord

_SHAPE = gettext_lazy("es hat nicht die Form eines Spielprotokolls")
_MOVE = gettext_lazy("der Zug ist nach den Regeln nicht erlaubt")

# The engine's reasons (games/engine/records.py and each game's replay.py), most specific first.
_KINDS = (
    (re.compile(r"^not valid JSON"), gettext_lazy("es ist kein gültiges JSON")),
    (re.compile(r"unknown game|^not a \w+ record"), gettext_lazy("es ist ein Protokoll eines Spiels, das diese Seite nicht kennt")),
    (re.compile(r"options"), gettext_lazy("die Spieleinstellungen sind ungültig")),
    (re.compile(r"^missing field|has no '|is a JSON object|an object|must be a list|needs a list|must list|must name"),
     _SHAPE),
    (re.compile(r"incomplete|not complete"), gettext_lazy("eine Runde ist nicht zu Ende gespielt")),
    (re.compile(r"after .* (over|ended)|already over"), gettext_lazy("es geht weiter, nachdem die Partie zu Ende war")),
    (re.compile(r"dealer|must deal"), gettext_lazy("der Geber stimmt nicht")),
    (re.compile(r"hand|stock|deal is not|card code|upcard"), gettext_lazy("die Mischung ist keine vollständige, gültige Mischung")),
)


def record_problem(exc: InvalidRecord) -> str:
    """``Dieses Protokoll lässt sich nicht abspielen: Runde 1, Zug 2: der Zug ist … nicht erlaubt.``"""
    kind = next((str(words) for pattern, words in _KINDS if pattern.search(exc.reason)), None)
    if kind is None:
        kind = str(_MOVE if exc.move_index is not None else _SHAPE)
    where = []
    if exc.round_number is not None:
        where.append(_("Runde %(n)d") % {"n": exc.round_number})
    if exc.move_index is not None:
        where.append(_("Zug %(n)d") % {"n": exc.move_index + 1})  # the engine counts from 0, people from 1
    if where:
        kind = f"{', '.join(where)}: {kind}"
    return _("Dieses Protokoll lässt sich nicht abspielen: %(reason)s.") % {"reason": kind}
