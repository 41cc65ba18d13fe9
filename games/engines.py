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
    """The match module of ``game``; KeyError for a game there is none of. (For now wrapped for
    games/services.py: see the transitional block at the end of this module.)"""
    return _SERVICES_ENGINES[game]  # type: ignore[return-value]


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


# --- transitional -------------------------------------------------------------------------------------
# games/services.py (being split into a package by the integrator) still speaks to the engine the old way:
# it asks a finished match's state for ``state.result()``, stores ``engine.view(state, None)["last_round"]``
# as a round's result, and its chat check and "turnier" preset read and write the old ``tournament`` flag.
# Until services call ``outcome``, ``view`` and ``chat_allowed`` here (and the preset says ``scoring``), the
# live layer lends the engines' states ``result()``, and ``engine()`` hands services an engine whose
# ``view`` has the points in it and whose ``normalize_options`` also writes the old flag into a Rommé
# table's options. Delete this block, and let ``engine()`` return ``ENGINES[game]``, with that change.


def _lend_result(game: str):
    def result(state: MatchState) -> dict | None:
        return outcome(game, state)

    result.__doc__ = f"Transitional: engines.outcome({game!r}, state) (see games/engines.py)."
    return result


for _game, _module in ENGINES.items():
    _module.Match.result = _lend_result(_game)  # type: ignore[attr-defined]


class _ServicesEngine:
    """An engine module as games/services.py still expects it (transitional, see above)."""

    def __init__(self, game: str):
        self._game = game
        self._module = ENGINES[game]

    def __getattr__(self, name: str):
        return getattr(self._module, name)

    def view(self, state: MatchState, seat: int | None) -> dict:
        return view(self._game, state, seat)

    def normalize_options(self, options: dict | None, **kwargs) -> dict:
        normalized = self._module.normalize_options(options, **kwargs)
        if self._game == "romme":
            normalized["tournament"] = normalized["scoring"] == "masters"
        return normalized


_SERVICES_ENGINES = {game: _ServicesEngine(game) for game in ENGINES}
