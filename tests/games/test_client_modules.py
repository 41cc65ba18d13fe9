"""A game's client module as the pages load it (games/static/games/client.js and table/game.js, run under node
with a stand-in page): a page that names no module, a module without the page's part, a part without hooks
or with a hook the page does not know each fail with an error that says so; good hooks are taken, and what a
game leaves out is done the plain way."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def outcomes() -> dict:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to run the browser's module loader")
    done = subprocess.run([node, str(HERE / "client_cases.mjs")], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout)


def test_a_page_that_names_no_module_says_so(outcomes):
    assert outcomes["no module named"] == "error: this page names no game module (#game-module)"


def test_a_module_without_the_pages_part_says_so(outcomes):
    assert outcomes["no such part"].startswith("error: the game module data:text/javascript,")
    assert outcomes["no such part"].endswith(" has no replay part")


def test_a_part_without_hooks_says_so(outcomes):
    assert outcomes["a part without hooks"].endswith(" exports no hooks")


def test_a_hook_the_page_does_not_know_is_named(outcomes):
    assert outcomes["an unknown hook"] == "error: the game's table part names hooks this page does not know: renderTabel"


def test_good_hooks_are_taken_and_the_rest_is_plain(outcomes):
    assert outcomes["good hooks"] == "loaded"
    assert outcomes["good hooks, as taken"] == {
        "multiSelect": True, "roundsTotal": 3, "sheetTotals": [{"label": "Summe", "values": [2, 1]}],
        "seatTags": [], "renderTable": False,
    }
