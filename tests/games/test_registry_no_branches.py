"""Code above the engine asks the game registry; it does not branch on a game's name (DESIGN.md, Seams). That
holds for the browser too: the table page's and the replay viewer's shells (games/static) call the hooks of
the game's client module, which lives in the game's own package (games/kinds/<game>/static/<game>/). Nor does the
site's Python import a game's engine or package by name, or spell a key only one game's state or results hold:
the game's entry names them."""

import ast
import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NAMES = "gin|romme"
#: A comparison with a game's name, in Python, JavaScript, templates and CSS: ``== "gin"``, ``"romme" !==``,
#: ``case "gin":``, ``in ("gin", ...)``, ``["gin", ...].includes(``, ``[data-game="gin"]``.
BRANCH = re.compile(
    rf"""(===?|!==?)\s*["']({NAMES})["']"""
    rf"""|["']({NAMES})["']\s*(===?|!==?)"""
    rf"""|\bcase\s+["']({NAMES})["']\s*:"""
    rf"""|\bin\s*[(\[{{]\s*["']({NAMES})["']"""
    rf"""|\[\s*["']({NAMES})["'][^\]]*\]\s*\.includes\("""
    rf"""|data-game\s*=\s*["']?({NAMES})\b"""
)
#: Where the site's code above the engine lives, outside the games' own packages (games/kinds/<game>/, which
#: may name themselves), the tournaments app and its templates included (tests/tournaments also holds them to
#: naming no format outside the format classes).
SCANNED = ["games/static", "games/templatetags", "games/web", "games/reads", "games/delivery", "games/services",
           "games/management", "templates/games", "templates/ratings", "templates/account", "templates/accounts",
           "templates/errors", "ratings", "tournaments", "templates/tournaments", "accounts"]
SUFFIXES = (".py", ".html", ".js", ".css", ".txt")


def branches_in(paths) -> list[str]:
    return [f"{p.relative_to(ROOT)}:{n}" for p in paths
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1) if BRANCH.search(line)]


def files_under(folder: str) -> list[Path]:
    return [p for p in (ROOT / folder).rglob("*") if p.suffix in SUFFIXES and "migrations" not in p.parts]


@pytest.mark.parametrize("folder", SCANNED)
def test_no_branch_on_a_games_name(folder):
    assert files_under(folder), f"{folder} holds nothing to scan"
    assert branches_in(files_under(folder)) == []


def test_no_branch_on_a_games_name_in_the_modules_of_games_and_the_site_templates():
    # games/*.py, what every game shares in games/kinds/ (base.py, apps.py; not the games' own packages),
    # and the site's own templates.
    top = [*(ROOT / "games").glob("*.py"), *(ROOT / "games" / "kinds").glob("*.py"), *(ROOT / "templates").glob("*.html")]
    assert (ROOT / "games" / "kinds" / "base.py") in top and branches_in(top) == []


def python_above_the_engine() -> list[Path]:
    """The site's Python outside the games' own packages: the scanned folders, games/*.py and what every game
    shares in games/kinds/."""
    return sorted({*(p for folder in SCANNED for p in files_under(folder) if p.suffix == ".py"),
                   *(ROOT / "games").glob("*.py"), *(ROOT / "games" / "kinds").glob("*.py")})


def test_no_code_outside_a_games_package_imports_its_engine_or_its_package():
    # A game's rules and entry are reached through the registry (``registry.get(game).engine``, its hooks),
    # never imported by name: Rommé's meld preview is asked of the entry, not of games.engine.romme.hints.
    from games import registry

    own = re.compile(rf"^games\.(engine|kinds)\.({'|'.join(map(re.escape, registry.names()))})(\.|$)")
    found = []
    for path in python_above_the_engine():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                modules = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            else:
                continue
            found += [f"{path.relative_to(ROOT)}:{node.lineno} {m}" for m in modules if own.match(m)]
    assert found == []


#: Words of a game's state that the site also uses for something of its own: a seat is "taken" (the table's
#: seats, every game's) and a match is "drawn" (a person's history).
THE_SITES_OWN = {("games/reads/presenters.py", "taken"), ("games/reads/history.py", "drawn")}


