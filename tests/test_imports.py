"""Imports run one way (DESIGN.md): ginsite → tournaments → ratings → games → accounts, with the leaf
leaves ``games.engine`` (the rules) and ``tournaments.scoring`` (the pure scoring arithmetic the design card puts in
the tournaments app) usable from anywhere, and no import cycle between modules.

Read from the source with ``ast``, so an import inside a function counts as much as one at the top (it runs
too, only later); imports under ``if TYPE_CHECKING:`` never run and do not count. Migrations are left out:
Django loads them by name, and they refer to other apps by label, not by import.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The site's own packages (an app not written yet is simply absent).
PACKAGES = ("ginsite", "accounts", "games", "ratings", "tournaments")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def site_modules() -> dict[str, Path]:
    """Every module of the site's packages, by dotted name."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.relative_to(ROOT).parts:
                found[_module_name(path)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST):
    """Every import statement that can run, at any depth (functions and classes included)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            for other in node.orelse:
                yield from _import_nodes(ast.Module(body=[other], type_ignores=[]))
        else:
            yield from _import_nodes(node)


def _imported(module: str, path: Path) -> set[str]:
    """The names of the site's modules that ``module`` imports (a ``from x import y`` of a submodule is that
    submodule; of anything else, ``x`` itself)."""
    modules = site_modules()
    is_package = path.name == "__init__.py"
    targets = set()
    for node in _import_nodes(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                package = module.split(".") if is_package else module.split(".")[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join(package + ([base] if base else []))
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        targets |= {name for name in names if name in modules}
    targets.discard(module)
    return targets


@cache
def import_graph() -> dict[str, frozenset[str]]:
    return {module: frozenset(_imported(module, path)) for module, path in site_modules().items()}


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _offenders(importer: str, forbidden: tuple[str, ...], allowed: tuple[str, ...] = ()) -> list[str]:
    return sorted(
        f"{module} imports {target}"
        for module, targets in import_graph().items()
        if _within(module, importer)
        for target in targets
        if any(_within(target, f) for f in forbidden) and not any(_within(target, a) for a in allowed)
    )


def find_cycle(graph: dict[str, frozenset[str]]) -> list[str]:
    """One import cycle of ``graph`` as a path that ends where it starts (``[a, b, a]``), or ``[]``."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(module: str) -> list[str]:
        path.append(module)
        on_path.add(module)
        for target in sorted(graph.get(module, ())):
            if target in on_path:
                return path[path.index(target) :] + [target]
            if target not in done and (cycle := visit(target)):
                return cycle
        path.pop()
        on_path.discard(module)
        done.add(module)
        return []

    for module in sorted(graph):
        if module not in done and (cycle := visit(module)):
            return cycle
    return []


def test_the_graph_sees_the_site_and_its_imports():
    # A guard on the guard: were module names or relative imports resolved wrongly, every rule below would
    # pass on an empty graph.
    graph = import_graph()
    assert {"accounts.views", "games.services", "games.services.play", "tournaments.scoring"} <= graph.keys()
    assert "games.services._common" in graph["games.services.play"]
    assert "games.services.play" in graph["games.services"]
    assert "games.services" in graph["games.delivery.receivers"]
    assert "games.delivery.receivers" in graph["games.apps"]  # imported inside AppConfig.ready: it counts too


def test_accounts_imports_no_other_app_of_the_site():
    assert _offenders("accounts", forbidden=("games", "ratings", "tournaments", "ginsite")) == []


def test_games_imports_nothing_of_ratings_or_tournaments():
    # tournaments.scoring is a pure leaf (DESIGN.md, api.md): the one part of the tournaments app games may use.
    assert _offenders("games", forbidden=("ratings", "tournaments", "ginsite"), allowed=("tournaments.scoring",)) == []


def test_ratings_imports_nothing_of_tournaments():
    assert _offenders("ratings", forbidden=("tournaments", "ginsite"), allowed=("tournaments.scoring",)) == []


def test_tournaments_imports_nothing_of_the_project_settings_package():
    assert _offenders("tournaments", forbidden=("ginsite",)) == []


def test_the_scoring_imports_nothing_of_the_site():
    # The other leaf, games.engine, has its own guard (tests/engine): the standard library only.
    # Importing it runs tournaments/__init__.py first: that must import nothing either.
    assert import_graph()["tournaments"] == frozenset()
    assert _offenders("tournaments.scoring", forbidden=PACKAGES) == []


def _game_packages() -> list[str]:
    return sorted(p.name for p in (ROOT / "games" / "kinds").iterdir() if (p / "__init__.py").exists())


def _in_game(module: str, game: str) -> bool:
    return module == f"games.kinds.{game}" or module.startswith(f"games.kinds.{game}.")


def test_the_registry_imports_no_game():
    # Each game registers itself (its AppConfig.ready); the catalogue knows none of them by name.
    graph = import_graph()
    assert {"gin", "romme"} <= set(_game_packages())
    assert [m for m in graph["games.registry"] if any(_in_game(m, g) for g in _game_packages())] == []
    assert "games.kinds.apps" in graph["games.kinds.gin.apps"]  # which registers the game's entry when ready


def test_no_game_package_imports_another():
    graph = import_graph()
    for game in _game_packages():
        for module in (m for m in graph if _in_game(m, game)):
            foreign = [t for t in graph[module] for other in _game_packages() if other != game and _in_game(t, other)]
            assert foreign == [], (module, foreign)


def test_no_import_cycle_between_the_sites_modules():
    assert find_cycle(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle_through_several_modules():
    graph = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset({"a"})}

    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": frozenset({"b"}), "b": frozenset()}) == []
