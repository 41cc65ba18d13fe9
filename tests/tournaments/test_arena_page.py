"""The arena's page (spec/tournaments.md "Arena", "What everyone sees"): the time left, who plays whom now, the
standings with each player's strip and the fire mark, the player's own state with pause and resume; German
and English; a pause from someone not playing is refused with a message and changes nothing."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.games.helpers import play_out
from tests.tournaments.helpers import started, users_of
from tests.tournaments.test_arena import GIN, running_tables
from tests.tournaments.test_english_pages import english
from tournaments import services as tournament_services
from tournaments.models import Entry

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _present(settings):
    settings.TOURNAMENTS_ARENA_PRESENT_SECONDS = 3600


def page(client, t):
    return client.get(reverse("tournaments:detail", args=[t.pk])).content.decode()


def section(html, role):
    found = re.search(rf'<[a-z]+[^>]*data-role="{role}"[^>]*>(.*?)</(p|section)>', html, re.S)
    return found.group(1) if found else ""


def test_the_page_shows_the_time_left_and_who_plays_whom_with_links_to_watch(client, staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="Arena", **GIN)
    html = page(client, t)
    left = section(html, "time-left")
    assert left.strip().startswith("Noch") and "<time data-countdown datetime=" in left
    for st in running_tables(t):
        assert reverse("games:table", args=[st.table_id]) in html
    assert html.count("Zuschauen") == 2


def test_the_player_sees_their_table_and_a_pause_button(client, staff, make_players):
    players = make_players(2)
    t = started(staff, players, name="Arena", **GIN)
    [st] = running_tables(t)
    client.force_login(players[0])
    html = page(client, t)
    assert 'data-state="table"' in html and "Du spielst an Tisch 1." in section(html, "my-state")
    assert f'href="{reverse("games:table", args=[st.table_id])}" data-role="my-table"' in html
    assert 'data-role="pause"' in html and 'data-role="resume"' not in html


def test_pause_and_resume_from_the_page(client, staff, make_players):
    players = make_players(2)
    t = started(staff, players, name="Arena", **GIN)
    [st] = running_tables(t)
    play_out(st.table_id, users_of(st.users))
    client.force_login(players[0])
    assert 'data-state="waiting"' in page(client, t)
    client.post(reverse("tournaments:pause", args=[t.pk]))
    html = page(client, t)
    assert 'data-state="paused"' in html and 'data-role="resume"' in html
    assert Entry.objects.get(tournament=t, user=players[0]).paused
    client.post(reverse("tournaments:resume", args=[t.pk]))
    assert not Entry.objects.get(tournament=t, user=players[0]).paused
    assert 'data-state="waiting"' in page(client, t)


def test_a_pause_posted_by_someone_not_playing_is_refused_with_a_message(client, staff, make_players):
    players = make_players(3)
    t = started(staff, players[:2], name="Arena", **GIN)
    client.force_login(players[2])
    response = client.post(reverse("tournaments:pause", args=[t.pk]), follow=True)
    assert "Du spielst in diesem Turnier nicht mit." in response.content.decode()
    assert not Entry.objects.filter(tournament=t, paused=True).exists()
    assert not Entry.objects.filter(tournament=t, user=players[2]).exists()


def test_someone_not_playing_may_join_the_running_arena_from_the_page(client, staff, make_players):
    players = make_players(3)
    t = started(staff, players[:2], name="Arena", **GIN)
    client.force_login(players[2])
    assert 'data-role="join"' in page(client, t)
    client.post(reverse("tournaments:register", args=[t.pk]))
    assert Entry.objects.get(tournament=t, user=players[2]).status == Entry.Status.PLAYING
    assert 'data-state="waiting"' in page(client, t)


def test_the_standings_show_the_strip_and_the_fire_mark(client, staff, make_players):
    players = make_players(2)
    t = started(staff, players, name="Arena", **GIN)
    for _ in range(2):
        [st] = running_tables(t)
        play_out(st.table_id, users_of(st.users))
        tournament_services.tournament_pair(tournament_id=t.pk,
                                            now=t.started_at + tournament_services.clock_minutes(2))
    html = page(client, t)
    standings = re.search(r'<section aria-labelledby="t-standings">.*?</section>', html, re.S).group(0)
    assert re.findall(r"<th>([^<]*)</th>", standings) == ["Platz", "Spieler", "Punkte", "Verlauf", "Leistung",
                                                          "Partien"]
    rows = re.findall(r"<tr><td>(\d+)</td><td>([^<]*)</td>\s*<td>(\d+)</td><td>([^<]*)</td>", standings)
    assert len(rows) == 2
    strips = {strip.replace(" 🔥", "") for _place, _name, _points, strip in rows}
    assert all(set(s.split()) <= {"0", "2"} and len(s.split()) == 2 for s in strips)
    # On fire exactly who won both: two wins in a row.
    assert all(("🔥" in strip) == (strip.startswith("2 2")) for *_r, strip in rows)


def test_the_arena_page_in_english(client, staff, make_players):
    players = make_players(2)
    t = started(staff, players, name="Arena", **GIN)
    english(players[0])
    client.force_login(players[0])
    html = page(client, t)
    assert "You are playing at table 1." in section(html, "my-state")
    assert "Arena: 20 minutes, paired as soon as you are free" in html
    assert "Win: 2 points; after two wins in a row each further win counts double" in html
    assert "No new pairings in the last 2 minutes; matches still running count" in html
    assert section(html, "time-left").strip().startswith("Time left")
    assert re.search(r'data-role="pause">Pause</button>', html)
    standings = re.search(r'<section aria-labelledby="t-standings">.*?</section>', html, re.S).group(0)
    assert re.findall(r"<th>([^<]*)</th>", standings) == ["Place", "Players", "Points", "Results", "Performance",
                                                          "Matches"]


def test_the_pages_live_refresh_marks_the_player_present(client, staff, make_players):
    players = make_players(2)
    t = started(staff, players, name="Arena", **GIN)
    Entry.objects.filter(tournament=t).update(seen_at=timezone.now() - timedelta(hours=1))
    client.force_login(players[0])
    client.get(reverse("tournaments:live", args=[t.pk]))
    assert Entry.objects.get(tournament=t, user=players[0]).seen_at > timezone.now() - timedelta(minutes=1)
    assert Entry.objects.get(tournament=t, user=players[1]).seen_at < timezone.now() - timedelta(minutes=30)


def test_a_romme_arena_says_its_tables_and_the_table_of_two(client, staff, make_players):
    t = started(staff, make_players(3), name="Rommé-Arena", game="romme", format="arena",
                settings={"minutes": 60}, options={"rounds": 1})
    html = page(client, t)
    for words in ("Arena: 60 Minuten, gepaart, sobald man frei ist",
                  "Tische zu 4 oder 3; Platz 2 an Tischen ab 3 Spielern: 1 Punkt",
                  "Zwei Übrige spielen nach einer Minute Warten zu zweit",
                  "In den letzten 5 Minuten keine neuen Paarungen; laufende Partien zählen"):
        assert words in html, words
    assert "Pause zwischen" not in html and "Kein Einchecken nötig" in html
