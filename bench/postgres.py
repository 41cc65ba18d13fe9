"""What the benchmarks that measure PostgreSQL share: their command line, Django set up, and the refusal to
measure any other database."""

from __future__ import annotations

import argparse
import os


def parser(module: str, doc: str) -> argparse.ArgumentParser:
    """The command line of ``python -m <module>``, described by the first paragraph of its ``doc``."""
    return argparse.ArgumentParser(prog=f"python -m {module}", description=doc.split("\n\n")[0])


def setup(parser: argparse.ArgumentParser, *, measures: str) -> argparse.Namespace:
    """Parse the command line (``--help`` needs no database), set Django up, and stop with a message unless
    the database is PostgreSQL: ``measures`` says what the bench would measure there."""
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")
    import django

    django.setup()
    from django.db import connection

    if connection.vendor != "postgresql":
        raise SystemExit(f"{parser.prog} measures {measures}, and the database is {connection.vendor}: "
                         "set DATABASE_URL to a migrated PostgreSQL database (see --help)")
    return args
