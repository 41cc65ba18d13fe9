"""The benches print the levels' crosstable with 95 % intervals (``make bench``), and ``--no-slips`` plays the
lower levels' heuristics without their designed slips (the expert's old reference)."""

from __future__ import annotations

import re

import pytest

from bench import gin as gin_bench
from bench import romme as romme_bench
from games.engine.gin import bots as gin_bots
from games.engine.romme import bots as romme_bots


@pytest.fixture(autouse=True)
def _slips_restored(monkeypatch):
    for module in (gin_bots, romme_bots):
        for level, share in module.SLIPS.items():
            monkeypatch.setitem(module.SLIPS, level, share)


def test_gin_bench_prints_the_crosstable_with_intervals_and_no_slips_turns_the_slips_off(capsys):
    gin_bench.main(["--hands", "0", "--selfplay", "0", "--matches", "4", "--pairings", "advanced-simple",
                    "--no-slips"])
    out = capsys.readouterr().out
    assert "'simple': 0.0, 'advanced': 0.0" in out
    assert "level crosstable" in out
    assert re.search(r"Fortgeschritten\s+\d+\.\d % \(\d+–\d+\) n=4", out), out
    assert set(gin_bots.SLIPS.values()) == {0.0}


def test_romme_bench_prints_the_level_crosstable_with_intervals(capsys):
    romme_bench.main(["--hands", "1", "--adversarial", "1", "--self-play-lists", "0", "--lists", "0",
                      "--level-lists", "2", "--workers", "1"])
    out = capsys.readouterr().out
    assert f"slips by design {romme_bots.SLIPS}" in out and romme_bots.SLIPS["simple"] > 0
    table = out.split("level crosstable", 1)[1].splitlines()
    rows = {line.split()[0]: line for line in table[2:5]}
    assert set(rows) == {"Anfänger", "Fortgeschritten", "Experte"}
    # Each row holds a share and its interval for both other levels, and a dash on its own column.
    assert all(len(re.findall(r"\d+\.\d % \(-?\d+–\d+\)", line)) == 2 and "—" in line for line in rows.values())