def test_no_games_own_keys_are_read_outside_its_package():
    # What only one game's state or results hold (gin's "knocker" and "deadwood", Rommé's "hand_romme" and
    # "hand_augen", how its rounds end) is named by that game's entry (``round_results``, ``seat_only_keys``,
    # ``profile_round_facts``) and read through it: no string of the site's Python spells one, not even as a
    # database lookup (``"result__knocker"``).
    from games import registry
    from games.kinds.base import ROUND_RESULTS, GameEntry
    from games.reads.presenters import SEAT_ONLY_KEYS

    neutral = {*ROUND_RESULTS, *SEAT_ONLY_KEYS, *GameEntry.profile_round_facts, *registry.names()}
    own = {word: entry.name for entry in registry.entries()
           for word in (*entry.round_results, *entry.seat_only_keys, *entry.profile_round_facts) if word not in neutral}
    assert {"knocker", "deadwood", "knock", "hand_romme", "hand_augen"} <= set(own)
    found = []
    for path in python_above_the_engine():
        name = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                word = node.value.removeprefix("result__")
                if word in own and (name, word) not in THE_SITES_OWN:
                    found.append(f"{name}:{node.lineno} {node.value!r} ({own[word]}'s)")
    assert found == []


@pytest.mark.parametrize("line", [
    'if (v.game === "gin") renderGinNumbers(numbers, v);',
    "const masters = v.game !== 'romme';",
    '{% if t.game == "gin" %}',
    'if game in ("gin", "romme"):',
    'case "romme":',
    'if (["gin", "romme"].includes(tb.game)) x();',
    '.gt[data-game="gin"] .gt-hand .pcard { --w: 76px; }',
])
def test_the_scan_sees_each_way_of_branching(line):
    assert BRANCH.search(line)


@pytest.mark.parametrize("line", [
    'if (move.action === "knock") sound = "knock";',
    "const own = game.describeMove(move);",
    'registry.get("gin")',
])
def test_the_scan_lets_other_code_be(line):
    assert not BRANCH.search(line)


def test_the_shells_import_no_games_module():
    shell = list((ROOT / "games/static").rglob("*.js"))
    imports = [f"{p.relative_to(ROOT)}: {m}" for p in shell
               for m in re.findall(r"""(?:import|from)\s*\(?\s*["']([^"']+)["']""", p.read_text(encoding="utf-8"))
               if not m.startswith(("./", "../"))  or re.search(rf"\b({NAMES})\b", m)]
    assert shell and imports == []


def test_each_game_s_client_module_is_in_its_own_package():
    from django.contrib.staticfiles import finders

    from games import registry

    for entry in registry.entries():
        found = finders.find(entry.client_module)
        assert found, f"{entry.name}: {entry.client_module} is not a static file"
        package = ROOT / "games" / "kinds" / entry.name / "static"
        assert Path(found).is_relative_to(package), (entry.name, found)
        source = Path(found).read_text(encoding="utf-8")
        # The entry point names both pages' parts; each part is a module beside it.
        for part in ("table", "replay"):
            assert re.search(rf"export const {part} = \(\) => import\(\"\./{part}\.js\"\)", source), (entry.name, part)
            assert (Path(found).parent / f"{part}.js").exists()


def test_each_game_s_stylesheet_is_in_its_own_package():
    from django.contrib.staticfiles import finders

    from games import registry

    named = [entry for entry in registry.entries() if entry.stylesheet]
    assert {"gin", "romme"} <= {entry.name for entry in named}
    for entry in named:
        found = finders.find(entry.stylesheet)
        assert found, f"{entry.name}: {entry.stylesheet} is not a static file"
        assert Path(found).is_relative_to(ROOT / "games" / "kinds" / entry.name / "static"), (entry.name, found)


def test_a_game_s_stylesheet_is_optional_but_never_outside_a_static_path():
    from games import registry
    from tests.games.highcard.entry import HighCardEntry

    assert HighCardEntry.stylesheet == ""  # the test-only game has none and its table works (test_third_game.py)

    class Escapes(HighCardEntry):
        stylesheet = "../gin/gin.css"

    class NotCss(HighCardEntry):
        stylesheet = "highcard/client.js"

    for entry in (Escapes(), NotCss()):
        with pytest.raises(ValueError, match="names no stylesheet"):
            registry.register(entry)
    assert not registry.is_game("highcard")


def test_a_game_without_a_client_module_is_refused():
    from games import registry
    from tests.games.highcard.entry import HighCardEntry

    class NoClient(HighCardEntry):
        client_module = ""

    class Escapes(HighCardEntry):
        client_module = "../highcard/client.js"

    for entry in (NoClient(), Escapes()):
        with pytest.raises(ValueError, match="names no client module"):
            registry.register(entry)
    assert not registry.is_game("highcard")


def test_each_game_words_its_own_profile_facts():
    from games import registry

    gin, romme = registry.get("gin"), registry.get("romme")
    assert [slug for slug, _label, _value in gin.profile_facts({"gins": 2})] == [
        "gins", "undercuts-given", "undercuts-suffered", "knock-deadwood"]
    assert [slug for slug, _l, _v in romme.profile_facts({"masters_lists": 0})] == ["hand-rommes", "rounds-won"]
    assert str(romme.pool_note) and not str(gin.pool_note)


