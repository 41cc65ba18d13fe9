"""The rules engine is a pure library: nothing under games/engine imports Django, Channels or asgiref."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "games" / "engine"
FORBIDDEN = ("django", "channels", "asgiref")


def test_no_engine_source_imports_django_channels_or_asgiref():
    offenders = []
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert offenders == []


def test_engine_imports_and_plays_with_django_made_unimportable():
    script = r"""
import importlib, pkgutil, random, sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("django", "channels", "asgiref"):
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Block())
import games.engine
for info in pkgutil.walk_packages(games.engine.__path__, "games.engine."):
    importlib.import_module(info.name)
from games.engine.gin import match as gin
from games.engine.gin.melds import best_melds
from games.engine.records import replay_record
m = gin.new_match({"target": 0}, rng=random.Random(1))
assert best_melds(["7H", "7S", "7D", "8C", "9C", "TC", "2D", "3S", "KH", "QS"])[1] == 25
print("ok", "django" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok False"
