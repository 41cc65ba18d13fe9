"""A Rommé joker swap whose freed joker goes into a new meld (or into the opening), played from the table page:
the player builds the new meld with the joker beside the melds being built and sends swap and lay as one
action, or plays the swap the Tipp names from the button the legal actions give. Positions are written out card
by card into the table's state while it is the player's turn (no referee runs beside this server)."""

import pytest
from django.db.models import F

from accounts.models import Profile
from games import registry, services
from games.models import Table
from tests.browser.conftest import SCREENSHOT_DIR, signed_in_page
from tests.browser.people import confirmed_user
from tests.engine.romme.helpers import position

pytestmark = pytest.mark.browser


@pytest.fixture
def open_page(browser, live_server_url):
    contexts = []

    def make(user, *, locale="de-DE"):
        return signed_in_page(browser, live_server_url, user, contexts, locale=locale,
                              viewport={"width": 1280, "height": 900})

    yield make
    for context in contexts:
        context.close()


def table_at(hands, **kwargs):
    """A two-seat Rommé table of anna (seat 0) and ben, seat 0 to lay or discard in the position written out."""
    anna, ben = confirmed_user("anna"), confirmed_user("ben")
    table = services.table_create_seated(game="romme", users=[anna, ben], options={"seats": 2}, ranked=False)
    entry = registry.get("romme")
    match = entry.engine.Match.from_json(Table.objects.get(pk=table.pk).state)
    match.round = position(hands, **kwargs)
    Table.objects.filter(pk=table.pk).update(state=entry.stored_state(match), version=F("version") + 1,
                                             turn_deadline=None)
    return table.pk, anna


def view(page):
    return page.evaluate("window.gameTable.frame.view")


def ready(page, table_id):
    page.goto(f"/spielen/tisch/{table_id}/")
    page.wait_for_selector("#table-app[data-connected='1'][data-hand]")
    page.wait_for_function("() => window.gameTable.moving === 0")


def card(page, key):
    page.click(f"#hand .pcard[data-key='{key}']")


def sent_and_answered(page, click):
    version = page.evaluate("window.gameTable.version")
    click()
    page.wait_for_function(f"() => window.gameTable.version > {version}")


def test_a_player_swaps_a_joker_and_lays_a_new_meld_with_it_built_on_the_page(live_server_url, open_page):
    # Opened; the joker of ben's 7D 8D JK TD stands for the 9D of the hand: with 5H 5C it makes a set.
    table_id, anna = table_at(["5H 5C 9D KS", "2S 3S 4D"], drawn="2D", melds=((1, "7D 8D JK TD"),), opened=(0,))
    page = open_page(anna)
    ready(page, table_id)
    card(page, "9D#0")
    # The listed swaps: the joker laid off again, the solver's new meld, and the one the player builds.
    assert page.locator(".btn-swap").count() == 2
    assert page.locator(".btn-swap-lay").count() == 1
    assert "tauschen und auslegen" in page.locator(".btn-swap-lay").inner_text()
    page.click(".btn-swap-take")
    token = page.locator("#swap-joker [data-swap-key]")
    assert token.get_attribute("aria-pressed") == "true"
    assert "is-staged" in page.locator("#hand .pcard[data-key='9D#0']").get_attribute("class")
    # Bad input first: the joker with 5H and KS is no meld; the page says so and will not send it.
    card(page, "5H#0")
    card(page, "KS#0")
    page.click("#btn-stage")
    page.wait_for_selector("#melds .meld--staged[data-status='invalid']")
    assert page.locator("#btn-swap-lay-out").is_disabled()
    page.click("#melds .meld--staged")  # back to the hand (and the joker beside the melds being built)
    assert page.locator("#btn-swap-lay-out").is_disabled()  # the joker is in no meld yet
    page.click("#swap-joker [data-swap-key]")
    card(page, "5H#0")
    card(page, "5C#0")
    page.click("#btn-stage")
    page.wait_for_selector("#melds .meld--staged[data-status='ok']")
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT_DIR / "romme_swap_composed.png"))
    sent_and_answered(page, lambda: page.click("#btn-swap-lay-out"))
    after = view(page)
    assert [sorted(m["cards"]) for m in after["melds"]] == [["7D", "8D", "9D", "TD"], ["5C", "5H", "JK"]]
    assert sorted(after["hand"]) == ["2D", "KS"]
    assert [m["action"] for m in after["history"]][-1] == "swap"
    assert page.locator("#swap-joker").count() == 0
    assert not page.errors, page.errors
    state = Table.objects.get(pk=table_id).state
    assert sorted(state["round"]["melds"][1]["cards"]) == ["5C", "5H", "JK"]


def test_a_joker_that_makes_no_new_meld_is_offered_to_lay_off_again_only(live_server_url, open_page):
    # Opened; the joker of 7D 8D JK TD stands for the 9D of the hand, but KS 2C 5H 8S make no meld with it:
    # the swap that lays it off again is offered, the one whose new meld the player builds is not.
    table_id, anna = table_at(["9D KS 2C 5H", "2S 3S 4D"], drawn="8S", melds=((1, "7D 8D JK TD"),), opened=(0,))
    page = open_page(anna)
    ready(page, table_id)
    card(page, "9D#0")
    page.locator(".btn-swap").wait_for()
    assert page.locator(".btn-swap").count() == 1 and page.locator(".btn-swap-lay").count() == 0
    assert page.locator(".btn-swap-take").count() == 0
    sent_and_answered(page, lambda: page.click(".btn-swap"))
    assert sorted(view(page)["melds"][0]["cards"]) == ["7D", "8D", "9D", "JK", "TD"]
    assert not page.errors, page.errors


