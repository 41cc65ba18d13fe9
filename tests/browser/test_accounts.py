"""The account journey in a real browser, in German and in English: sign-up to sign-out."""

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model

pytestmark = pytest.mark.browser

PASSWORD = "Kreuz-Bube-17!"

# What each language must show; the point is the words on the page, not only that pages load.
TEXTS = {
    "de": {
        "locale": "de-DE",
        "home": "Gin Rommé und Rommé online – live am Tisch",
        "signup_link": "Kostenlos registrieren",
        "signup_button": "Registrieren",
        "verify_heading": "Bestätige deine E-Mail-Adresse",
        "mail_subject": "Bitte bestätige deine E-Mail-Adresse",
        "confirm_button": "Bestätigen",
        "confirmed": "Du hast die Adresse {address} bestätigt.",
        "signed_out": "Du hast dich abgemeldet.",
        "sign_in_nav": "Anmelden",
        "sign_in_button": "Anmeldung",
        "sign_out_nav": "Abmelden",
        "profile_nav": "Profil",
        "member_since": "Mitglied seit",
        "edit": "Profil bearbeiten",
        "display_name_label": "Anzeigename",
        "save": "Speichern",
        "saved": "Dein Profil wurde gespeichert.",
    },
    "en": {
        "locale": "en-US",
        "home": "Gin Rummy and Rummy online – live at the table",
        "signup_link": "Sign up for free",
        "signup_button": "Sign Up",
        "verify_heading": "Verify Your Email Address",
        "mail_subject": "Please Confirm Your Email Address",
        "confirm_button": "Confirm",
        "confirmed": "You have confirmed {address}.",
        "signed_out": "You have signed out.",
        "sign_in_nav": "Sign in",
        "sign_in_button": "Sign In",
        "sign_out_nav": "Sign out",
        "profile_nav": "Profile",
        "member_since": "Member since",
        "edit": "Edit profile",
        "display_name_label": "Display name",
        "save": "Save",
        "saved": "Your profile has been saved.",
    },
}


@pytest.mark.parametrize("language", ["de", "en"])
def test_sign_up_confirm_sign_in_edit_profile_sign_out(language, new_page, read_mails, screenshot):
    text = TEXTS[language]
    username, address = f"spieler_{language}", f"spieler_{language}@example.com"
    page = new_page(locale=text["locale"])

    page.goto("/")
    assert page.locator("html").get_attribute("lang") == language
    assert page.get_by_role("heading", level=1).inner_text() == text["home"]
    screenshot(page, f"home_{language}")

    page.get_by_role("link", name=text["signup_link"]).click()
    page.fill("#id_username", username)
    page.fill("#id_email", address)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.locator("main").get_by_role("button", name=text["signup_button"]).click()
    page.get_by_role("heading", name=text["verify_heading"]).wait_for()

    (mail,) = read_mails(to=address)
    assert text["mail_subject"] in mail.subject
    (link,) = [link for link in mail.links if "/accounts/confirm-email/" in link]
    assert not EmailAddress.objects.get(email=address).verified

    page.goto(link)
    page.locator("main").get_by_role("button", name=text["confirm_button"]).click()
    # Confirmed, the player is signed in at once (in the browser that signed up), told that the address is
    # confirmed.
    page.get_by_text(text["confirmed"].format(address=address)).wait_for()
    page.get_by_role("button", name=text["sign_out_nav"]).wait_for()
    assert EmailAddress.objects.get(email=address).verified

    # Out and in again: by e-mail address in one run and by user name in the other.
    page.get_by_role("button", name=text["sign_out_nav"]).click()
    page.get_by_role("link", name=text["sign_in_nav"], exact=True).first.wait_for()
    page.goto("/accounts/login/")
    page.fill("#id_login", address if language == "de" else username)
    page.fill("#id_password", PASSWORD)
    page.locator("main").get_by_role("button", name=text["sign_in_button"]).click()
    page.get_by_role("button", name=text["sign_out_nav"]).wait_for()

    page.locator("header").get_by_role("link", name=text["profile_nav"], exact=True).click()
    assert text["member_since"] in page.locator("main").inner_text()
    page.locator("main").get_by_role("link", name=text["edit"]).first.click()
    page.get_by_label(text["display_name_label"]).fill(f"Kartenhai {language.upper()}")
    page.get_by_role("button", name=text["save"]).click()
    page.get_by_text(text["saved"]).wait_for()
    assert page.get_by_role("heading", level=1).inner_text() == f"Kartenhai {language.upper()}"
    screenshot(page, f"profile_{language}")

    profile = get_user_model().objects.get(username=username).profile
    assert profile.display_name == f"Kartenhai {language.upper()}"
    assert profile.language == language

    page.get_by_role("button", name=text["sign_out_nav"]).click()
    page.get_by_text(text["signed_out"]).wait_for()
    assert page.get_by_role("link", name=text["sign_in_nav"], exact=True).first.is_visible()


def test_language_switch_in_the_header_is_saved_for_a_signed_in_player(new_page):
    anna = get_user_model().objects.create_user(username="anna", email="anna@example.com", password=PASSWORD)
    EmailAddress.objects.create(user=anna, email="anna@example.com", verified=True, primary=True)
    page = new_page(locale="de-DE")
    page.goto("/accounts/login/")
    page.fill("#id_login", "anna")
    page.fill("#id_password", PASSWORD)
    page.locator("main").get_by_role("button", name="Anmeldung").click()
    page.get_by_role("button", name="Abmelden").wait_for()

    page.locator("header").get_by_role("button", name="EN", exact=True).click()

    page.get_by_role("button", name="Sign out").wait_for()
    assert page.locator("html").get_attribute("lang") == "en"
    anna.profile.refresh_from_db()
    assert anna.profile.language == "en"
    # Signed out, the site keeps speaking the player's language.
    page.get_by_role("button", name="Sign out").click()
    page.get_by_text("You have signed out.").wait_for()
    assert page.locator("html").get_attribute("lang") == "en"
