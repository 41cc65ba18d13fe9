"""``manage.py replay FILE|-``: replay a game record with the engine alone and print its summary (records.md),
the facts of the replay turned into points by the game's registry entry."""

from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from games import registry
from games.engine.errors import InvalidRecord
from games.engine.records import load_record, replay_record


class Command(BaseCommand):
    help = "Replay a gin or Rommé record (a file, or - for standard input) and print its summary as JSON."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the record's JSON file, or - to read standard input")

    def handle(self, *args, **options):
        path = options["file"]
        try:
            if path == "-":
                text = sys.stdin.buffer.read()
            else:
                with open(path, "rb") as handle:
                    text = handle.read()
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from None
        try:
            facts = replay_record(load_record(text))  # an unknown game is an InvalidRecord here
            summary = registry.get(facts["game"]).summary(facts)
        except InvalidRecord as exc:
            raise CommandError(_one_line(f"invalid record: {_where(exc)}")) from None
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            # A record malformed in a way the checks missed must still give one clear line, not a traceback.
            raise CommandError(_one_line(f"invalid record: {type(exc).__name__}: {exc}")) from None
        self.stdout.write(json.dumps(summary, ensure_ascii=False))


def _where(exc: InvalidRecord) -> str:
    """Always name the round and the move, '-' where the fault is not in one."""
    round_part = exc.round_number if exc.round_number is not None else "-"
    move_part = exc.move_index if exc.move_index is not None else "-"
    return f"round {round_part}, move {move_part}: {exc.reason}"


def _one_line(text: str) -> str:
    return " ".join(text.split())
