"""Game records (spec/records.md): reading them and replaying them with the right game's engine into the
facts of the match (the game's ``points.summary`` turns those into the summary ``manage.py replay`` prints).

>>> replay_record({"game": "chess", "rounds": []})
Traceback (most recent call last):
...
games.engine.errors.InvalidRecord: unknown game 'chess' (known: gin, romme)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from games.engine.errors import InvalidRecord
from games.engine.gin import replay as gin_replay
from games.engine.romme import replay as romme_replay

#: Each game's replay, by name: a record in, the facts of its match out. The engine's own games; a site that
#: adds a game adds its replay here (``games.registry.register``), so records of it are read the same way.
REPLAYS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {"gin": gin_replay.replay, "romme": romme_replay.replay}


def load_record(text: str | bytes) -> dict[str, Any]:
    """Parse a record's JSON text; InvalidRecord says where the JSON is broken."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidRecord(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except UnicodeDecodeError:
        raise InvalidRecord("not valid JSON: the file is not UTF-8 text") from None
    if not isinstance(data, dict):
        raise InvalidRecord(f"a record is a JSON object, not a {type(data).__name__}")
    return data


def check_envelope(record: object) -> dict[str, Any]:
    """The parts every game's record shares: ``game``, ``options``, ``players``, ``rounds``."""
    if not isinstance(record, dict):
        raise InvalidRecord("a record is a JSON object")
    game = record.get("game")
    if not isinstance(game, str) or game not in REPLAYS:
        raise InvalidRecord(f"unknown game {game!r} (known: {', '.join(REPLAYS)})")
    if "options" in record and not isinstance(record["options"], dict):
        raise InvalidRecord("options must be an object")
    if "players" in record and not isinstance(record["players"], list):
        raise InvalidRecord("players must be a list")
    if not isinstance(record.get("rounds"), list):
        raise InvalidRecord("a record needs a list of rounds")
    return record


def replay_record(record: dict[str, Any]) -> dict[str, Any]:
    """Replay any record with its game's engine and return the facts of the match (``Match.facts()``: rounds,
    totals, who left, over, ...); InvalidRecord when it is illegal."""
    check_envelope(record)
    return REPLAYS[record["game"]](record)
