"""One table of signed records (signature_cases.json, made by make_signature_cases.py) that both checkers
run: Python's ``records_export.record_signature_holds`` and the browser's ``canonical.js`` (through node).
Each case says by construction whether its signature holds; both must say so, so they agree."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from games.reads import records as records_export

HERE = Path(__file__).parent
TABLE = json.loads((HERE / "signature_cases.json").read_text())
CASES = TABLE["cases"]


@pytest.fixture
def test_key(settings):
    settings.RECORDS_SIGNING_KEY = TABLE["private_key"]
    settings.RECORDS_RETIRED_PUBLIC_KEYS = []
    records_export._private_seed.cache_clear()
    assert records_export.site_public_key().hex() == TABLE["public_key"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_python_says_what_the_case_says(test_key, case):
    assert records_export.record_signature_holds(json.loads(case["text"])) is case["holds"]


@pytest.fixture(scope="module")
def browser_states() -> dict[str, str]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to run the browser's signature check")
    done = subprocess.run([node, str(HERE / "signature_cases.mjs")], capture_output=True, text=True, timeout=60,
                          check=True)
    return json.loads(done.stdout)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_browser_says_what_the_case_says(browser_states, case):
    state = browser_states[case["name"]]
    assert state != "unavailable"
    assert (state == "ok") is case["holds"], state


def test_the_table_holds_the_cases_where_the_checkers_disagreed():
    names = {c["name"] for c in CASES}
    assert {"__proto__ added at the top", "25.0 for 25"} <= names
