"""English pages of tournaments speak English (issue 27.4): the header (game, format, state), the models'
choice labels, the dates, a final place (not a seat), and the start time in the form the help text offers."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from tests.tournaments.helpers import play_tournament, started
from tournaments import formats, forms
from tournaments.models import Entry, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

FAST = {"check_in_minutes": 0, "break_minutes": 0}


def english(user):
    user.profile.language = "en"
    user.profile.save()


def _text(html):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_a_finished_swiss_in_english(client, staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="Advent", game="gin", format="swiss", settings={"rounds": 2, **FAST},
                options={"target": 0})
    play_tournament(t.pk)
    english(staff)
    client.force_login(staff)
    html = client.get(reverse("tournaments:detail", kwargs={"tournament_id": t.pk})).content.decode()
    header = _text(re.search(r'<p class="tn-meta"[^>]*>.*?</p>', html, re.S).group(0)).strip()
    assert header == "Gin Rummy · Swiss system · finished"  # the site's brand "Gin Rommé" stays elsewhere
    assert "beendet" not in _text(html)
    listing = _text(client.get(reverse("tournaments:list")).content.decode())
    assert "Gin Rummy · Swiss system · finished" in listing
    staff_page = _text(client.get(reverse("tournaments:staff", args=[t.pk])).content.decode())
    assert "Place 1" in staff_page and "Seat 1" not in staff_page
    assert "Gin Rummy · Swiss system · finished" in staff_page


def test_the_choice_labels_in_english():
    with translation.override("en"):
        assert str(Tournament.Status.REGISTRATION.label) == "registration open"
        assert str(formats.get("knockout").label) == "Knockout"  # the format class's label, from the registry
        assert str(Entry.Status.WAITING.label) == "Waiting list"
    with translation.override("de"):
        assert str(Tournament.Status.REGISTRATION.label) == "Anmeldung offen"


def test_an_upcoming_start_in_english_shows_an_english_date(client, staff, make_players):
    from tournaments import services

    start = timezone.localtime(timezone.now() + timedelta(days=3)).replace(hour=20, minute=0, second=0,
                                                                           microsecond=0)
    t = services.tournament_create(by=staff, name="Später", game="gin", format="swiss",
                                   settings={"rounds": 2}, options={"target": 0}, starts_at=start)
    services.tournament_publish(tournament_id=t.pk, by=staff)
    english(staff)
    client.force_login(staff)
    detail = _text(client.get(reverse("tournaments:detail", kwargs={"tournament_id": t.pk})).content.decode())
    with translation.override("en"):
        from django.utils.formats import date_format
        assert date_format(start, "DATETIME_FORMAT") in detail
    assert start.strftime("%a, %-d. %b") not in detail  # the German shape of before


@pytest.mark.parametrize("language", ["de", "en"])
def test_the_start_field_takes_both_forms_its_help_text_offers(language):
    future = timezone.localtime(timezone.now() + timedelta(days=30))
    with translation.override(language):
        field = forms.StartField()
        for text in (future.strftime("%d.%m.%Y %H:%M"), future.strftime("%Y-%m-%d %H:%M")):
            when = field.clean(text)
            assert (when.year, when.month, when.day, when.hour, when.minute) == (
                future.year, future.month, future.day, future.hour, future.minute), text
