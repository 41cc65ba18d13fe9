"""The pages of live play through Django's test client: the lobby and its create form, quick games, joining
and leaving, private tables and invitations, the table page's first frame, and the record download."""

import json

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from games import services
from games.models import Match, Round, Table

pytestmark = pytest.mark.django_db


@pytest.fixture
def anna():
    return get_user_model().objects.create_user("anna", "anna@example.com", "Kreuz-Bube-17!")


@pytest.fixture
def ben():
    return get_user_model().objects.create_user("ben", "ben@example.com", "Kreuz-Bube-17!")


def config_of(response, script: str = "table-config") -> dict:
    """The JSON the table page hands to its ES module (json_script): its config, or ``table-strings``."""
    html = response.content.decode()
    start = html.index(f'<script id="{script}" type="application/json">') + len(
        f'<script id="{script}" type="application/json">'
    )
    return json.loads(html[start : html.index("</script>", start)])


def test_lobby_is_at_spielen_and_lists_public_open_tables_only(client, anna, ben):
    public = services.table_create(user=anna, game="gin", preset="oklahoma")
    services.table_create(user=ben, game="romme", private=True)
    response = client.get("/spielen/")
    assert response.status_code == 200
    assert reverse("games:lobby") == "/spielen/"
    tables = [t["id"] for t in response.context["tables"]]
    assert tables == [public.pk]
    html = response.content.decode()
    assert "Oklahoma" in html and "Schnellspiel gegen den Computer" in html


def test_lobby_table_list_fragment_has_join_and_spectate_links(client, anna, ben):
    table = services.table_create(user=anna, game="gin")
    client.force_login(ben)
    html = client.get(reverse("games:lobby_tables")).content.decode()
    assert reverse("games:join", args=[table.pk]) in html
    assert reverse("games:table", args=[table.pk]) in html


def test_create_form_offers_every_option_of_both_rulebooks(client, anna):
    client.force_login(anna)
    html = client.get("/spielen/").content.decode()
    for name in ("target", "variant", "first_turn", "next_dealer", "undercut_bonus", "gin_bonus", "big_gin",
                 "match_bonuses", "hollywood", "turn_seconds"):
        assert f'name="gin-{name}"' in html, name
    for name in ("seats", "opening_points", "rounds", "turn_seconds", "scoring"):
        assert f'name="romme-{name}"' in html, name
    for preset in ("klassisch", "schnell", "oklahoma", "straight", "hollywood", "standard", "turnier"):
        assert f'value="{preset}"' in html, preset


def test_create_table_with_preset_and_details_seats_the_creator(client, anna):
    client.force_login(anna)
    response = client.post(
        reverse("games:create"),
        {"game": "gin", "gin-preset": "klassisch", "gin-target": "150", "gin-big_gin": "true", "gin-turn_seconds": "60"},
    )
    table = Table.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("games:table", args=[table.pk])
    assert table.options["target"] == 150 and table.options["big_gin"] is True and table.options["turn_seconds"] == 60
    assert table.seats.get(index=0).user == anna


def test_create_romme_tournament_preset_sets_tournament_scoring(client, anna):
    client.force_login(anna)
    client.post(reverse("games:create"), {"game": "romme", "romme-preset": "turnier", "romme-seats": "3"})
    table = Table.objects.get()
    assert table.options["scoring"] == "masters" and table.seat_count == 3


def test_create_with_a_bad_option_shows_the_reason_and_creates_nothing(client, anna):
    client.force_login(anna)
    # Hollywood needs a target above 0: the engine refuses, the form comes back with the reason.
    response = client.post(
        reverse("games:create"), {"game": "gin", "gin-preset": "hollywood", "gin-target": "0"}
    )
    assert response.status_code == 400
    assert "hollywood" in response.context["form_errors"]
    assert not Table.objects.exists()
    response = client.post(reverse("games:create"), {"game": "gin", "gin-target": "viele"})
    assert response.status_code == 400 and not Table.objects.exists()
    response = client.post(reverse("games:create"), {"game": "schach"})
    assert response.status_code == 302 and not Table.objects.exists()


def test_creating_needs_a_signed_in_player(client):
    response = client.post(reverse("games:create"), {"game": "gin"})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not Table.objects.exists()


def test_quick_game_against_the_computer_starts_at_once(client, anna):
    client.force_login(anna)
    response = client.post(reverse("games:quick", args=["romme"]))
    table = Table.objects.get()
    assert response["Location"] == reverse("games:table", args=[table.pk])
    assert table.status == Table.Status.PLAYING
    assert [seat.is_bot for seat in table.seats.order_by("index")] == [False, True, True, True]
    assert client.post(reverse("games:quick", args=["poker"])).status_code == 404


def test_join_and_leave_before_the_start(client, anna, ben):
    table = services.table_create(user=anna, game="romme", options={"seats": 3})
    client.force_login(ben)
    client.post(reverse("games:join", args=[table.pk]))
    assert table.seats.get(index=1).user == ben
    response = client.post(reverse("games:leave", args=[table.pk]))
    assert response["Location"] == reverse("games:lobby")
    assert table.seats.get(index=1).user is None


def test_joining_the_last_seat_starts_the_match(client, anna, ben):
    table = services.table_create(user=anna, game="gin")
    client.force_login(ben)
    client.post(reverse("games:join", args=[table.pk]))
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING


