from pathlib import Path

from django.utils import translation
from django.utils.translation import pgettext


def test_register_and_withdraw_read_register_and_withdraw_in_english():
    with translation.override("en"):
        assert pgettext("tournament", "Anmelden") == "Register"
        assert pgettext("tournament", "Abmelden") == "Withdraw"
    folder = Path(__file__).resolve().parents[2] / "templates/tournaments"
    text = (folder / "detail.html").read_text() + (folder / "_head.html").read_text()  # the header is a live part
    assert '{% translate "Anmelden" context "tournament" %}' in text
    assert '{% translate "Abmelden" context "tournament" %}' in text


def test_break_minutes_use_the_plural_of_their_number():
    from django.utils.translation import ngettext

    one, many = "%(m)d Minute Pause zwischen den Runden", "%(m)d Minuten Pause zwischen den Runden"
    with translation.override("en"):
        assert ngettext(one, many, 1) % {"m": 1} == "1 minute break between rounds"
        assert ngettext(one, many, 5) % {"m": 5} == "5 minutes break between rounds"
    with translation.override("de"):
        assert ngettext(one, many, 1) % {"m": 1} == "1 Minute Pause zwischen den Runden"
    base = Path(__file__).resolve().parents[2] / "tournaments/formats/base.py"
    assert 'ngettext("%(m)d Minute Pause zwischen den Runden"' in base.read_text()