# --- The shared browser files: no word only one game has ----------------------------------------------------

#: Words of one game's that its entry does not list as a result or a profile fact but that only it says: gin's
#: Hollywood scoring and Rommé's Augen (the points of a hand).
ONE_GAMES_WORDS = {"hollywood", "augen"}


def words_only_one_game_has() -> set[str]:
    """The games' names, how their own rounds end (gin's "knock", "big_gin"), the round-result fields their
    profile statistics read (gin's "knocker", "deadwood"), and ONE_GAMES_WORDS; what every game has is not one
    game's ("result", "winner", "dead")."""
    from games import registry
    from games.kinds.base import ROUND_RESULTS, GameEntry

    neutral = {*ROUND_RESULTS, *GameEntry.profile_round_facts}
    own = {word for entry in registry.entries() for word in (*entry.round_results, *entry.profile_round_facts)}
    return {*registry.names(), *(own - neutral), *ONE_GAMES_WORDS}


def tokens(text: str) -> list[str]:
    """The words of ``text`` in lower case and without accents, identifiers split at ``-``, ``_`` and camelCase
    humps: ``btn--big-gin`` is btn big gin, ``canKnock`` can knock, ``"Rommé"`` romme."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return [w.lower() for w in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", plain)]


def without_comments(source: str) -> str:
    """``source`` (JavaScript or CSS) with its comments blanked (``/* … */`` and, at a line's start or after a
    blank, ``// …``), the lines where they were."""
    blank = lambda m: re.sub(r"[^\n]", " ", m.group())  # noqa: E731
    return re.sub(r"(?m)(^|(?<=\s))//[^\n]*", blank, re.sub(r"/\*.*?\*/", blank, source, flags=re.S))


def one_games_words_in(source: str, words: set[str]) -> list[str]:
    wanted = [tokens(word) for word in words]
    found = []
    for n, line in enumerate(without_comments(source).splitlines(), start=1):
        have = tokens(line)
        hits = {" ".join(w) for w in wanted
                for i in range(len(have) - len(w) + 1) if have[i:i + len(w)] == w}
        found += [f"{n}: {hit}" for hit in sorted(hits)]
    return found


def shared_browser_files() -> list[Path]:
    return sorted(p for p in (ROOT / "games/static/games").rglob("*") if p.suffix in (".js", ".css"))


@pytest.mark.parametrize("path", shared_browser_files(), ids=lambda p: str(p.relative_to(ROOT / "games/static/games")))
def test_the_shared_browser_files_say_no_word_only_one_game_has(path):
    # The table page's and the replay viewer's shells, the lobby's, the cards, the stylesheets: a game's own
    # rules, sounds and classes (.btn--knock, the knock's sound, .rv-cards.is-deadwood) are in its package
    # (games/kinds/<game>/static/<game>/), its stylesheet named by its entry. Comments may name a game.
    assert one_games_words_in(path.read_text(encoding="utf-8"), words_only_one_game_has()) == []


def test_the_one_games_words_are_the_entries():
    assert {"gin", "romme", "knock", "big_gin", "undercut", "knocker", "deadwood", "hand_romme", "hollywood",
            "augen"} <= words_only_one_game_has()
    assert not {"result", "winner", "dead", "abandoned"} & words_only_one_game_has()


@pytest.mark.parametrize("source, found", [
    (".btn--knock { background: #1e7a46; }", ["1: knock"]),
    ("const SOUNDS = {\n  knock: (ac) => tone(ac),\n};", ["2: knock"]),
    ('cards.append(row(group.cards, "rv-cards is-deadwood"));', ["1: deadwood"]),
    ("#quick-romme .gl-quick__suit { color: #c0262d; }", ["1: romme"]),
    ("if (meter.canKnock) x();", ["1: knock"]),
    ('title: "Gin Rommé",', ["1: gin", "1: romme"]),
    (".meter--big-gin { border-color: #fff; }", ["1: big gin", "1: gin"]),
    ("const HAND_ROMME = 1;", ["1: hand romme", "1: romme"]),
    ("// a knock sounds twice\n/* .btn--gin\n   is white */ .margin { begin: 0; }", []),
    ('fetch("https://example.org/knock");', ["1: knock"]),
    ("const original = login(); // gin's", []),
])
def test_the_scan_of_the_shared_browser_files(source, found):
    assert one_games_words_in(source, {"gin", "romme", "knock", "big_gin", "deadwood", "hand_romme"}) == found
