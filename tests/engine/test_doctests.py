"""Every ``>>>`` example in the engine, each game's points (``games/kinds/<game>/points.py``) and
``tournaments.scoring`` runs and holds."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import games.engine

MODULES = sorted(
    [info.name for info in pkgutil.walk_packages(games.engine.__path__, "games.engine.")]
    + ["games.engine", "games.kinds.gin.points", "games.kinds.romme.points", "tournaments.scoring"]
)


@pytest.mark.parametrize("name", MODULES)
def test_examples_in_the_docstrings_hold(name):
    failed, _ = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, report=True)
    assert failed == 0, f"{name}: {failed} example(s) failed (see the output above)"


def test_the_examples_are_there():
    attempted = {name: doctest.testmod(importlib.import_module(name), report=False).attempted for name in MODULES}
    assert sum(attempted.values()) >= 30, attempted
    for name in ("games.engine.cards", "games.engine.romme.hints", "games.kinds.gin.points", "games.kinds.romme.points",
                 "tournaments.scoring"):
        assert attempted[name] > 0, name
