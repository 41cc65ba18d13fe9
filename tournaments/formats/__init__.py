"""The tournament formats, one class each, in one registry: ``formats.get(name, game)`` gives the class,
``formats.of(tournament)`` the format bound to a tournament, ``formats.register(cls)`` adds one (a test
registers its own and ``unregister``\\ s it). The services, selectors and views ask the format.

A format is registered per game under its kind (``game:name``): the arena is one class, registered for each
game it is played in (:meth:`ArenaFormat.of_game`), under the same name."""

from __future__ import annotations

from typing import TypeVar

from tournaments.formats.arena import ArenaFormat
from tournaments.formats.base import PairedFormat, TournamentFormat
from tournaments.formats.knockout import KnockoutFormat
from tournaments.formats.round_robin import RoundRobinFormat
from tournaments.formats.series import SeriesFormat
from tournaments.formats.swiss import SwissFormat
from tournaments.models import Tournament

__all__ = ["ArenaFormat", "KnockoutFormat", "PairedFormat", "RoundRobinFormat", "SeriesFormat", "SwissFormat", "TournamentFormat",
           "classes", "continuous_kinds", "games", "get", "label_of", "names", "of", "of_kind", "register", "unregister"]

F = TypeVar("F", bound=type[TournamentFormat])

_REGISTRY: dict[str, type[TournamentFormat]] = {}


def register(cls: F) -> F:
    """Add a format class under its kind (``game:name``; usable as a class decorator). A kind belongs to one
    class, and the name fits ``Tournament.format``."""
    longest = Tournament._meta.get_field("format").max_length or 0
    if not cls.name or len(cls.name) > longest:
        raise ValueError(f"a tournament format's name has 1 to {longest} characters, not {cls.name!r}")
    existing = _REGISTRY.get(cls.kind())
    if existing is not None and existing is not cls:
        raise ValueError(f"a tournament format named {cls.name!r} is registered already ({existing.__name__})")
    _REGISTRY[cls.kind()] = cls
    return cls


def unregister(name: str, game: str | None = None) -> None:
    """Take a format out of the registry (tests that registered their own): of ``game``, or of every game."""
    for kind, cls in list(_REGISTRY.items()):
        if cls.name == name and game in (None, cls.game):
            del _REGISTRY[kind]


def get(name: str, game: str | None = None) -> type[TournamentFormat]:
    """The format class registered as ``name`` (for ``game``: a name several games share needs it);
    KeyError if there is none, or ``game`` is not given and several games have the name."""
    if game is not None:
        return _REGISTRY[f"{game}:{name}"]
    found = [cls for cls in _REGISTRY.values() if cls.name == name]
    if len(found) != 1:
        raise KeyError(name)
    return found[0]


def of(tournament: Tournament) -> TournamentFormat:
    """The format of ``tournament``, bound to it."""
    return get(tournament.format, tournament.game)(tournament)


def names(game: str | None = None) -> tuple[str, ...]:
    """The registered formats' names (of one game), in the order they were registered."""
    return tuple(dict.fromkeys(cls.name for cls in _REGISTRY.values() if game is None or cls.game == game))


def continuous_kinds() -> tuple[tuple[str, str], ...]:
    """(game, name) of every format that pairs on the referee's clock instead of in stages (the arena)."""
    return tuple((cls.game, cls.name) for cls in _REGISTRY.values() if cls.continuous)


def classes() -> tuple[type[TournamentFormat], ...]:
    """The registered format classes, in the order they were registered (the create form's order)."""
    return tuple(_REGISTRY.values())


def of_kind(kind: object) -> type[TournamentFormat] | None:
    """The format whose create-form value (``game:format``, "gin:swiss") is ``kind``; None for anything else."""
    return next((cls for cls in _REGISTRY.values() if cls.kind() == kind), None)


def label_of(name: str) -> str:
    """What pages call the format named ``name`` (translated); the bare name of one no longer registered."""
    cls = next((cls for cls in _REGISTRY.values() if cls.name == name), None)
    return str(cls.label) if cls is not None else name


def games() -> tuple[str, ...]:
    """The games some registered format plays."""
    return tuple(dict.fromkeys(cls.game for cls in _REGISTRY.values()))


for _format in (SeriesFormat, SwissFormat, KnockoutFormat, RoundRobinFormat):
    register(_format)
# The arena for each game, with the game's short table options (spec/tournaments.md "Arena").
register(ArenaFormat.of_game("gin", table_defaults={"target": 50}, min_players=2))
register(ArenaFormat.of_game("romme", table_defaults={"rounds": 4}, min_players=3))
