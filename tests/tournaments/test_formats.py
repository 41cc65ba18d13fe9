"""The format classes themselves: the registry holds one class per format, the code above them names no
format, and each format's page shows its own columns."""

import re
from pathlib import Path

import pytest
from django.urls import reverse

from tests.tournaments.helpers import play_tournament, started
from tournaments import formats

ROOT = Path(__file__).resolve().parents[2]
#: The code that asks the format and must not branch on a format's name or a game's: every module, template
#: and script of tournaments but the format classes themselves (and the migrations, which are history).
ABOVE_THE_FORMATS = sorted(
    str(p.relative_to(ROOT)) for folder in ("tournaments", "templates/tournaments")
    for p in (ROOT / folder).rglob("*")
    if p.suffix in (".py", ".html", ".js") and not {"formats", "migrations", "locale"} & set(p.parts))
FAST = {"check_in_minutes": 0, "break_minutes": 0}


def test_the_registry_holds_one_class_per_format_with_its_game():
    assert formats.names() == ("series", "swiss", "knockout", "round_robin", "arena")
    assert [cls.kind() for cls in formats.classes()] == [
        "romme:series", "gin:swiss", "gin:knockout", "gin:round_robin", "gin:arena", "romme:arena"]
    assert formats.names("romme") == ("series", "arena") and formats.games() == ("romme", "gin")


def test_the_arena_is_one_class_registered_for_each_game():
    gin, romme = formats.get("arena", "gin"), formats.get("arena", "romme")
    assert issubclass(gin, formats.ArenaFormat) and issubclass(romme, formats.ArenaFormat)
    assert (gin.game, romme.game) == ("gin", "romme")
    assert formats.continuous_kinds() == (("gin", "arena"), ("romme", "arena"))
    with pytest.raises(KeyError):
        formats.get("arena")  # two games share the name: the game is needed


def test_the_guard_reads_the_forms_the_hooks_and_the_templates():
    assert {"tournaments/forms.py", "tournaments/hooks.py", "tournaments/services.py", "tournaments/views.py",
            "templates/tournaments/staff_create.html", "templates/tournaments/staff.html",
            "tournaments/static/tournaments/create.js"} <= set(ABOVE_THE_FORMATS)


@pytest.mark.parametrize("path", ABOVE_THE_FORMATS)
def test_code_above_the_formats_names_no_format_and_no_game(path):
    text = (ROOT / path).read_text()
    names = "|".join((*formats.names(), *formats.games()))
    assert re.findall(rf"""["']({names})["']|format ==|\.format\s*==|\.game\s*[!=]=""", text) == []


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game, format, given, headers", [
    ("romme", "series", {"series": 1, "rounds": 1}, ["Ergebnis", "WP", "Augen", "Runden gewonnen", "Serie 1"]),
    ("gin", "swiss", {"rounds": 1}, ["Punkte", "Buchholz", "Differenz", "Runde 1"]),
    ("gin", "round_robin", {}, ["Punkte", "Differenz", "Runde 1", "Runde 2", "Runde 3"]),
])
def test_the_standings_show_the_formats_own_columns(client, staff, make_players, game, format, given, headers):
    t = started(staff, make_players(3), name="Spalten", game=game, format=format, settings={**given, **FAST},
                options={} if game == "romme" else {"target": 0})
    play_tournament(t.pk)
    page = client.get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    standings = re.search(r'<section aria-labelledby="t-standings">.*?</section>', page, re.S).group(0)
    shown = re.findall(r"<th>([^<]*)</th>", standings)
    assert shown == ["Platz", "Spieler", *headers]
    assert "Turnierbaum" not in page
