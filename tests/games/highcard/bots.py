"""High card's computer player: it plays its highest card (``level`` makes no difference)."""

from __future__ import annotations

import random

from tests.games.highcard.engine import _strength


def choose_action(view: dict, level: str, rng: random.Random) -> dict:
    return max(view["legal_actions"], key=lambda action: _strength(action["card"]))
