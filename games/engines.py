"""A thin façade over ``games.registry`` for the live layer's most common questions: a game's engine and
bots, a view with its points, a finished match's outcome. Each function asks the game's registry entry."""

from __future__ import annotations

import random
from typing import Any

from games import registry
from games.engine.interface import MatchEngine, MatchState

#: Each game's match module, by name (the registry keeps it in step with its entries).
ENGINES: dict[str, MatchEngine] = registry.ENGINES


def engine(game: str) -> MatchEngine:
    """The match module of ``game``; KeyError (``registry.UnknownGame``) for a game there is none of."""
    return registry.get(game).engine


def bots(game: str) -> Any:
    """The computer players of ``game``: ``choose_action(view, level, rng)``."""
    return registry.get(game).bots


def bot_action(game: str, state: MatchState, seat: int, level: str, rng: random.Random) -> dict:
    """The action the computer player of ``seat`` chooses, seeing only its own view (docs/engine.md)."""
    return registry.get(game).bot_action(state, seat, level, rng)


def view(game: str, state: MatchState, seat: int | None, *, points: dict | None = None) -> dict:
    """What ``seat`` may see (None: a spectator), with the points in it: ``scores`` the score sheet so far,
    ``result`` the match's result once it is over (else None), a Rommé ``last_round`` with its Wertungspunkte.
    ``points``: the state's points (``registry.get(game).points(state)``), computed once for every audience."""
    return registry.get(game).view(state, seat, points=points)


def outcome(game: str, state: MatchState) -> dict | None:
    """The result of a finished match (``Match.result``; ``final``, ``winner``, ``places``, ...), or None while
    it runs: the facts of ``state`` turned into points by the game's entry."""
    if not state.over:
        return None
    return registry.get(game).outcome(state.facts())


def masters_scoring(game: str, options: dict) -> bool:
    """Whether a table with these options (as stored: the old ``tournament`` flag counts too) is scored by the
    Rommé Masters rules (Wertungspunkte) rather than casually: tournament play."""
    return registry.get(game).masters_scoring(options)


def chat_allowed(game: str, options: dict) -> bool:
    """Whether a table with these options has chat: not at a Masters (tournament) table, as romme.md says."""
    return not masters_scoring(game, options)
