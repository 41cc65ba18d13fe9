"""The staff's create form in a real browser (issue 27.6): choosing the kind swaps the option fields in place (no
reload), only the chosen kind's fields are posted, and the form fits a 390 px phone with controls large enough
to tap. The server's own rules (another kind's fields refused) are tested in tests/tournaments."""

from __future__ import annotations

import re

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model

from tournaments.models import Tournament

pytestmark = pytest.mark.browser

PASSWORD = "Kreuz-Bube-17!"


def sign_in_staff(page) -> None:
    user = get_user_model().objects.create_user("leitung", "leitung@example.com", PASSWORD, is_staff=True)
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    page.goto("/accounts/login/")
    page.fill("#id_login", "leitung")
    page.fill("#id_password", PASSWORD)
    page.locator("main").locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"^(?!.*/accounts/login/).*$"))


def test_choosing_the_kind_swaps_the_fields_in_place_and_posts_only_the_chosen_ones(new_page, screenshot):
    page = new_page("de-DE")
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    sign_in_staff(page)
    page.goto("/turniere/leitung/neu/")
    series = page.locator('fieldset[data-kind="romme:series"]')
    swiss = page.locator('fieldset[data-kind="gin:swiss"]')
    assert series.is_visible() and not swiss.is_visible()
    assert series.get_by_label("Runden je Liste").is_visible()
    page.evaluate("window.__sameDocument = true")  # gone if the page reloads

    page.select_option("#id_create_kind", "gin:swiss")
    swiss.wait_for(state="visible")
    assert not series.is_visible() and page.evaluate("window.__sameDocument") is True
    assert swiss.locator("[name=rounds]").is_enabled() and series.locator("[name=rounds]").is_disabled()
    assert swiss.get_by_label("Kampflos verloren nach (Minuten)").is_visible()
    screenshot(page, "tournament-create-swiss-1366")

    # Something typed into the Rommé set before the swap stays behind, not posted.
    page.select_option("#id_create_kind", "romme:series")
    series.locator("[name=table_size]").fill("5")
    page.select_option("#id_create_kind", "gin:swiss")
    page.fill("#id_create_name", "Gin am Freitag")
    swiss.locator("[name=rounds]").fill("4")
    swiss.locator("[name=turn_seconds]").select_option("60")
    page.locator("form.tn-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/turniere/\d+/leitung/$"))

    t = Tournament.objects.get()
    assert (t.name, t.game, t.format) == ("Gin am Freitag", "gin", "swiss")
    assert t.settings["rounds"] == 4 and "table_size" not in t.settings
    assert t.options["turn_seconds"] == 60
    assert errors == []


def test_the_create_form_fits_a_phone_with_controls_large_enough_to_tap(new_page, screenshot):
    page = new_page("de-DE")
    sign_in_staff(page)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/turniere/leitung/neu/?kind=gin:knockout")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    heights = page.evaluate("""[...document.querySelectorAll(
        'fieldset:not([disabled]) input:not([type=checkbox]):not([type=hidden]), fieldset:not([disabled]) select')]
        .map(el => el.getBoundingClientRect().height)""")
    assert heights and min(heights) >= 44
    screenshot(page, "tournament-create-knockout-390")


def test_a_drafts_staff_page_with_its_edit_form_and_the_cancel_box_fits_a_phone(new_page, screenshot):
    from tournaments import services as tournament_services

    page = new_page("de-DE")
    sign_in_staff(page)
    staff = get_user_model().objects.get(username="leitung")
    t = tournament_services.tournament_create(by=staff, name="Rommé-Abend", game="romme", format="series")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"/turniere/{t.pk}/leitung/")
    assert page.locator("form.tn-edit [name=table_size]").is_visible()
    assert page.locator(".tn-danger button.button-danger").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "tournament-staff-draft-390")
