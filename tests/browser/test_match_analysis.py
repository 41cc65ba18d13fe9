"""The post-match analysis in a real browser, in German and English: a finished gin match and a finished Rommé
list first say the analysis is being computed; once it is stored the page shows each person's accuracy, the
costliest moments and every decision, and a click on a moment moves the replay to the position of that move."""

from __future__ import annotations

import re
import time

import pytest
from django.contrib.auth import get_user_model

from games import analysis, services
from games.models import Match, MatchAnalysis
from games.services import analysis as match_analysis
from tests.browser.conftest import elsewhere, serving
from tests.games.helpers import play_out

pytestmark = pytest.mark.browser

WORDS = {
    "de": {"pending": "Analyse wird berechnet", "title": "Analyse", "accuracy": "Genauigkeit",
           "jump": "Im Nachspielen zeigen", "round": "Runde", "expert": "der Experte"},
    "en": {"pending": "Analysis being computed", "title": "Analysis", "accuracy": "Accuracy",
           "jump": "Show in the replay", "round": "Round", "expert": "the expert"},
}


@pytest.fixture
def seeded_settings(settings):
    settings.GAMES_TEST_DEAL_SEED = "analysis-browser"
    settings.GAMES_BOT_DELAY_SECONDS = 0


def finished(game: str) -> Match:
    def played() -> Match:
        anna = get_user_model().objects.create_user("anna", "anna@example.com", "Herz-Dame-23!")
        if game == "gin":
            table = services.table_create(user=anna, game="gin", preset="schnell", bots="simple")
        else:
            table = services.table_create(user=anna, game="romme", preset="standard",
                                          options={"seats": 2, "rounds": 1}, bots="simple")
        return Match.objects.get(pk=play_out(table.pk, [anna, None]).current_match_id)

    return elsewhere(played)


def analysed(match: Match) -> dict:
    def run() -> dict:
        data = match_analysis.analyse_match(match, seconds=0.02).data
        # One decision surely costly, so that the page has a moment to click whatever the playouts said (one
        # where the expert differs, if there is one).
        differing = [d for d in data["decisions"] if d["action"] != d["best"]] or data["decisions"]
        differing[-1]["cost"] = 12.0
        data = analysis.summarise(data["decisions"], [0])
        MatchAnalysis.objects.filter(match=match).update(data=data)
        return data

    return elsewhere(run)


@pytest.mark.parametrize("game", ["gin", "romme"])
def test_the_analysis_of_a_finished_match_in_both_languages(live_server_url, seeded_settings, new_page, screenshot,
                                                           game):
    match = finished(game)
    url = f"/partie/{match.pk}/"
    pages = {language: new_page(locale="de-DE" if language == "de" else "en-GB") for language in ("de", "en")}
    for language, page in pages.items():
        page.goto(url)
        card = page.locator("#analysis")
        assert card.get_attribute("data-state") == "pending"
        assert WORDS[language]["pending"] in card.inner_text()

    data = analysed(match)
    for language, page in pages.items():
        words = WORDS[language]
        page.goto(url)
        page.wait_for_selector("#replay[data-ready='true']")
        card = page.locator("#analysis")
        assert card.get_attribute("data-state") == "ready"
        assert card.locator("h2").inner_text() == words["title"]
        seats = card.locator(".an-seats").inner_text()
        assert words["accuracy"] in seats and f"{data['seats']['0']['accuracy']} %" in seats
        moments = card.locator(".an-moment")
        assert moments.count() == len(data["top"]) >= 1
        first = moments.nth(0)
        assert words["round"] in first.inner_text() and words["expert"] in first.inner_text()
        costliest = data["decisions"][data["top"][0]]
        assert re.search(rf"\b{costliest['round']}\b", first.inner_text())
        # Every decision is in the table, the highlighted ones marked.
        assert card.locator(".an-decisions tbody tr").count() == len(data["decisions"])
        assert card.locator(".an-decisions tr.is-top").count() == len(data["top"])
        # One click: the replay shows the position the costliest move led to, the move in its line.
        jump = first.locator(".an-jump")
        assert jump.inner_text() == words["jump"]
        target = jump.get_attribute("data-replay-position")
        page.locator("#rv-slider").evaluate("slider => slider.blur()")
        jump.click()
        page.wait_for_function(
            "target => document.getElementById('rv-board').dataset.position === target", arg=target)
        current = page.locator("#rv-moves li.is-current")
        assert current.get_attribute("data-position") == target
        assert page.locator("#rv-move").inner_text().strip()
        card.scroll_into_view_if_needed()
        screenshot(page, f"analysis-{game}-{language}")


@pytest.fixture(scope="module")
def analysing_referee(django_db_setup, django_db_blocker, tmp_path_factory, browser):
    """daphne and ``manage.py referee`` whose clock analyses finished matches (quick ticks, small budgets)."""
    extra_env = {"GAMES_ANALYSIS_SECONDS": "0.02", "GAMES_TICK_SECONDS": "0.2"}
    with serving(tmp_path_factory.mktemp("analysis_server"), extra_env=extra_env, referee=True) as server:
        yield server


def test_the_referee_s_clock_analyses_a_finished_match_in_its_worker(analysing_referee, live_server_url,
                                                                     seeded_settings, new_page):
    def played() -> Match:
        # Two people: no computer player for this process and the running referee to race for.
        anna = get_user_model().objects.create_user("anna", "anna@example.com", "Herz-Dame-23!")
        ben = get_user_model().objects.create_user("ben", "ben@example.com", "Herz-Dame-23!")
        table = services.table_create_seated(game="gin", users=[anna, ben], preset="schnell")
        return Match.objects.get(pk=play_out(table.pk, [anna, ben]).current_match_id)

    match = elsewhere(played)

    def stored() -> MatchAnalysis | None:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            row = MatchAnalysis.objects.filter(match=match).first()
            if row is not None and (row.data is not None or row.error):  # not merely claimed
                return row
            time.sleep(0.3)
        return None

    row = elsewhere(stored)
    assert row is not None, f"the referee never stored the analysis:\n{analysing_referee.log_tail()}"
    assert not row.error and row.data["decisions"]
    assert {d["seat"] for d in row.data["decisions"]} == {0, 1}
    page = new_page()
    page.goto(f"/partie/{match.pk}/")
    assert page.locator("#analysis").get_attribute("data-state") == "ready"
