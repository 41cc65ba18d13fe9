from pathlib import Path

from django.utils import translation
from django.utils.translation import pgettext


def test_register_and_withdraw_read_register_and_withdraw_in_english():
    with translation.override("en"):
        assert pgettext("tournament", "Anmelden") == "Register"
        assert pgettext("tournament", "Abmelden") == "Withdraw"
    page = Path(__file__).resolve().parents[2] / "templates/tournaments/detail.html"
    text = page.read_text()
    assert '{% translate "Anmelden" context "tournament" %}' in text
    assert '{% translate "Abmelden" context "tournament" %}' in text
