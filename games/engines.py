"""The one registry from a game's name to its engine (the match interface of docs/engine.md) and its bots,
so nothing else in the live layer branches on which game a table plays."""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType

GAMES = ("gin", "romme")

#: Seats a table of each game may have, and the count when the options do not say.
SEAT_RANGE = {"gin": (2, 2), "romme": (2, 6)}
DEFAULT_SEATS = {"gin": 2, "romme": 4}


@cache
def engine(game: str) -> ModuleType:
    """The match module of ``game`` (``games.engine.<game>.match``). Imported on first use."""
    if game not in GAMES:
        raise KeyError(game)
    return importlib.import_module(f"games.engine.{game}.match")


@cache
def bots(game: str) -> ModuleType:
    """The bots module of ``game``: ``choose_action(view, level, rng)``."""
    if game not in GAMES:
        raise KeyError(game)
    return importlib.import_module(f"games.engine.{game}.bots")


def bot_action(game: str, state, seat: int, level: str, rng) -> dict:
    """The action the computer player of ``seat`` chooses, seeing only its own view (docs/engine.md)."""
    try:
        module = bots(game)
    except ImportError:
        # Until a game ships its bots, a computer player plays what the server plays on a timeout.
        return engine(game).timeout_actions(state)[0]
    return module.choose_action(engine(game).view(state, seat), level, rng)


def outcome(game: str, state) -> dict | None:
    """The result of a finished match (winner, final scores, places, ...), None while it is running."""
    return state.result()