def test_fill_with_computer_players_from_the_table_page(client, anna):
    table = services.table_create(user=anna, game="romme", options={"seats": 2})
    client.force_login(anna)
    client.post(reverse("games:bots", args=[table.pk]), {"level": "expert"})
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING and table.seats.get(index=1).bot_level == "expert"


def test_a_refused_join_changes_nothing_and_says_why(client, anna, ben):
    table = services.table_create(user=anna, game="gin", private=True)
    client.force_login(ben)
    response = client.post(reverse("games:join", args=[table.pk]), {"invite": "falsch"}, follow=True)
    assert "privat" in response.content.decode()
    assert table.seats.get(index=1).user is None


def test_a_private_table_is_hidden_without_its_invitation(client, anna, ben):
    table = services.table_create(user=anna, game="gin", private=True)
    client.force_login(ben)
    assert client.get(reverse("games:table", args=[table.pk])).status_code == 404
    url = reverse("games:table", args=[table.pk]) + f"?einladung={table.invite_token}"
    response = client.get(url)
    assert response.status_code == 200
    # The invitation travels on to the socket and the join form.
    assert config_of(response)["ws_path"].endswith(f"?invite={table.invite_token}")
    client.post(reverse("games:join", args=[table.pk]), {"invite": table.invite_token})
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING


def test_the_creator_of_a_private_table_sees_the_invitation_link(client, anna):
    table = services.table_create(user=anna, game="gin", private=True)
    client.force_login(anna)
    response = client.get(reverse("games:table", args=[table.pk]))
    assert f"?einladung={table.invite_token}" in response.content.decode()


def test_table_page_carries_the_seats_own_view_and_a_spectator_gets_none(client, anna, ben):
    table = services.table_create(user=anna, game="gin")
    services.table_join(table_id=table.pk, user=ben)
    client.force_login(anna)
    frame = config_of(client.get(reverse("games:table", args=[table.pk])))["state"]
    assert frame["type"] == "state" and frame["table"]["you"] == 0
    assert len(frame["view"]["hand"]) == 10
    client.logout()
    response = client.get(reverse("games:table", args=[table.pk]))
    frame = config_of(response)["state"]
    assert frame["table"]["you"] is None and "hand" not in frame["view"]
    ben_hand = Table.objects.get(pk=table.pk).state["round"]["hands_now"][1]
    html = response.content.decode()
    assert not any(f'"{card}"' in html for card in ben_hand)


def test_unknown_table_is_404(client):
    assert client.get(reverse("games:table", args=[999])).status_code == 404
    assert client.get(reverse("games:record", args=[999])).status_code == 404


def test_record_download_holds_only_finished_rounds(client, anna, ben):
    table = services.table_create(user=anna, game="gin")
    services.table_join(table_id=table.pk, user=ben)
    table.refresh_from_db()
    match = table.current_match
    response = client.get(reverse("games:record", args=[table.pk]))
    record = json.loads(response.content)
    assert response["Content-Disposition"].startswith("attachment;")
    assert record["game"] == "gin" and record["players"] == ["anna", "ben"] and record["rounds"] == []
    # A finished round's record is published; the round in play never is.
    Round.objects.filter(match=match).update(record={"dealer": 0, "moves": []}, finished_at=match.started_at)
    Round.objects.create(match=match, number=2, deal_hash="x", deal={"secret": True})
    record = json.loads(client.get(reverse("games:record", args=[table.pk])).content)
    published = Round.objects.get(match=match, number=1).deal_hash
    assert record["rounds"] == [{"dealer": 0, "moves": [], "deal_hash": published}]
    assert Match.objects.count() == 1
    # An earlier match by its number; a number that was never played is 404.
    assert client.get(reverse("games:record", args=[table.pk]) + "?partie=1").status_code == 200
    assert client.get(reverse("games:record", args=[table.pk]) + "?partie=7").status_code == 404


def test_table_page_and_lobby_in_english(client, anna):
    table = services.table_create(user=anna, game="gin")
    # A visitor whose browser asks for English (a signed-in player's profile language would win).
    response = client.get(reverse("games:table", args=[table.pk]), HTTP_ACCEPT_LANGUAGE="en")
    strings = config_of(response, "table-strings")
    assert strings["knock"] == "Knock"
    assert strings["pass"] == "Pass"
    assert "Sign in to play" in response.content.decode()
    html = client.get("/spielen/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Quick game against the computer" in html and "Open a table" in html


def test_names_travel_as_plain_text_and_the_pages_escape_them(client, anna):
    # The sign-up form allows no markup in user names; one made behind its back must still show as text.
    odd = get_user_model().objects.create_user('<img src=x onerror="alert(1)">', "odd@example.com", "x")
    table = services.table_create(user=odd, game="romme", preset="standard", options={"seats": 3})
    escaped = "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"

    lobby = client.get("/spielen/").content.decode()
    page = client.get(f"/spielen/tisch/{table.pk}/")

    assert escaped in lobby and "<img src=x" not in lobby
    html = page.content.decode()
    assert escaped in html and "<img src=x" not in html
    # The state frame the page hands to its script carries the name as it is; the script renders text.
    assert config_of(page)["state"]["table"]["seats"][0]["name"] == odd.username
