"""The one glossary: every page says each gin and Rommé term one way. The variants each glossary bans
(``BANNED`` in ``games/glossary.py`` and ``games/kinds/<game>/glossary.py``) must not come back in German text:
the templates, the catalogues' German msgids, the strings Python hands to gettext, and the games' words.py."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.utils import translation

from games import glossary, registry
from games.kinds.gin import glossary as gin
from games.kinds.gin import words as gin_words
from games.kinds.romme import glossary as romme

ROOT = Path(__file__).resolve().parents[2]
APPS = ("accounts", "games", "ratings", "tournaments", "ginsite")
BANNED = {**glossary.BANNED, **gin.BANNED, **romme.BANNED}
GETTEXT = {"_", "gettext", "gettext_lazy", "ngettext", "ngettext_lazy", "pgettext", "pgettext_lazy", "npgettext"}
# A number in front of a plural noun without ngettext: "%(m)d Minuten" in a msgid that has no plural form.
COUNTED = re.compile(r"(%\(\w+\)[ds]|\{n\}|\{\{[^}]*\}\}) (Minuten|Punkte|Runden|Restpunkte|Augen)\b")
# Numbers that are never 1 (a match's target, a list's rounds are chosen from 2 up).
COUNTED_OK = {"Eine Partie bis %(t)d Punkte"}


def _german_texts() -> list[tuple[str, str]]:
    """(where, German text) for every template, msgid and gettext string of the site."""
    found: list[tuple[str, str]] = []
    for path in sorted((ROOT / "templates").rglob("*.html")):
        found.append((str(path.relative_to(ROOT)), path.read_text()))
    for path in sorted(ROOT.glob("**/locale/*/LC_MESSAGES/django.po")):
        if ".venv" in path.parts:
            continue
        text = path.read_text()
        for block in text.split("\n\n"):
            ids = re.findall(r'^msgid(?:_plural)? "(.*)"', block, re.M)
            if ids:
                found.append((f"{path.relative_to(ROOT)} msgid", "\n".join(ids)))
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if path.name == "glossary.py" or "migrations" in path.parts:
                continue
            tree = ast.parse(path.read_text())
            words_file = path.name == "words.py"
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in GETTEXT:
                    strings = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
                    found.extend((f"{path.relative_to(ROOT)}:{node.lineno}", s) for s in strings)
                elif words_file and isinstance(node, ast.Constant) and isinstance(node.value, str):
                    found.append((f"{path.relative_to(ROOT)}:{node.lineno}", node.value))
    return found


def test_no_banned_variant_comes_back_in_german_text():
    hits = [f"{where}: {pattern!r} (say {term})" for where, text in _german_texts()
            for pattern, term in BANNED.items() if re.search(pattern, text)]
    assert hits == []


def test_no_number_stands_before_a_plural_noun_without_plural_forms():
    hits = []
    for path in sorted(ROOT.glob("**/locale/*/LC_MESSAGES/django.po")):
        if ".venv" in path.parts:
            continue
        for block in path.read_text().split("\n\n"):
            if "msgid_plural" in block:
                continue
            for msgid in re.findall(r'^msgid "(.*)"', block, re.M):
                if COUNTED.search(msgid) and msgid not in COUNTED_OK:
                    hits.append(f"{path.relative_to(ROOT)}: {msgid}")
    assert hits == []


def test_the_glossary_scan_catches_a_banned_variant():
    text = "Deadwood beim Klopfen, Unterbieten, Sieg 1 Punkt(e), 1 Minuten"
    assert {p for p in BANNED if re.search(p, text)} >= {r"\bDeadwood\b", r"\bUnterbiete?n?\b", r"Punkt\(e\)",
                                                         r"\b1 Minuten\b"}


@pytest.mark.parametrize(
    ("language", "deadwood", "undercut", "knock"),
    [("de", "Restpunkte", "Unterschnitt", "Klopfen"), ("en", "Deadwood", "Undercut", "Knock")],
)
def test_the_gin_terms_are_the_same_at_the_table_in_the_replay_and_on_the_score_sheet(language, deadwood, undercut,
                                                                                      knock):
    with translation.override(language):
        table, replay = gin_words.table_words(), gin_words.replay_words()
        assert str(gin.DEADWOOD) == table["deadwood"] == table["deadwood_cards"] == deadwood
        assert str(gin.UNDERCUT) == table["result_undercut"] == replay["result_undercut"] == undercut
        score_sheet = registry.get("gin").result_label
        assert score_sheet({"result": "undercut"}) == undercut
        assert str(gin.KNOCK) == table["result_knock"] == replay["result_knock"] == score_sheet({"result": "knock"})
        assert table["result_knock"] == knock
        assert replay["deadwood"] == f"{deadwood}: {{n}}"


@pytest.mark.parametrize(
    ("language", "one", "three"),
    [("de", "{name} gewinnt die Runde: {result}, {n} Punkt.", "{name} gewinnt die Runde: {result}, {n} Punkte."),
     ("en", "{name} wins the round: {result}, {n} point.", "{name} wins the round: {result}, {n} points.")],
)
def test_the_replays_round_text_has_plural_forms(language, one, three):
    with translation.override(language):
        assert gin_words.replay_words()["round_won"] == {"one": one, "other": three}


@pytest.mark.parametrize(
    ("language", "expected"),
    [("de", ["1 Punkt", "2 Punkte", "0 Punkte", "1 Minute", "5 Minuten", "1 Runde", "3 Runden"]),
     ("en", ["1 point", "2 points", "0 points", "1 minute", "5 minutes", "1 round", "3 rounds"])],
)
def test_counted_words_have_real_plural_forms(language, expected):
    with translation.override(language):
        said = [glossary.points(1), glossary.points(2), glossary.points(0), glossary.minutes(1), glossary.minutes(5),
                glossary.rounds(1), glossary.rounds(3)]
    assert said == expected


def test_one_minus_sign_for_displayed_numbers():
    assert [glossary.signed(n) for n in (13, -5, 0)] == ["+13", "\u22125", "0"]
    assert glossary.MINUS == "\u2212"


@pytest.mark.parametrize(
    ("language", "expected"),
    [("de", {"knock": ["klopft"], "undercut": ["klopft"], "gin": ["Gin"], "big_gin": ["Big Gin"],
             "replay": {"gin": "anna macht Gin und wirft 5H ab", "knock": "anna klopft und wirft 5H ab"},
             "table": {"gin": "macht Gin und wirft ♥5 ab", "knock": "klopft und wirft ♥5 ab"}}),
     ("en", {"knock": ["knocks"], "undercut": ["knocks"], "gin": ["Gin"], "big_gin": ["Big gin"],
             "replay": {"gin": "anna goes gin, discarding 5H", "knock": "anna knocks, discarding 5H"},
             "table": {"gin": "goes gin, discarding ♥5", "knock": "knocks, discarding ♥5"}})],
)
def test_a_gin_round_is_not_called_a_knock_at_the_table(language, expected, tmp_path):
    """The seat that ended a round is tagged "klopft" only when it knocked; a gin says "Gin" (gin/table.js), and the
    replay words a knock that left no Restpunkte as a gin (gin/replay.js)."""
    import json
    import shutil
    import subprocess

    from games.templatetags.table_i18n import table_strings

    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to run gin's table part")
    with translation.override(language):
        strings = json.dumps(table_strings("gin"), default=str)
        replay_strings = json.dumps(gin_words.replay_words(), default=str)
    script = Path(__file__).parent / "gin_round_tags.mjs"
    # The static folders as the site serves them, so that gin/table.js finds ../games/*.js.
    shutil.copytree(ROOT / "games" / "static" / "games", tmp_path / "games")
    shutil.copytree(ROOT / "games" / "kinds" / "gin" / "static" / "gin", tmp_path / "gin")
    done = subprocess.run([node, str(script), strings, language, str(tmp_path / "gin" / "table.js"), replay_strings],
                          capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == expected
