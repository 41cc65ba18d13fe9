"""What the pure modules may import: the engine (``games.engine``) nothing but the standard library and itself;
``games.kinds.outcomes`` that alone; the scoring (``tournaments.scoring``, Wertungspunkte and gin match bonuses) the
standard library alone.

Checked twice: every import statement in the source (parsed, so an import inside a function counts too), and
a fresh interpreter without site-packages that imports and plays with everything else of the site blocked.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "games" / "engine"


def imported_modules(path: Path) -> list[str]:
    """The absolute module names a source file imports (``import a.b`` and ``from a.b import c``)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.relative_to(ROOT)}: a relative import; write it out in full"
            names.append(node.module)
    return names


def is_stdlib(module: str) -> bool:
    return module.split(".")[0] in sys.stdlib_module_names


def is_engine(module: str) -> bool:
    return module == "games.engine" or module.startswith("games.engine.")


def offenders(paths, allowed) -> list[str]:
    return [f"{path.relative_to(ROOT)}: {module}" for path in paths for module in imported_modules(path)
            if not allowed(module)]


def test_engine_source_imports_only_the_standard_library_and_the_engine():
    paths = sorted(ENGINE.rglob("*.py"))
    assert len(paths) > 10
    assert offenders(paths, lambda m: is_stdlib(m) or is_engine(m)) == []


def test_each_games_points_import_only_the_standard_library_the_engine_and_the_scoring():
    allowed = lambda m: is_stdlib(m) or is_engine(m) or m == "tournaments.scoring"  # noqa: E731
    paths = sorted((ROOT / "games" / "kinds").glob("*/points.py"))
    assert len(paths) >= 2
    assert offenders(paths, allowed) == []


def test_the_scoring_imports_only_the_standard_library():
    assert offenders([ROOT / "tournaments" / "scoring.py"], is_stdlib) == []
    assert offenders([ROOT / "tournaments" / "__init__.py"], is_stdlib) == []


def test_the_guard_sees_imports_inside_functions_too(tmp_path):
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text("def f():\n    from django.conf import settings\n    import tournaments.scoring\n")
    assert imported_modules(sneaky) == ["django.conf", "tournaments.scoring"]


# A fresh interpreter: no site-packages at all (-S), and every module of the site outside what is allowed
# refuses to load. It imports each module, plays, replays and reports what got loaded.
SCRIPT = r"""
import importlib, json, pkgutil, random, sys
ALLOWED = set(sys.argv[1].split(","))
class Block:
    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top in sys.stdlib_module_names:
            return None
        if not any(name == a or name.startswith(a + ".") or a.startswith(name + ".") for a in ALLOWED):
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Block())
before = set(sys.modules)
if "tournaments.scoring" in ALLOWED:
    from tournaments.scoring import gin_match_bonuses, list_result
    assert gin_match_bonuses(rounds_won=[3, 0], winner=0) == [275, 0]
    assert list_result(wertungspunkte=[12, 3, -1], points=[0, 8, 104]) == 28
if ALLOWED == {"tournaments.scoring"}:
    print(json.dumps(sorted(n for n in set(sys.modules) - before if n.split(".")[0] not in sys.stdlib_module_names)))
    sys.exit(0)
import games.engine
for info in pkgutil.walk_packages(games.engine.__path__, "games.engine."):
    importlib.import_module(info.name)
from games.engine.gin import bots as gin_bots, match as gin
from games.engine.gin.melds import best_melds
from games.engine.records import replay_record
from games.engine.romme import bots as romme_bots, match as romme
rng = random.Random(1)
m = gin.new_match({"target": 0}, rng=rng)
while not m.over:
    if m.to_act is None:
        m = gin.deal_next_round(m, rng)
    else:
        m = gin.apply_action(m, m.to_act, gin_bots.choose_action(gin.view(m, m.to_act), "simple", rng), rng=rng)
assert replay_record(m.record())["over"]
r = romme.new_match({"rounds": 1}, seats=3, rng=rng)
for _ in range(30):
    if r.to_act is None:  # the round (the whole one-round list) ended early
        break
    r = romme.apply_action(r, r.to_act, romme_bots.choose_action(romme.view(r, r.to_act), "expert", rng), rng=rng)
assert best_melds(["7H", "7S", "7D", "8C", "9C", "TC", "2D", "3S", "KH", "QS"])[1] == 25
if "games.kinds.gin.points" in ALLOWED:
    from games.kinds.gin import points as gin_points
    from games.kinds.romme import points as romme_points
    assert gin_points.summary(replay_record(m.record()))["winner"] is not None
    assert romme_points.score_sheet(r.facts())["mode"] == r.facts()["options"]["scoring"]
loaded = sorted(n for n in set(sys.modules) - before if n.split(".")[0] not in sys.stdlib_module_names)
print(json.dumps(loaded))
"""


@pytest.mark.parametrize(("allowed", "expected_tops"), [
    (["games.engine"], {"games"}),
    (["games.engine", "games.kinds", "games.kinds.gin", "games.kinds.gin.points", "games.kinds.romme",
      "games.kinds.romme.points", "tournaments.scoring"], {"games", "tournaments"}),
    (["tournaments.scoring"], {"tournaments"}),
])
def test_pure_modules_import_and_play_with_everything_else_blocked(allowed, expected_tops):
    done = subprocess.run([sys.executable, "-S", "-c", SCRIPT, ",".join(allowed)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert {name.split(".")[0] for name in loaded} == expected_tops
    outside = [n for n in loaded if n not in ("games", "tournaments")
               and not any(n == a or n.startswith(a + ".") for a in allowed)]
    assert outside == []
