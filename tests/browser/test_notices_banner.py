"""Notices in a real browser: two players wait on the lobby and on the leaderboard, staff press "Jetzt starten"
on the tournament's staff page, and each player's page shows the banner "Dein Tisch ist bereit" with the link
to their own table at once; one click takes them there, and on that table's page no banner for it shows.
Once in German and once in English."""

from __future__ import annotations

import re

import pytest

from tests.browser.people import PASSWORD, confirmed_user
from tournaments import services as tournament_services
from tournaments.models import StageTable

pytestmark = pytest.mark.browser



def make_user(name: str, *, staff: bool = False):
    return confirmed_user(name, is_staff=staff)


def sign_in(page, name: str) -> None:
    page.goto("/accounts/login/")
    page.fill("#id_login", name)
    page.fill("#id_password", PASSWORD)
    page.locator("main").locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"^(?!.*/accounts/login/).*$"))


@pytest.mark.parametrize(("language", "ready", "to_table"), [
    ("de", "Dein Tisch ist bereit", "Zum Tisch"),
    ("en", "Your table is ready", "To the table"),
])
def test_the_banner_appears_on_any_page_with_the_link_to_the_players_table(new_page, screenshot, language, ready,
                                                                            to_table):
    staff = make_user("leitung", staff=True)
    nora, nils = make_user("nora"), make_user("nils")
    t = tournament_services.tournament_create(by=staff, name="Banner-Abend", game="gin", format="swiss",
                                              settings={"rounds": 1, "check_in_minutes": 0, "break_minutes": 0},
                                              options={})
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    for user in (nora, nils):
        tournament_services.tournament_register(tournament_id=t.pk, user=user)

    pages = {}
    for name, path in (("nora", "/spielen/"), ("nils", "/bestenliste/")):
        page = new_page("en-GB" if language == "en" else "de-DE")
        sign_in(page, name)
        page.locator(f".lang-switch button[value={language}]").click()  # the site's own language switch
        page.wait_for_load_state()
        page.goto(path)
        page.locator("#site-notices[data-status=online]").wait_for(state="attached")
        pages[name] = page
    leitung = new_page("de-DE")
    sign_in(leitung, "leitung")
    leitung.goto(f"/turniere/{t.pk}/leitung/")
    leitung.get_by_role("button", name="Jetzt starten").click()
    leitung.wait_for_load_state()

    (st,) = StageTable.objects.filter(stage__tournament=t)
    for page in pages.values():
        banner = page.locator(".site-notice")
        banner.wait_for()
        assert ready in banner.inner_text() and "Banner-Abend" in banner.inner_text()
        link = banner.get_by_role("link", name=to_table)
        assert link.get_attribute("href") == f"/spielen/tisch/{st.table_id}/"
    screenshot(pages["nils"], f"notice-banner-{language}")
    pages["nora"].locator(".site-notice").get_by_role("link", name=to_table).click()
    pages["nora"].wait_for_url(f"**/spielen/tisch/{st.table_id}/")
    pages["nora"].locator("#site-notices[data-status=online]").wait_for(state="attached")
    pages["nora"].wait_for_timeout(500)  # the pending notice of this very table has come and been skipped
    assert pages["nora"].locator(".site-notice").count() == 0
