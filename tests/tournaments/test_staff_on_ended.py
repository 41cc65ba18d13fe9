"""Issue 25: staff pressing "start" on a cancelled tournament got "Erledigt." and nothing happened. Now every
staff action on a finished or cancelled tournament is refused with the reason, on the staff page too, and
changes nothing (the audit log included)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tournaments import services as tournament_services
from tournaments.errors import TournamentError
from tournaments.models import AuditEntry, Tournament

pytestmark = pytest.mark.django_db


def cancelled(staff) -> Tournament:
    t = tournament_services.tournament_create(by=staff, game="gin", format="swiss", name="Sommerturnier")
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    return tournament_services.tournament_cancel(tournament_id=t.pk, by=staff, reason="Gewitter")


@pytest.mark.parametrize("action", ["start", "publish", "next_stage", "pause", "resume", "cancel"])
def test_each_staff_action_on_a_cancelled_tournament_says_why(staff, action):
    t = cancelled(staff)
    logged = AuditEntry.objects.filter(tournament=t).count()
    call = {
        "start": tournament_services.tournament_start, "publish": tournament_services.tournament_publish,
        "next_stage": tournament_services.tournament_next_stage, "pause": tournament_services.tournament_pause,
        "resume": tournament_services.tournament_resume, "cancel": tournament_services.tournament_cancel,
    }[action]
    with pytest.raises(TournamentError) as refused:
        call(tournament_id=t.pk, by=staff)
    assert refused.value.code == "cancelled"
    assert refused.value.message.startswith("Das Turnier ist abgesagt (Gewitter); man kann es nicht mehr ")
    t.refresh_from_db()
    assert t.status == Tournament.Status.CANCELLED
    assert AuditEntry.objects.filter(tournament=t).count() == logged


def test_the_referee_starting_a_cancelled_tournament_stays_silent(staff):
    t = cancelled(staff)
    assert tournament_services.tournament_start(tournament_id=t.pk).status == Tournament.Status.CANCELLED


def test_the_staff_page_shows_the_reason_not_erledigt(staff):
    t = cancelled(staff)
    client = Client()
    client.force_login(staff)
    page = client.post(reverse("tournaments:staff_action", kwargs={"tournament_id": t.pk, "action": "start"}),
                       follow=True)
    html = page.content.decode()
    assert "Das Turnier ist abgesagt (Gewitter); man kann es nicht mehr starten." in html
    assert "Erledigt." not in html
