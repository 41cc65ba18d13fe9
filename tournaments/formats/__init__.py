"""The tournament formats, one class each, in one registry: ``formats.get(name)`` gives the class,
``formats.of(tournament)`` the format bound to a tournament, ``formats.register(cls)`` adds one (a test
registers its own and ``unregister``\\ s it). The services, selectors and views ask the format."""

from __future__ import annotations

from typing import TypeVar

from tournaments.formats.base import PairedFormat, TournamentFormat
from tournaments.formats.knockout import KnockoutFormat
from tournaments.formats.round_robin import RoundRobinFormat
from tournaments.formats.series import SeriesFormat
from tournaments.formats.swiss import SwissFormat
from tournaments.models import Tournament

__all__ = ["KnockoutFormat", "PairedFormat", "RoundRobinFormat", "SeriesFormat", "SwissFormat", "TournamentFormat",
           "classes", "games", "get", "label_of", "names", "of", "of_kind", "register", "unregister"]

F = TypeVar("F", bound=type[TournamentFormat])

_REGISTRY: dict[str, type[TournamentFormat]] = {}


def register(cls: F) -> F:
    """Add a format class under its ``name`` (usable as a class decorator). A name belongs to one class and
    fits ``Tournament.format``."""
    longest = Tournament._meta.get_field("format").max_length or 0
    if not cls.name or len(cls.name) > longest:
        raise ValueError(f"a tournament format's name has 1 to {longest} characters, not {cls.name!r}")
    existing = _REGISTRY.get(cls.name)
    if existing is not None and existing is not cls:
        raise ValueError(f"a tournament format named {cls.name!r} is registered already ({existing.__name__})")
    _REGISTRY[cls.name] = cls
    return cls


def unregister(name: str) -> None:
    """Take a format out of the registry (tests that registered their own)."""
    _REGISTRY.pop(name, None)


def get(name: str) -> type[TournamentFormat]:
    """The format class registered as ``name``; KeyError if there is none."""
    return _REGISTRY[name]


def of(tournament: Tournament) -> TournamentFormat:
    """The format of ``tournament``, bound to it."""
    return get(tournament.format)(tournament)


def names(game: str | None = None) -> tuple[str, ...]:
    """The registered formats' names (of one game), in the order they were registered."""
    return tuple(name for name, cls in _REGISTRY.items() if game is None or cls.game == game)


def classes() -> tuple[type[TournamentFormat], ...]:
    """The registered format classes, in the order they were registered (the create form's order)."""
    return tuple(_REGISTRY.values())


def of_kind(kind: object) -> type[TournamentFormat] | None:
    """The format whose create-form value (``game:format``, "gin:swiss") is ``kind``; None for anything else."""
    return next((cls for cls in _REGISTRY.values() if cls.kind() == kind), None)


def label_of(name: str) -> str:
    """What pages call the format named ``name`` (translated); the bare name of one no longer registered."""
    cls = _REGISTRY.get(name)
    return str(cls.label) if cls is not None else name


def games() -> tuple[str, ...]:
    """The games some registered format plays."""
    return tuple(dict.fromkeys(cls.game for cls in _REGISTRY.values()))


for _format in (SeriesFormat, SwissFormat, KnockoutFormat, RoundRobinFormat):
    register(_format)
