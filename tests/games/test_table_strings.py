"""The table page has one string table, the catalogue of ``games/templatetags/table_i18n.py``: every key the
table's ES modules (games/static) ask for is in it, with a German text and an English one."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import trans_real

from games import services
from games.models import BotLevel
from games.templatetags.table_i18n import table_strings

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "games" / "static" / "games"
PROTOCOL = ROOT / "docs" / "protocol.md"
#: How a round can end, as the engines and the services report it (the score sheet names each).
ROUND_RESULTS = ("knock", "undercut", "gin", "big_gin", "romme", "hand_romme", "dead", "resign", "abandoned")
_IMPORTS_HAS = re.compile(r'import\s*\{[^}]*\bhas\b[^}]*\}\s*from\s*"\./(?:table/)?i18n\.js"')
_LITERAL = re.compile(r'"([^"\\]*)"|\'([^\'\\]*)\'')


def _first_argument(source: str, start: int) -> str:
    """The text of a call's first argument, from just after its ``(``."""
    depth, quote, i = 0, None, start
    while i < len(source):
        c = source[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return source[start:i]
            depth -= 1
        elif c == "," and depth == 0:
            return source[start:i]
        i += 1
    raise AssertionError(f"unclosed call at {start}")


def keys_the_modules_use() -> tuple[set[str], set[str]]:
    """The literal keys passed to ``t(...)`` (and to i18n's ``has(...)`` where a module imports it), and the
    template-literal keys (``err_${code}``) as they are written."""
    literal, templated = set(), set()
    for path in sorted(STATIC.rglob("*.js")):
        if path.name == "i18n.js":
            continue  # the catalogue's reader itself
        source = path.read_text(encoding="utf-8")
        for name in ("t", "has") if _IMPORTS_HAS.search(source) else ("t",):
            for call in re.finditer(rf"(?<![\w.$]){name}\(", source):
                argument = _first_argument(source, call.end())
                if "?" in argument:  # cond ? "a" : "b": the keys are the two branches, not the condition
                    argument = argument.split("?", 1)[1]
                literal |= {a or b for a, b in _LITERAL.findall(argument)}
                templated |= set(re.findall(r"`([^`]*)`", argument))
    return literal, templated


def catalogue(language: str) -> dict:
    with translation.override(language):
        return table_strings()


def test_the_scan_sees_the_keys_of_every_module():
    literal, templated = keys_the_modules_use()
    # One key from each module that shows text: a scan that found nothing would pass the test below.
    assert {"conn_back", "your_turn", "knock", "lay_out", "totals", "pile_top", "not_connected"} <= literal
    assert {"err_${message.code}", "level_${info.bot}", "result_${kind}"} <= templated


def test_every_key_the_table_modules_use_is_in_the_catalogue():
    literal, _templated = keys_the_modules_use()
    assert sorted(literal - set(catalogue("de"))) == []


def test_every_template_key_of_the_modules_is_one_this_test_knows():
    # A new `${...}` key needs its family checked below.
    _literal, templated = keys_the_modules_use()
    assert templated == {"err_${message.code}", "level_${info.bot}", "result_${kind}"}


def test_every_computer_level_has_its_name():
    strings = catalogue("de")
    assert [f"level_{level}" for level in BotLevel.values if f"level_{level}" not in strings] == []


def test_every_way_a_round_ends_has_its_name():
    strings = catalogue("de")
    assert [kind for kind in ROUND_RESULTS if f"result_{kind}" not in strings] == []


def test_every_error_text_is_for_an_error_code_of_the_protocol():
    text = PROTOCOL.read_text(encoding="utf-8")
    codes = [key.removeprefix("err_") for key in catalogue("de") if key.startswith("err_")]
    assert codes and [code for code in codes if f"`{code}`" not in text] == []


def _texts(value) -> list[str]:
    return [value["one"], value["other"]] if isinstance(value, dict) else [value]


def test_every_text_has_a_german_and_an_english_form():
    german, english = catalogue("de"), catalogue("en")
    english_catalogue = trans_real.translation("en")._catalog
    assert set(german) == set(english)
    untranslated = []
    for key, value in german.items():
        for index, (de, en) in enumerate(zip(_texts(value), _texts(english[key]), strict=True)):
            assert de.strip() and en.strip(), key
            # Identical only where English has the German word too (Gin!, offline), written in its catalogue.
            if de == en and de not in english_catalogue and (de, index) not in english_catalogue:
                untranslated.append(key)
    assert untranslated == []


def test_german_and_english_fill_the_same_placeholders():
    german, english = catalogue("de"), catalogue("en")
    differ = [key for key in german
              for de, en in zip(_texts(german[key]), _texts(english[key]), strict=True)
              if set(re.findall(r"\{(\w+)\}", de)) != set(re.findall(r"\{(\w+)\}", en))]
    assert differ == []


@pytest.mark.django_db
def test_the_table_page_hands_its_script_one_catalogue(client, django_user_model):
    anna = django_user_model.objects.create_user("anna", "anna@example.org", "pw-annaanna")
    table = services.table_create(user=anna, game="gin")
    html = client.get(reverse("games:table", args=[table.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    config = html.split('<script id="table-config" type="application/json">', 1)[1].split("</script>", 1)[0]
    strings = html.split('<script id="table-strings" type="application/json">', 1)[1].split("</script>", 1)[0]
    assert "strings" not in json.loads(config)
    assert json.loads(strings) == catalogue("en")
