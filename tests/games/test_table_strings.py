"""The table page has one string table: the shell's words (``games/templatetags/table_i18n.py``) and the game's
own (its entry's ``table_words``, from its package). Every key the shell's ES modules (games/static) ask for is
in the shell's words, every key a game's client module asks for in the shell's or that game's, each with a
German text and an English one."""

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
GAMES = ("gin", "romme")


def game_static(game: str) -> Path:
    return ROOT / "games" / "kinds" / game / "static" / game
PROTOCOL = ROOT / "docs" / "protocol.md"
#: How a round can end, as the engines and the services report it (the score sheet names each).
ROUND_RESULTS = ("knock", "undercut", "gin", "big_gin", "romme", "hand_romme", "dead", "resign", "abandoned")
_IMPORTS_HAS = re.compile(r'import\s*\{[^}]*\bhas\b[^}]*\}\s*from\s*"(?:\./|\.\./games/)(?:table/)?i18n\.js"')
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


def keys_the_modules_use(folder: Path = STATIC) -> tuple[set[str], set[str]]:
    """The literal keys passed to ``t(...)`` (and to i18n's ``has(...)`` where a module imports it), and the
    template-literal keys (``err_${code}``) as they are written, in the modules under ``folder``."""
    literal, templated = set(), set()
    for path in sorted(folder.rglob("*.js")):
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


def catalogue(language: str, game: str | None = None) -> dict:
    with translation.override(language):
        return table_strings(game)


def test_the_scan_sees_the_keys_of_every_module():
    literal, templated = keys_the_modules_use()
    # One key from each module that shows text: a scan that found nothing would pass the tests below.
    assert {"conn_back", "your_turn", "take_upcard", "totals", "pile_top", "not_connected"} <= literal
    assert {"err_${message.code}", "level_${info.bot}", "result_${kind}"} <= templated
    assert {"knock", "tip_text", "bonuses", "round_winner"} <= keys_the_modules_use(game_static("gin"))[0]
    assert {"lay_out", "augen", "wp_short", "hint_discard_romme"} <= keys_the_modules_use(game_static("romme"))[0]


def test_every_key_the_shell_uses_is_in_the_shells_words():
    literal, _templated = keys_the_modules_use()
    assert sorted(literal - set(catalogue("de"))) == []


@pytest.mark.parametrize("game", GAMES)
def test_every_key_a_games_client_module_uses_is_in_the_shells_or_its_own_words(game):
    literal, templated = keys_the_modules_use(game_static(game))
    assert literal and templated == set()
    assert sorted(literal - set(catalogue("de", game))) == []


@pytest.mark.parametrize("game", GAMES)
def test_a_games_words_are_its_own_and_come_with_its_table(game):
    from games import registry

    own = registry.get(game).table_words()
    shell = catalogue("de")
    # A game's word never stands in for a shell's word of another meaning.
    assert [key for key in own if key in shell and own[key] != shell[key]] == []
    assert set(catalogue("de", game)) == set(shell) | set(own)
    # The other game's words are not on this game's table (those both games have aside).
    other = next(g for g in GAMES if g != game)
    theirs = set(registry.get(other).table_words()) - set(own)
    assert theirs and not theirs & set(catalogue("de", game))


def test_every_template_key_of_the_modules_is_one_this_test_knows():
    # A new `${...}` key needs its family checked below.
    _literal, templated = keys_the_modules_use()
    assert templated == {"err_${message.code}", "level_${info.bot}", "result_${kind}"}


def test_an_unknown_game_has_no_words():
    from games.registry import UnknownGame

    with pytest.raises(UnknownGame, match="unknown game 'chess'"):
        table_strings("chess")


def test_every_computer_level_has_its_name():
    strings = catalogue("de")
    assert [f"level_{level}" for level in BotLevel.values if f"level_{level}" not in strings] == []


def test_every_way_a_round_ends_has_its_name():
    strings = {key for game in GAMES for key in catalogue("de", game)}
    assert [kind for kind in ROUND_RESULTS if f"result_{kind}" not in strings] == []


def test_every_error_text_is_for_an_error_code_of_the_protocol():
    text = PROTOCOL.read_text(encoding="utf-8")
    codes = [key.removeprefix("err_") for key in catalogue("de") if key.startswith("err_")]
    assert codes and [code for code in codes if f"`{code}`" not in text] == []


def _texts(value) -> list[str]:
    return [value["one"], value["other"]] if isinstance(value, dict) else [value]


@pytest.mark.parametrize("game", GAMES)
def test_every_text_has_a_german_and_an_english_form(game):
    german, english = catalogue("de", game), catalogue("en", game)
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


@pytest.mark.parametrize("game", GAMES)
def test_german_and_english_fill_the_same_placeholders(game):
    german, english = catalogue("de", game), catalogue("en", game)
    differ = [key for key in german
              for de, en in zip(_texts(german[key]), _texts(english[key]), strict=True)
              if set(re.findall(r"\{(\w+)\}", de)) != set(re.findall(r"\{(\w+)\}", en))]
    assert differ == []


@pytest.mark.django_db
@pytest.mark.parametrize("game", GAMES)
def test_the_table_page_hands_its_script_one_catalogue_and_its_games_module(client, django_user_model, game):
    anna = django_user_model.objects.create_user("anna", "anna@example.org", "pw-annaanna")
    table = services.table_create(user=anna, game=game)
    html = client.get(reverse("games:table", args=[table.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    config = html.split('<script id="table-config" type="application/json">', 1)[1].split("</script>", 1)[0]
    strings = html.split('<script id="table-strings" type="application/json">', 1)[1].split("</script>", 1)[0]
    assert "strings" not in json.loads(config)
    assert json.loads(strings) == catalogue("en", game)
    assert f'<link rel="modulepreload" id="game-module" href="/static/{game}/client.js">' in html
    # The game's own stylesheet (its package's, named by its entry) right after the shared one, no other game's.
    sheets = re.findall(r'<link rel="stylesheet" href="/static/([^"]+)">', html.split("</head>", 1)[0])
    assert sheets[sheets.index("games/games.css") + 1] == f"{game}/{game}.css"
    assert [s for s in sheets if s.startswith(tuple(f"{g}/" for g in GAMES))] == [f"{game}/{game}.css"]


@pytest.mark.django_db
def test_the_lobby_loads_every_games_stylesheet_after_the_shared_one(client):
    html = client.get(reverse("games:lobby")).content.decode()
    sheets = re.findall(r'<link rel="stylesheet" href="/static/([^"]+)">', html.split("</head>", 1)[0])
    assert sheets[sheets.index("games/games.css") + 1:][:len(GAMES)] == [f"{g}/{g}.css" for g in GAMES]


def _msgids_of_words(game: str) -> set[str]:
    """The German texts a game's words module translates (``_`` and both forms of ``ngettext``)."""
    import ast

    tree = ast.parse((ROOT / "games" / "kinds" / game / "words.py").read_text(encoding="utf-8"))
    return {arg.value for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("_", "ngettext") for arg in node.args[:2] if isinstance(arg, ast.Constant)}


@pytest.mark.parametrize("game", GAMES)
def test_a_games_words_are_translated_in_its_own_catalogue(game):
    # The game's package holds its words and their English (games/kinds/<game>/locale), as an app's catalogue.
    po = (ROOT / "games" / "kinds" / game / "locale" / "en" / "LC_MESSAGES" / "django.po").read_text(encoding="utf-8")
    in_catalogue = {json.loads(text) for text in re.findall(r'^msgid(?:_plural)? (".*")$', po, re.M)}
    words = _msgids_of_words(game)
    assert words and sorted(words - in_catalogue) == []
