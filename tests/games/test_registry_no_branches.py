"""Code above the engine asks the game registry; it does not branch on a game's name (DESIGN.md, Seams)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BRANCH = re.compile(r"""(==|!=)\s*["'](gin|romme)["']|["'](gin|romme)["']\s*(==|!=)""")


@pytest.mark.parametrize("folder", ["templates/ratings", "templates/games", "ratings", "games/services"])
def test_no_branch_on_a_games_name(folder):
    paths = [p for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".html") and "migrations" not in p.parts]
    found = [f"{p.relative_to(ROOT)}:{n}" for p in paths
             for n, line in enumerate(p.read_text().splitlines(), start=1) if BRANCH.search(line)]
    assert found == []


def test_each_game_words_its_own_profile_facts():
    from games import registry

    gin, romme = registry.get("gin"), registry.get("romme")
    assert [slug for slug, _label, _value in gin.profile_facts({"gins": 2})] == [
        "gins", "undercuts-given", "undercuts-suffered", "knock-deadwood"]
    assert [slug for slug, _l, _v in romme.profile_facts({"masters_lists": 0})] == ["hand-rommes", "rounds-won"]
    assert str(romme.pool_note) and not str(gin.pool_note)
