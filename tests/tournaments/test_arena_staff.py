"""The arena from the staff's side and at a table's end: created from the staff page for either game with
the fields its class declares, its staff page while it runs, the standings CSV, and the end view of one of its
tables (which also keeps the player present)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.games.helpers import play_out
from tests.tournaments.helpers import started, users_of
from tests.tournaments.test_arena import GIN, running_tables
from tournaments import services as tournament_services
from tournaments.models import Entry, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _present(settings):
    settings.TOURNAMENTS_ARENA_PRESENT_SECONDS = 3600


@pytest.mark.parametrize("kind, given, options", [
    ("gin:arena", {"minutes": "45", "target": "50"}, {"target": 50}),
    ("romme:arena", {"minutes": "30", "rounds": ""}, {"rounds": 4}),
])
def test_staff_create_an_arena_of_either_game_from_the_staff_page(client, staff, kind, given, options):
    client.force_login(staff)
    page = client.get(reverse("tournaments:staff_create"), {"kind": kind}).content.decode()
    assert f'<option value="{kind}" selected>' in page and 'name="minutes"' in page
    response = client.post(reverse("tournaments:staff_create"), {"name": "Arena", "kind": kind, **given})
    assert response.status_code == 302, response.content.decode()[:2000]
    t = Tournament.objects.get()
    assert (f"{t.game}:{t.format}", t.settings["minutes"], t.settings["check_in_minutes"]) == (
        kind, int(given["minutes"]), 0)
    assert {k: t.options[k] for k in options} == options


def test_a_posted_arena_length_outside_its_range_is_refused_and_nothing_is_made(client, staff):
    client.force_login(staff)
    response = client.post(reverse("tournaments:staff_create"), {"name": "Arena", "kind": "gin:arena",
                                                                 "minutes": "5"})
    assert response.status_code == 400 and "20 bis 240" in response.content.decode()
    assert not Tournament.objects.exists()


def test_the_staff_page_of_a_running_arena(client, staff, make_players):
    t = started(staff, make_players(4), name="Arena", **GIN)
    st = running_tables(t)[0]
    play_out(st.table_id, users_of(st.users))
    client.force_login(staff)
    page = client.get(reverse("tournaments:staff", args=[t.pk])).content.decode()
    # The finished table's correction names it in the arena's words, with each seat's place.
    assert f"Arena, Tisch {st.number}" in page and f'name="place_{st.users[0]}"' in page


def test_the_standings_csv_of_an_arena(staff, make_players):
    t = started(staff, make_players(2), name="Arena", **GIN)
    [st] = running_tables(t)
    play_out(st.table_id, users_of(st.users))
    text = tournament_services.tournament_standings_csv(tournament_id=t.pk, by=staff)
    header, first, second = text.strip().splitlines()
    assert header == "place;player;points;performance;matches"
    assert first.split(";")[2] == "2" and second.split(";")[2] == "0"


def test_the_end_of_an_arena_table_says_the_next_one_is_being_paired_and_keeps_the_player_present(
        client, staff, make_players):
    players = make_players(2)
    t = started(staff, players, name="Arena", **GIN)
    [st] = running_tables(t)
    play_out(st.table_id, users_of(st.users))
    Entry.objects.filter(tournament=t).update(seen_at=timezone.now() - timedelta(hours=1))
    client.force_login(players[0])
    facts = client.get(reverse("tournaments:table_end", args=[st.table_id])).json()
    assert facts["next"] == "Gleich geht es weiter: dein nächster Tisch wird gepaart." and facts["polling"]
    assert Entry.objects.get(tournament=t, user=players[0]).seen_at > timezone.now() - timedelta(minutes=1)


def test_staff_correct_an_arena_result_and_the_points_follow(staff, make_players):
    t = started(staff, make_players(2), name="Arena", **GIN)
    [st] = running_tables(t)
    play_out(st.table_id, users_of(st.users))
    st.refresh_from_db()
    winner = next(s["user_id"] for s in st.result["seats"] if s["place"] == 1)
    loser = next(u for u in st.users if u != winner)
    tournament_services.tournament_result_correct(
        tournament_id=t.pk, stage_table_id=st.pk, by=staff, reason="Falsch eingetragen",
        result={"seats": [{"user_id": loser, "place": 1}, {"user_id": winner, "place": 2}]})
    points = {r["user_id"]: r["points"] for r in tournament_services.formats.of(t).standings()}
    assert points == {loser: 2, winner: 0}


def test_a_forged_arena_correction_is_refused_and_changes_nothing(staff, make_players):
    t = started(staff, make_players(2), name="Arena", **GIN)
    [st] = running_tables(t)
    play_out(st.table_id, users_of(st.users))
    st.refresh_from_db()
    before = st.result
    for forged in ({"seats": [{"user_id": st.users[0], "place": 9}, {"user_id": st.users[1], "place": 1}]},
                   {"seats": [{"user_id": st.users[0], "place": 1}]}, {"seats": "x"}):
        with pytest.raises(tournament_services.TournamentError) as refused:
            tournament_services.tournament_result_correct(tournament_id=t.pk, stage_table_id=st.pk, by=staff,
                                                          result=forged, reason="?")
        assert refused.value.code == "bad_result"
    st.refresh_from_db()
    assert st.result == before and st.original_result is None


def test_staff_edit_an_arena_draft_with_its_fields(client, staff):
    draft = tournament_services.tournament_create(by=staff, name="Arena", game="gin", format="arena")
    client.force_login(staff)
    page = client.get(reverse("tournaments:staff", args=[draft.pk])).content.decode()
    assert 'name="minutes"' in page and 'name="check_in_minutes"' not in page
    response = client.post(reverse("tournaments:staff_action", args=[draft.pk, "edit"]),
                           {"name": "Arena", "minutes": "90", "target": "100"})
    assert response.status_code == 302, response.content.decode()[:1500]
    draft.refresh_from_db()
    assert draft.settings["minutes"] == 90 and draft.options["target"] == 100