def test_the_tipps_swap_into_the_opening_is_named_and_played_from_its_button_in_english(live_server_url, open_page):
    # Not opened: 30 in queens; the 9D swapped for the joker of 7D 8D JK TD makes KC KS JK: 60, an opening.
    table_id, anna = table_at(["KC KS QH QS QD 2S 9D", "2S 3S 4D"], drawn="3C", melds=((1, "7D 8D JK TD"),),
                              to_act=0)
    Profile.objects.filter(user=anna).update(language="en")
    page = open_page(anna, locale="en-GB")
    ready(page, table_id)
    page.click("#btn-tip")
    tip = page.locator("#tip-note")
    tip.wait_for(timeout=15_000)
    assert tip.get_attribute("data-action") == "swap"
    assert "Hint: swap" in tip.inner_text() and "for the joker in meld 1 and lay" in tip.inner_text()
    card(page, "9D#0")
    lay = page.locator(".btn-swap-lay")
    assert lay.count() == 1 and lay.inner_text().startswith("Swap")
    sent_and_answered(page, lambda: lay.click())
    after = view(page)
    assert after["opened"][0] is True
    assert sorted(after["hand"]) == ["2S", "3C"]
    assert [m["cards"] for m in after["melds"]][0] == ["7D", "8D", "9D", "TD"]
    assert not page.errors, page.errors



def test_a_hand_romme_below_the_minimum_lays_its_lay_offs_with_the_melds_in_one_action(live_server_url, open_page):
    # Not opened: 2C 3C 4C and three fives are 24 points, short of 40; with the 9H laid off on ben's hearts only
    # the KS is left: a Hand-Rommé, which must be one action (the Tipp names it so).
    table_id, anna = table_at(["2C 3C 4C 5H 5S 5D 9H", "2S 3S 4D"], drawn="KS", melds=((1, "6H 7H 8H"),))
    page = open_page(anna)
    ready(page, table_id)
    page.click("#btn-tip")
    tip = page.locator("#tip-note")
    tip.wait_for(timeout=15_000)
    assert "dazu anlegen" in tip.inner_text() and "an Meldung 1" in tip.inner_text()
    # A card sent to the table's meld before any meld is being built: refused on the page, nothing sent.
    card(page, "9H#0")
    page.click("#melds .meld[data-meld='1']")
    page.locator("#toast").get_by_text("passt nicht an Meldung 1").wait_for()
    # Chosen no more (a click without a second one in time: two quick clicks would discard it).
    page.locator("#hand .pcard[data-key='9H#0']").dispatch_event("click")
    assert page.evaluate("window.gameTable.selected") == []
    for meld in (("2C#0", "3C#0", "4C#0"), ("5H#0", "5S#0", "5D#0")):
        for key in meld:
            card(page, key)
        page.click("#btn-stage")
    card(page, "9H#0")
    page.click("#melds .meld[data-meld='1']")
    chip = page.locator("#melds [data-staged-layoff='9H#0']")
    chip.wait_for()
    assert "an Meldung 1" in chip.inner_text()
    assert "is-staged" in page.locator("#hand .pcard[data-key='9H#0']").get_attribute("class")
    page.wait_for_function("() => !document.querySelector('#btn-lay-out').disabled")
    sent_and_answered(page, lambda: page.click("#btn-lay-out"))
    after = view(page)
    assert after["hand"] == ["KS"] and after["opened"][0] is True
    assert sorted(after["melds"][0]["cards"]) == ["6H", "7H", "8H", "9H"]
    assert not page.errors, page.errors


def test_a_joker_kept_for_the_opening_that_fits_both_ends_of_a_run_goes_to_the_end_the_player_says(
        live_server_url, open_page):
    # Not opened: kings and queens (60) open; the joker fits below and above ben's 5H 6H 7H. A lay-off before
    # opening goes with the opening lay, which must say the end: the page asks, and sends the end chosen.
    table_id, anna = table_at(["KH KS KC QH QS QC JK 9D", "2S 3S 4D"], drawn="2C", melds=((1, "5H 6H 7H"),))
    page = open_page(anna)
    ready(page, table_id)
    assert view(page)["lay_off_both_ends"] == [{"card": "JK", "meld": 1}]
    for meld in (("KH#0", "KS#0", "KC#0"), ("QH#0", "QS#0", "QC#0")):
        for key in meld:
            card(page, key)
        page.click("#btn-stage")
    page.wait_for_selector("#melds .meld--staged[data-status='ok'] >> nth=1")
    card(page, "JK#0")
    page.click("#melds .meld[data-meld='1']")
    assert "unten an Meldung 1" in page.locator("#btn-staged-end-low").inner_text()
    assert "oben an Meldung 1" in page.locator("#btn-staged-end-high").inner_text()
    page.click("#btn-staged-end-low")
    assert page.locator("#btn-staged-end-low").count() == 0
    assert "Joker unten an Meldung 1" in page.locator("#melds [data-staged-layoff='JK#0']").inner_text().replace("\n", " ")
    sent_and_answered(page, lambda: page.click("#btn-lay-out"))
    after = view(page)
    assert after["melds"][0]["cards"] == ["JK", "5H", "6H", "7H"] and after["melds"][0]["stands_for"][0] == "4H"
    assert after["opened"][0] and sorted(after["hand"]) == ["2C", "9D"]
    assert not page.errors, page.errors
