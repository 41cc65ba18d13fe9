"""Settings are declared once, in ginsite/settings.py, and read as ``settings.X``: no module keeps a default
of its own (``getattr(settings, X, default)``), and every setting the site's code reads exists."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

from django.conf import global_settings

import ginsite.settings as site_settings

ROOT = Path(__file__).resolve().parents[2]
#: Folders that are not the site's code (the tests set settings of their own through pytest-django).
NOT_SITE = {".venv", "tests", "staticfiles", "artifacts", "node_modules", ".git"}


def site_modules() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if not NOT_SITE & set(p.relative_to(ROOT).parts))


def reads_of_settings(path: Path) -> list[tuple[str, int, str]]:
    """``(kind, line, name)`` for every ``getattr(settings, ...)`` / ``hasattr(settings, ...)`` and every
    ``settings.NAME`` in one module (``django_settings`` and other names ending in ``settings`` too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
                and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id.endswith("settings")):
            name = node.args[1].value if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) else "?"
            found.append((node.func.id, node.lineno, name))
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id.endswith("settings")
              and node.attr.isupper()):
            found.append(("attribute", node.lineno, node.attr))
    return found


def test_no_setting_is_read_with_a_default_of_its_own():
    defaults = [f"{path.relative_to(ROOT)}:{line} {kind}(settings, {name!r})"
                for path in site_modules() for kind, line, name in reads_of_settings(path) if kind != "attribute"]
    assert defaults == []


def test_every_setting_the_site_reads_is_declared_in_ginsite_settings_or_by_django():
    declared = {name for name in dir(site_settings) if name.isupper()} | {
        name for name in dir(global_settings) if name.isupper()}
    undeclared = sorted(f"{path.relative_to(ROOT)}:{line} settings.{name}"
                        for path in site_modules() for kind, line, name in reads_of_settings(path)
                        if kind == "attribute" and name not in declared)
    assert undeclared == []


def test_the_settings_once_read_with_defaults_are_declared_with_them():
    # The five that only had a default where they were read, with the value that default had.
    assert site_settings.GAMES_SOCKET_RATE == 5.0
    assert site_settings.GAMES_SOCKET_BURST == 60
    assert site_settings.GAMES_MAX_OPEN_TABLES == 5
    assert site_settings.GAMES_DB_PARALLEL is False  # one database thread per process (docs/scale.md, "Two lanes")
    assert site_settings.GAMES_DB_READERS == 1
    assert site_settings.TOURNAMENTS_ROMME_ROUNDS == (6, 12, 18, 24)


PRINT_LIMITS = (
    "import json, django; django.setup(); from django.conf import settings as s; "
    "print(json.dumps([s.GAMES_SOCKET_RATE, s.GAMES_SOCKET_BURST, s.GAMES_MAX_OPEN_TABLES, s.GAMES_DB_PARALLEL, s.GAMES_DB_READERS]))"
)


def test_the_live_limits_are_read_from_the_environment():
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "ginsite.settings", "GAMES_SOCKET_RATE": "2.5",
                   "GAMES_SOCKET_BURST": "7", "GAMES_MAX_OPEN_TABLES": "0", "GAMES_DB_PARALLEL": "1",
                   "GAMES_DB_READERS": "3"}
    done = subprocess.run([sys.executable, "-c", PRINT_LIMITS], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [2.5, 7, 0, True, 3]
