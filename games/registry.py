"""The one place that knows which games the site offers: one entry per game (``games.kinds.base.GameEntry``:
engine, bots, seats, presets and table options with their form fields and labels, points, the replay
stepper, and the few questions other apps ask about a finished match). Code above the engine asks an entry;
it never branches on a game's name.

The registry imports no game: each game is an app of its own (``games.kinds.gin``, ``games.kinds.romme``) that
registers its entry when Django is ready, in the order of ``INSTALLED_APPS`` (the order pages list them). A game
added later is one more such app, and a test may register one of its own for as long as it runs:

>>> sorted(names())
['gin', 'romme']
>>> get("gin").seats, get("romme").default_seats
((2, 2), 4)
>>> get("chess")
Traceback (most recent call last):
...
games.registry.UnknownGame: unknown game 'chess' (known: gin, romme)
"""

from __future__ import annotations

from games.engine import records
from games.kinds.base import GameEntry

__all__ = ["GameEntry", "UnknownGame", "entries", "game_choices", "get", "is_game", "names",
           "register", "unregister"]

_ENTRIES: dict[str, GameEntry] = {}


class UnknownGame(KeyError):
    """A game name no entry has. A ``KeyError`` (a lookup that failed), with a message that says so."""

    def __str__(self) -> str:
        return str(self.args[0])


def register(entry: GameEntry) -> GameEntry:
    """Add ``entry`` (its engine's records become readable too); ValueError if its name is taken."""
    if not isinstance(entry, GameEntry):
        raise TypeError(f"a registry entry is a GameEntry, not {type(entry).__name__}")
    if entry.name in _ENTRIES:
        raise ValueError(f"the game {entry.name!r} is registered already")
    if entry.name != entry.engine.GAME:
        raise ValueError(f"the entry {entry.name!r} names the engine of {entry.engine.GAME!r}")
    module = entry.client_module
    if not isinstance(module, str) or not module.endswith(".js") or module.startswith(("/", ".")) or ".." in module:
        raise ValueError(f"the entry {entry.name!r} names no client module (a static path such as "
                         f"'{entry.name}/client.js'), but {module!r}")
    sheet = entry.stylesheet
    if not isinstance(sheet, str) or sheet and (not sheet.endswith(".css") or sheet.startswith(("/", ".")) or ".." in sheet):
        raise ValueError(f"the entry {entry.name!r} names no stylesheet (a static path such as "
                         f"'{entry.name}/{entry.name}.css', or none: ''), but {sheet!r}")
    low, high = entry.seats
    if not 1 <= low <= entry.default_seats <= high:
        raise ValueError(f"the entry {entry.name!r} has {entry.default_seats} default seats outside {low}..{high}")
    _ENTRIES[entry.name] = entry
    records.REPLAYS[entry.name] = entry.replay
    return entry


def unregister(name: str) -> None:
    """Take a game off again (a test's own game, once the test is over); UnknownGame if there is none."""
    get(name)
    del _ENTRIES[name]
    records.REPLAYS.pop(name, None)


def get(name: object) -> GameEntry:
    """The entry of ``name``; ``UnknownGame`` (a KeyError) for a name no game has."""
    entry = _ENTRIES.get(name) if isinstance(name, str) else None
    if entry is None:
        raise UnknownGame(f"unknown game {name!r} (known: {', '.join(_ENTRIES)})")
    return entry


def is_game(name: object) -> bool:
    return isinstance(name, str) and name in _ENTRIES


def entries() -> list[GameEntry]:
    """Every game, in the order pages list them (the site's own first)."""
    return list(_ENTRIES.values())


def names() -> list[str]:
    return list(_ENTRIES)


def game_choices() -> list[tuple[str, str]]:
    """The models' choices for a game field: ``(name, German label)`` of every game registered now. A
    callable, so the fields' migrations do not change when a game is added."""
    return [(entry.name, entry.label) for entry in _ENTRIES.values()]

