"""The one registry from a game's name to its engine (the match interface of docs/engine.md) and its bots,
and the live layer's way to see a match with points, so nothing else in the live layer branches on which
game a table plays. Facts come from the engine; ``games.outcomes`` turns them into points."""

from __future__ import annotations

import random
from types import ModuleType

from games import outcomes
from games.engine.gin import bots as gin_bots
from games.engine.gin import match as gin_match
from games.engine.interface import MatchEngine, MatchState
from games.engine.romme import bots as romme_bots
from games.engine.romme import match as romme_match

#: Each game's match module: both satisfy ``games.engine.interface.MatchEngine`` (a test holds them to it).
ENGINES: dict[str, MatchEngine] = {"gin": gin_match, "romme": romme_match}
#: Each game's computer players: ``choose_action(view, level, rng)``.
BOTS: dict[str, ModuleType] = {"gin": gin_bots, "romme": romme_bots}
GAMES = tuple(ENGINES)

#: Seats a table of each game may have, and the count when the options do not say.
SEAT_RANGE = {"gin": (2, 2), "romme": (2, 6)}
DEFAULT_SEATS = {"gin": 2, "romme": 4}


def engine(game: str) -> MatchEngine:
    """The match module of ``game``; KeyError for a game there is none of."""
    return ENGINES[game]


def bots(game: str) -> ModuleType:
    """The bots module of ``game``: ``choose_action(view, level, rng)``."""
    return BOTS[game]


def bot_action(game: str, state: MatchState, seat: int, level: str, rng: random.Random) -> dict:
    """The action the computer player of ``seat`` chooses, seeing only its own view (docs/engine.md)."""
    return BOTS[game].choose_action(ENGINES[game].view(state, seat), level, rng)


def view(game: str, state: MatchState, seat: int | None) -> dict:
    """What ``seat`` may see (None: a spectator), with the points in it: ``scores`` the score sheet so far,
    ``result`` the match's result once it is over (else None), a Rommé ``last_round`` with its Wertungspunkte.
    What state frames carry (``games.presenters``)."""
    return outcomes.view_with_points(ENGINES[game].view(state, seat))


def outcome(game: str, state: MatchState) -> dict | None:
    """The result of a finished match (``Match.result``; ``final``, ``winner``, ``places``, ...), or None while
    it runs: the facts of ``state`` turned into points by ``games.outcomes``."""
    if not state.over:
        return None
    return outcomes.outcome(state.facts())


def masters_scoring(game: str, options: dict) -> bool:
    """Whether a table with these options (as stored: the old ``tournament`` flag counts too) is scored by the
    Rommé Masters rules (Wertungspunkte) rather than casually."""
    return game == "romme" and romme_match.scoring_mode(options) == "masters"


def chat_allowed(game: str, options: dict) -> bool:
    """Whether a table with these options has chat: not at a Masters (tournament) table, as romme.md says."""
    return not masters_scoring(game, options)
