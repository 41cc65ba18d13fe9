"""An independent review of the live-play pages under forged and clumsy forms: bad table options, joining
a full table or twice, leaving a running match, computer players at someone else's table, missing CSRF
tokens and GETs on POST-only pages. Each gets a clear refusal and changes nothing."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from games import services
from games.models import Match, Move, Seat, Table

pytestmark = pytest.mark.django_db


def picture() -> dict:
    """Every table, seat and match: what a refused form must leave as it was."""
    return {
        "tables": list(Table.objects.order_by("pk").values_list("pk", "status", "version", "options", "state")),
        "seats": list(Seat.objects.order_by("pk").values_list("pk", "user_id", "bot_level", "left", "ready")),
        "matches": list(Match.objects.order_by("pk").values_list("pk", "status")),
        "moves": Move.objects.count(),
    }


def signed_in(user, *, csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    return client


def flash(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


@pytest.fixture
def anna(players):
    return players[0]


@pytest.fixture
def ben(players):
    return players[1]


# --- creating a table ---------------------------------------------------------------------------------

BAD_CREATE_FORMS = [
    {"game": "gin", "gin-target": "33"},
    {"game": "gin", "gin-target": "-100"},
    {"game": "gin", "gin-target": "hundert"},
    {"game": "gin", "gin-target": "1e2"},
    {"game": "gin", "gin-target": "99999999999999999999999999"},
    {"game": "gin", "gin-hollywood": "true", "gin-target": "0"},
    {"game": "gin", "gin-preset": "hollywood", "gin-target": "0"},
    {"game": "gin", "gin-hollywood": "vielleicht"},
    {"game": "gin", "gin-variant": "poker"},
    {"game": "gin", "gin-first_turn": "<script>"},
    {"game": "gin", "gin-next_dealer": "nobody"},
    {"game": "gin", "gin-undercut_bonus": "1000"},
    {"game": "gin", "gin-turn_seconds": "0"},
    {"game": "gin", "gin-turn_seconds": "-45"},
    {"game": "gin", "gin-turn_seconds": "86400"},
    {"game": "gin", "gin-preset": "turnier"},
    {"game": "gin", "gin-preset": "../../etc"},
    {"game": "romme", "romme-seats": "7"},
    {"game": "romme", "romme-seats": "1"},
    {"game": "romme", "romme-seats": "0"},
    {"game": "romme", "romme-seats": "vier"},
    {"game": "romme", "romme-rounds": "0"},
    {"game": "romme", "romme-rounds": "1000"},
    {"game": "romme", "romme-opening_points": "35"},
    {"game": "romme", "romme-preset": "hollywood"},
]


@pytest.mark.parametrize("form", BAD_CREATE_FORMS, ids=[";".join(f"{k}={v}" for k, v in f.items()) for f in BAD_CREATE_FORMS])
def test_a_create_form_with_bad_options_is_shown_again_with_the_reason_and_creates_nothing(anna, form):
    client = signed_in(anna)
    before = picture()
    response = client.post(reverse("games:create"), form)
    assert response.status_code == 400
    reason = response.context["form_errors"]
    assert reason and escape(reason) in response.content.decode()
    assert picture() == before
    assert "<script>" not in response.content.decode().split('id="create-error"', 1)[1][:500]


@pytest.mark.parametrize("game", ["", "poker", "GIN", "gin "])
def test_a_create_form_for_no_known_game_creates_nothing_and_says_so(anna, game):
    client = signed_in(anna)
    response = client.post(reverse("games:create"), {"game": game})
    assert response.status_code == 302
    assert flash(response) and Table.objects.count() == 0


def test_the_create_form_still_works_after_the_refusals(anna):
    client = signed_in(anna)
    response = client.post(reverse("games:create"), {"game": "romme", "romme-seats": "3", "romme-opening_points": "30"})
    table = Table.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("games:table", kwargs={"table_id": table.pk})
    assert table.seat_count == 3 and table.options["opening_points"] == 30


def test_a_romme_option_at_a_gin_table_is_refused_by_the_service(anna):
    for options in ({"opening_points": 30}, {"seats": 4}, {"rounds": 4}, {"tournament": True}, {"hollywod": True}):
        with pytest.raises(services.ServiceError) as refused:
            services.table_create(user=anna, game="gin", options=options)
        assert refused.value.code == "bad_options"
    with pytest.raises(services.ServiceError) as refused:
        services.table_create(user=anna, game="romme", options={"target": 100})
    assert refused.value.code == "bad_options"
    assert Table.objects.count() == 0


@pytest.mark.parametrize("field", ["gin-opening_points", "gin-seats", "gin-foo"])
def test_a_forged_option_field_on_the_create_form_is_refused(anna, field):
    client = signed_in(anna)
    response = client.post(reverse("games:create"), {"game": "gin", field: "4"})
    assert response.status_code == 400
    assert Table.objects.count() == 0


def test_a_ranked_table_does_not_take_computer_players(anna):
    client = signed_in(anna)
    client.post(reverse("games:create"), {"game": "gin", "ranked": "on"})
    table = Table.objects.get()
    assert table.ranked
    before = picture()
    response = client.post(reverse("games:bots", kwargs={"table_id": table.pk}), {"level": "expert"})
    assert response.status_code == 302 and flash(response)
    assert picture() == before


# --- quick games --------------------------------------------------------------------------------------


def test_a_quick_game_for_an_unknown_game_is_not_found(anna):
    assert signed_in(anna).post("/spielen/schnellspiel/poker/").status_code == 404
    assert Table.objects.count() == 0


@pytest.mark.parametrize("level", ["godlike", "SIMPLE", "<b>"])
def test_a_quick_game_with_a_forged_level_creates_no_table(anna, level):
    response = signed_in(anna).post(reverse("games:quick", kwargs={"game": "gin"}), {"level": level})
    assert response.status_code == 302 and flash(response)
    assert Table.objects.count() == 0, "a refused quick game left an open table behind"


# --- joining and leaving ------------------------------------------------------------------------------


@pytest.fixture
def open_gin(anna):
    return services.table_create(user=anna, game="gin", preset="klassisch")


def test_joining_a_full_table_is_refused_and_changes_nothing(open_gin, ben, players):
    services.table_join(table_id=open_gin.pk, user=ben)
    before = picture()
    cleo = signed_in(players[2])
    for seat in ("", "0", "1"):
        response = cleo.post(reverse("games:join", kwargs={"table_id": open_gin.pk}), {"seat": seat})
        assert response.status_code == 302 and flash(response)
    assert picture() == before


def test_joining_twice_changes_nothing(open_gin, ben):
    client = signed_in(ben)
    client.post(reverse("games:join", kwargs={"table_id": open_gin.pk}), {"seat": "1"})
    services.table_create(user=ben, game="romme")  # ben's seat elsewhere must not matter either
    before = picture()
    response = signed_in(open_gin.created_by).post(reverse("games:join", kwargs={"table_id": open_gin.pk}))
    assert response.status_code == 302
    assert picture() == before


@pytest.mark.parametrize("seat", ["7", "99999999999999999999999"])
def test_joining_a_seat_that_does_not_exist_is_refused(open_gin, ben, seat):
    before = picture()
    response = signed_in(ben).post(reverse("games:join", kwargs={"table_id": open_gin.pk}), {"seat": seat})
    assert response.status_code == 302 and flash(response)
    assert picture() == before


@pytest.mark.parametrize("seat", ["-1", "x", "1.0"])
def test_joining_with_a_forged_seat_is_refused(open_gin, ben, seat):
    before = picture()
    response = signed_in(ben).post(reverse("games:join", kwargs={"table_id": open_gin.pk}), {"seat": seat})
    assert response.status_code == 302 and flash(response)
    assert picture() == before


def test_joining_a_table_that_does_not_exist_is_refused(ben):
    response = signed_in(ben).post(reverse("games:join", kwargs={"table_id": 424242}))
    assert response.status_code in (302, 404)
    assert Seat.objects.count() == 0


def test_joining_a_private_table_needs_the_invitation(anna, ben):
    table = services.table_create(user=anna, game="gin", private=True)
    before = picture()
    for token in ("", "wrong", table.invite_token.upper()):
        response = signed_in(ben).post(reverse("games:join", kwargs={"table_id": table.pk}), {"invite": token})
        assert response.status_code in (302, 404)
    assert picture() == before
    assert signed_in(ben).get(reverse("games:table", kwargs={"table_id": table.pk})).status_code == 404


def test_leaving_after_the_start_is_refused_and_the_seat_is_kept(open_gin, ben, anna):
    services.table_join(table_id=open_gin.pk, user=ben)
    before = picture()
    response = signed_in(ben).post(reverse("games:leave", kwargs={"table_id": open_gin.pk}))
    assert response.status_code == 302 and flash(response)
    assert picture() == before
    assert Table.objects.get(pk=open_gin.pk).status == Table.Status.PLAYING


def test_leaving_a_table_without_a_seat_is_refused(open_gin, ben):
    before = picture()
    response = signed_in(ben).post(reverse("games:leave", kwargs={"table_id": open_gin.pk}))
    assert response.status_code == 302 and flash(response)
    assert picture() == before


def test_computer_players_at_someone_elses_table_are_refused(open_gin, ben):
    before = picture()
    response = signed_in(ben).post(reverse("games:bots", kwargs={"table_id": open_gin.pk}), {"level": "expert"})
    assert response.status_code == 302 and flash(response)
    assert picture() == before


@pytest.mark.parametrize("level", ["godlike", "Expert", "<script>"])
def test_computer_players_of_an_unknown_level_are_refused(open_gin, anna, level):
    before = picture()
    response = signed_in(anna).post(reverse("games:bots", kwargs={"table_id": open_gin.pk}), {"level": level})
    assert response.status_code == 302 and flash(response)
    assert picture() == before


# --- CSRF and methods ---------------------------------------------------------------------------------


def _post_urls(table_id: int) -> list[tuple[str, dict]]:
    return [
        (reverse("games:create"), {"game": "gin"}),
        (reverse("games:quick", kwargs={"game": "gin"}), {}),
        (reverse("games:join", kwargs={"table_id": table_id}), {}),
        (reverse("games:leave", kwargs={"table_id": table_id}), {}),
        (reverse("games:bots", kwargs={"table_id": table_id}), {"level": "simple"}),
    ]


def test_a_post_without_a_csrf_token_is_forbidden_and_changes_nothing(open_gin, anna, ben):
    before = picture()
    for user in (anna, ben):
        client = signed_in(user, csrf=True)
        for url, data in _post_urls(open_gin.pk):
            assert client.post(url, data).status_code == 403, url
            assert client.post(url, {**data, "csrfmiddlewaretoken": "forged" * 8}).status_code == 403, url
    assert picture() == before


def test_a_get_on_a_post_only_page_is_refused_and_changes_nothing(open_gin, ben):
    before = picture()
    client = signed_in(ben)
    for url, data in _post_urls(open_gin.pk):
        assert client.get(url, data).status_code == 405, url
    assert picture() == before


def test_anonymous_posts_go_to_the_sign_in_page_and_change_nothing(open_gin):
    before = picture()
    for url, data in _post_urls(open_gin.pk):
        response = Client().post(url, data)
        assert response.status_code == 302 and "/accounts/" in response["Location"], url
    assert picture() == before


def test_the_table_page_and_record_of_a_missing_table_are_not_found(ben):
    client = signed_in(ben)
    assert client.get(reverse("games:table", kwargs={"table_id": 31337})).status_code == 404
    assert client.get(reverse("games:record", kwargs={"table_id": 31337})).status_code == 404


def test_a_private_tables_record_is_not_found_without_the_invitation(anna, ben):
    table = services.table_create(user=anna, game="gin", private=True)
    services.table_fill_with_bots(table_id=table.pk, user=anna)
    url = reverse("games:record", kwargs={"table_id": table.pk})
    assert signed_in(ben).get(url).status_code == 404
    assert Client().get(url, {"einladung": "wrong"}).status_code == 404
    assert signed_in(anna).get(url).status_code == 200


# --- digits that are not plain digits -------------------------------------------------------------------


def test_joining_with_a_superscript_seat_is_refused_not_a_server_error(open_gin, ben):
    client = Client(raise_request_exception=False)
    client.force_login(ben)
    before = picture()
    response = client.post(reverse("games:join", kwargs={"table_id": open_gin.pk}), {"seat": "²"})
    assert response.status_code == 302
    assert picture() == before


def test_a_record_of_a_superscript_match_number_is_not_found(open_gin, ben):
    services.table_join(table_id=open_gin.pk, user=ben)
    client = Client(raise_request_exception=False)
    response = client.get(reverse("games:record", kwargs={"table_id": open_gin.pk}), {"partie": "²"})
    assert response.status_code == 404


@pytest.mark.parametrize("token", ["ü", "\x00", "x" * 5000, "%00"])
def test_an_invitation_of_any_text_is_refused_without_a_server_error(anna, ben, token):
    table = services.table_create(user=anna, game="gin", private=True)
    client = Client(raise_request_exception=False)
    client.force_login(ben)
    before = picture()
    assert client.get(reverse("games:table", kwargs={"table_id": table.pk}), {"einladung": token}).status_code == 404
    assert client.get(reverse("games:record", kwargs={"table_id": table.pk}), {"einladung": token}).status_code == 404
    response = client.post(reverse("games:join", kwargs={"table_id": table.pk}), {"invite": token})
    assert response.status_code in (302, 404)
    assert picture() == before


def test_a_record_of_a_match_number_beyond_any_integer_is_not_found(open_gin, ben):
    services.table_join(table_id=open_gin.pk, user=ben)
    client = Client(raise_request_exception=False)
    url = reverse("games:record", kwargs={"table_id": open_gin.pk})
    for number in ("99999999999999999999999", "0", "2"):
        assert client.get(url, {"partie": number}).status_code == 404, number
    assert client.get(url, {"partie": "1"}).status_code == 200
