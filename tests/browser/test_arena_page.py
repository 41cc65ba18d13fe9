"""The arena's page in a real browser, served by daphne with the referee inside it (as ``make run`` runs):
the time left counts down, who plays whom now links to the table, the player's own state moves by itself
(at table 1 → paused after leaving the table → waiting → at table 2, paired by the referee's clock while
the page is open, with the "table ready" banner), the standings move live with the strip; English for an
English player; no JavaScript error."""

from __future__ import annotations

import re

import pytest

from games import services as games_services
from tests.browser.conftest import serving, signed_in_page
from tests.factories import users
from tournaments import services as tournament_services
from tournaments.models import StageTable

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WAIT_MS = 20_000


@pytest.fixture
def referee_server(django_db_setup, transactional_db, tmp_path):
    # The referee runs inside daphne (the in-memory channel layer): it pairs the arena on its clock.
    with serving(tmp_path, extra_env={"GAMES_REFEREE_IN_PROCESS": "1"}) as server:
        yield server


def test_the_arena_page_moves_by_itself(browser, referee_server):
    staff, anna, ben = users("leitung", "anna", "ben")
    staff.is_staff = True
    staff.save()
    ben.profile.language = "en"
    ben.profile.save()
    t = tournament_services.tournament_create(by=staff, name="Abendarena", game="gin", format="arena",
                                              settings={"minutes": 30}, options={"target": 0})
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    for user in (anna, ben):
        tournament_services.tournament_register(tournament_id=t.pk, user=user)
    tournament_services.tournament_start(tournament_id=t.pk, by=staff)
    [first] = StageTable.objects.filter(stage__tournament=t)

    contexts: list = []
    try:
        page = signed_in_page(browser, referee_server.url, anna, contexts, locale="de-DE")
        page.goto(f"/turniere/{t.pk}/")
        state = page.locator('[data-role="my-state"]')
        assert "Du spielst an Tisch 1." in state.inner_text()
        assert page.locator('[data-role="my-table"]').get_attribute("href") == f"/spielen/tisch/{first.table_id}/"
        assert "Es spielen gerade" in page.inner_text("body") and "anna · ben" in page.inner_text("body")
        left = page.locator('[data-role="time-left"] time')
        shown = left.inner_text()
        assert re.fullmatch(r"\d+:\d\d", shown) and shown.startswith(("29:", "30:"))
        # The countdown ticks in the page.
        page.wait_for_function("(shown) => document.querySelector('[data-role=time-left] time').textContent !== shown",
                               arg=shown, timeout=WAIT_MS)

        # anna leaves her table: she forfeits it and is paused; her page says so by itself.
        games_services.match_resign(table_id=first.table_id, user=anna)
        page.wait_for_selector('[data-role="my-state"][data-state="paused"]', timeout=WAIT_MS)
        assert page.locator('[data-role="resume"]').is_visible()
        standings = page.locator('section[aria-labelledby="t-standings"]')
        assert re.search(r"1\s+ben\s+2\s+2", standings.inner_text())

        # She comes back: the referee inside daphne pairs her again with ben (nobody else is free), and her
        # page shows the new table and the banner, without a reload.
        page.locator('[data-role="resume"]').click()
        page.wait_for_selector('[data-role="my-state"][data-state="table"]', timeout=WAIT_MS)
        assert "Du spielst an Tisch 2." in page.locator('[data-role="my-state"]').inner_text()
        second = StageTable.objects.get(stage__tournament=t, number=2)
        assert set(second.users) == {anna.pk, ben.pk}
        page.wait_for_selector(f'a[href="/spielen/tisch/{second.table_id}/"]', timeout=WAIT_MS)

        english = signed_in_page(browser, referee_server.url, ben, contexts, locale="en-GB")
        english.goto(f"/turniere/{t.pk}/")
        assert "You are playing at table 2." in english.locator('[data-role="my-state"]').inner_text()
        headers = english.locator('section[aria-labelledby="t-standings"] th').all_inner_texts()
        assert headers == ["Place", "Players", "Points", "Results", "Performance", "Matches"]
        assert english.locator('[data-role="time-left"]').inner_text().startswith("Time left")
        assert page.errors == [] and english.errors == []
    finally:
        for context in contexts:
            context.close()
