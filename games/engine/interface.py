"""The match interface both games offer (docs/engine.md), declared once so a test can hold both engines to it.

``games.engine.gin.match`` and ``games.engine.romme.match`` are modules that satisfy :class:`MatchEngine`;
the states they return satisfy :class:`MatchState`. The live layer finds them through the game's registry
entry (``games.registry.get(game).engine``) and never branches on which game a table plays.

Randomness is always passed in: every function that may shuffle takes ``rng`` (a ``random.Random``; the site
passes ``secrets.SystemRandom()``). Implementations that never shuffle there (gin during play) may let it
default to None and ignore it; none falls back to a generator of its own.

>>> from games.engine.gin import match as gin
>>> from games.engine.romme import match as romme
>>> isinstance(gin, MatchEngine) and isinstance(romme, MatchEngine)
True
"""

from __future__ import annotations

import random
from typing import Any, Protocol, runtime_checkable

JSON = dict[str, Any]


@runtime_checkable
class MatchState(Protocol):
    """A match (gin) or a list (Rommé): a value the engine functions take and return, never changed by them."""

    @property
    def to_act(self) -> int | None:
        """The seat that must act now, or None (round over, match over)."""

    @property
    def phase(self) -> str:
        """A short name of the state: ``draw``, ``discard``, ``round_over``, ``match_over``, gin ``first_turn``."""

    @property
    def round_number(self) -> int:
        """1-based."""

    @property
    def dealer(self) -> int:
        """The seat that dealt the round in play."""

    @property
    def over(self) -> bool:
        """True once the match (gin) or the list (Rommé) is finished."""

    def to_json(self) -> JSON:
        """The whole state, hidden cards too: for the database only, never for a client."""

    @classmethod
    def from_json(cls, data: JSON) -> MatchState:
        """The state ``to_json`` wrote, also as stored by earlier versions of the engine."""

    def record(self) -> JSON:
        """The records.md record of every completed round."""

    def current_deal(self) -> JSON:
        """``{"dealer", "hands", "upcard", "stock"}`` of the round in play, to hash it when it starts."""

    def facts(self) -> JSON:
        """What happened so far (rounds, totals, rounds won, who left, over): no points beyond the rules' own.
        Each game's points (``games.kinds.<game>.points``) turn these into results, score sheets and replay summaries."""


@runtime_checkable
class MatchEngine(Protocol):
    """One game's match module."""

    # The state type is Any: each engine takes and returns its own ``Match`` class (which satisfies
    # MatchState), and a protocol parameter typed MatchState would demand that every engine accept any state.
    # Parameter types are the narrowest both engines accept (gin's ``seats`` is an int, its ``options`` a
    # dict, its ``players`` a list), so a caller typed against the protocol can call either engine.

    GAME: str
    Match: type[Any]

    def normalize_options(self, options: JSON | None, *, seats: int = ...) -> JSON:
        """Fill in defaults and validate the table options; ValueError says what is wrong."""

    def new_match(self, options: JSON, *, seats: int = ..., rng: random.Random,
                  players: list[str] | None = None) -> Any:
        """A match with round 1 dealt with ``rng`` (the first dealer is drawn with it too)."""

    def legal_actions(self, m: Any) -> list[JSON]:
        """The action dicts the seat to act may send now (empty when nobody is to act)."""

    def apply_action(self, m: Any, seat: int, action: JSON, *, rng: random.Random) -> Any:
        """A new state after ``seat`` plays ``action`` (``m`` unchanged); IllegalAction says why not.
        ``rng``: Rommé reshuffles the discard pile into a new stock with it when the stock is empty."""

    def timeout_actions(self, m: Any) -> list[JSON]:
        """The action dicts the server plays, in order, when the turn time runs out."""

    def deal_next_round(self, m: Any, rng: random.Random) -> Any:
        """Deal the next round with ``rng`` (only when ``m.phase == "round_over"`` and not ``m.over``)."""

    def resign(self, m: Any, seat: int, *, rng: random.Random | None = None) -> Any:
        """``seat`` leaves (resigns, or timed out three times). ``rng``: the turn the server then plays for a
        Rommé leaver may have to reshuffle; without one such a resign is refused (IllegalAction)."""

    def view(self, m: Any, seat: int | None) -> JSON:
        """What ``seat`` may see (None: a spectator), JSON-ready. ``scores`` holds the facts, ``result`` is
        None: the game's entry (``GameEntry.view``) gives the view with both turned into points."""
