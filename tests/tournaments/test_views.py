"""The tournament pages: the list, a tournament's page, the staff page with its actions and CSV."""

import pytest
from django.urls import reverse

from tests.tournaments.helpers import play_tournament, started
from tournaments import services as tournament_services
from tournaments.models import AuditEntry, Entry, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def test_list_shows_upcoming_running_and_finished(client, staff, make_players):
    players = make_players(2)
    upcoming = tournament_services.tournament_create(by=staff, name="Bald", game="gin", format="swiss")
    tournament_services.tournament_publish(tournament_id=upcoming.pk, by=staff)
    draft = tournament_services.tournament_create(by=staff, name="Geheim", game="gin", format="swiss")
    done = started(staff, players, name="Vorbei", game="gin", format="swiss",
                   settings={"rounds": 1, "check_in_minutes": 0, "break_minutes": 0}, options={"target": 0})
    play_tournament(done.pk)
    page = client.get(reverse("tournaments:list")).content.decode()
    assert "Bald" in page and "Vorbei" in page and "Geheim" not in page
    assert client.get(reverse("tournaments:detail", args=[draft.pk])).status_code == 404


def test_player_registers_and_withdraws_on_the_page(client, staff, make_players):
    (anna,) = make_players(1)
    t = tournament_services.tournament_create(by=staff, name="Seite", game="romme", format="series")
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    client.force_login(anna)
    page = client.get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    assert "Serien zu je" in page
    client.post(reverse("tournaments:register", args=[t.pk]))
    assert Entry.objects.get(tournament=t, user=anna).status == "registered"
    client.post(reverse("tournaments:withdraw", args=[t.pk]))
    assert Entry.objects.get(tournament=t, user=anna).status == "withdrawn"


def test_tournament_page_shows_tables_standings_and_bracket(client, staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="Baum", game="gin", format="knockout",
                settings={"check_in_minutes": 0, "break_minutes": 0}, options={"target": 0})
    client.force_login(players[0])
    page = client.get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    assert "Turnierbaum" in page and "Zu deinem Tisch" in page
    assert client.get(reverse("tournaments:live", args=[t.pk])).status_code == 200


def test_staff_page_actions_and_csv(client, staff, make_players):
    (anna,) = make_players(1)
    client.force_login(staff)
    response = client.post(reverse("tournaments:staff_create"), {"name": "Abend", "kind": "gin:swiss", "rounds": "3"})
    t = Tournament.objects.get(name="Abend")
    assert response.status_code == 302
    client.post(reverse("tournaments:staff_action", args=[t.pk, "publish"]))
    client.post(reverse("tournaments:staff_action", args=[t.pk, "pause"]), {"reason": "Kaffee"})
    page = client.get(reverse("tournaments:staff", args=[t.pk])).content.decode()
    assert "Kaffee" in page and "Fortsetzen" in page
    assert client.get(reverse("tournaments:staff_csv", args=[t.pk]))["Content-Type"].startswith("text/csv")
    assert list(AuditEntry.objects.filter(tournament=t).values_list("action", flat=True)) == [
        "create", "publish", "pause", "export_csv"]
    client.force_login(anna)
    assert client.get(reverse("tournaments:staff", args=[t.pk])).status_code == 302
