"""Anonymous (and signed-in) input that used to be a server error (issue 25): a pasted record whose player
name is a lone UTF-16 surrogate (``\\ud800``), ``?partie=`` with 5,000 digits; and a generated fuzz of every
view of games, ratings, tournaments and accounts that reads a query, a form or a path value, with lone
surrogates (escaped in JSON, or as the bytes of one in a URL) and huge integers. None is a 5xx or logs an
error; the paste viewer says what is wrong, with 400."""

from __future__ import annotations

import json
import logging
from urllib.parse import quote

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from games import services
from tests.games.fuzzing import FUZZ

pytestmark = pytest.mark.django_db
ALLOWED = {200, 302, 400, 403, 404, 405, 413, 429}
HUGE = "9" * 5000
SURROGATE_JSON = "\\ud800"  # as a pasted record writes it
SURROGATE_URL = "%ED%A0%80"  # the UTF-8-style bytes of U+D800 (not valid UTF-8)


def gin_record(players: list[str]) -> str:
    return '{"game": "gin", "players": [' + ", ".join(f'"{p}"' for p in players) + '], "rounds": []}'


def test_a_pasted_record_with_a_lone_surrogate_for_a_name_is_a_400_that_says_why(client):
    response = Client(raise_request_exception=False).post("/partie/ansehen/", {"record": gin_record([SURROGATE_JSON, "ben"])})
    assert response.status_code == 400
    assert "einzelnes UTF-16-Ersatzzeichen" in response.content.decode()


@pytest.mark.parametrize("where", ['{"game": "%s", "rounds": []}', '{"game": "gin", "rounds": [{"dealer": "%s"}]}',
                                   '{"game": "gin", "rounds": [], "%s": 1}'])
def test_a_lone_surrogate_anywhere_in_a_pasted_record_is_a_400(where):
    response = Client(raise_request_exception=False).post("/partie/ansehen/", {"record": where % SURROGATE_JSON})
    assert response.status_code == 400
    assert "UTF-16" in response.content.decode()


def test_a_match_number_of_5000_digits_is_refused_not_a_server_error(db):
    anna = get_user_model().objects.create_user("anna", "anna@example.org", "pw-anna-anna-1")
    table = services.table_create(user=anna, game="gin", preset="klassisch")
    response = Client(raise_request_exception=False).get(f"/spielen/tisch/{table.pk}/partie.json?partie={HUGE}")
    assert response.status_code == 404


#: Every view that takes input (from the URL patterns of games, ratings, tournaments and accounts), with
#: ``{n}`` where a path value goes.
GET_PATHS = [
    "/", "/spielen/", "/spielen/tische/", "/spielen/tisch/{n}/", "/spielen/tisch/{n}/partie.json",
    "/partie/{n}/", "/partie/{n}/partie.json", "/partie/tisch/{n}/", "/partie/ansehen/", "/partie/schluessel/",
    "/partie/vergleich/", "/partie/vergleich/{s}/{s}/", "/bestenliste/", "/bestenliste/{s}/",
    "/spielen/gewertet/status.json", "/spielen/gewertet/panel/", "/spielen/gewertet/wertungszahlen.json",
    "/spielen/gewertet/tisch/{n}/wertungszahlen.json", "/turniere/", "/turniere/{n}/", "/turniere/{n}/live/",
    "/turniere/{n}/leitung/", "/turniere/{n}/leitung.csv", "/profil/", "/profil/spieler/{s}/",
    "/accounts/login/", "/accounts/signup/", "/accounts/confirm-email/{s}/",
]
POST_PATHS = [
    "/partie/ansehen/", "/spielen/neu/", "/spielen/schnellspiel/{s}/", "/spielen/tisch/{n}/setzen/",
    "/spielen/tisch/{n}/aufstehen/", "/spielen/tisch/{n}/computer/", "/spielen/gewertet/{s}/",
    "/spielen/gewertet/verlassen/", "/turniere/{n}/anmelden/", "/turniere/{n}/abmelden/",
    "/turniere/{n}/einchecken/", "/turniere/leitung/neu/", "/turniere/{n}/leitung/{s}/", "/profil/bearbeiten/",
    "/accounts/signup/", "/accounts/login/", "/i18n/setlang/",
]
QUERY_NAMES = ["partie", "einladung", "a", "b", "seite", "page", "spiel", "next", "q", "x"]
FORM_NAMES = ["record", "game", "gin-target", "seat", "invite", "level", "display_name", "username", "login",
              "password", "email", "language", "name", "rounds", "starts_at", "action", "player"]

hostile = st.one_of(
    st.sampled_from([HUGE, "-" + HUGE, "1" * 20, "0" * 4301, SURROGATE_URL, SURROGATE_URL * 3, "%00", "1e999",
                     "%F0%9F%98%80", "%C0%AF", "%FF"]),
    st.text(max_size=20).map(lambda t: quote(t.encode("utf-8", "surrogatepass"), safe="")),
)


def json_with_surrogates(draw_from: st.DrawFn) -> str:
    name = draw_from(st.sampled_from([SURROGATE_JSON, "\\udfff", "\\ud83d", "a\\ud800b", HUGE]))
    shape = draw_from(st.sampled_from([
        '{"game": "gin", "players": ["%s", "b"], "rounds": []}',
        '{"game": "romme", "options": {"rounds": %s}, "rounds": []}',
        '{"game": "gin", "rounds": [{"dealer": %s, "hands": [], "moves": []}]}',
        '{"game": "gin", "signature": {"value": "%s"}, "rounds": []}',
    ]))
    return shape % name


@st.composite
def requests(draw):
    method = draw(st.sampled_from(["GET", "POST"]))
    path = draw(st.sampled_from(GET_PATHS if method == "GET" else POST_PATHS))
    path = path.replace("{n}", draw(st.sampled_from(["1", "999999", HUGE]))).replace(
        "{s}", draw(st.sampled_from(["gin", SURROGATE_URL, HUGE, "%FF"])))
    query = draw(st.dictionaries(st.sampled_from(QUERY_NAMES), hostile, max_size=3))
    url = path + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")
    if method == "GET":
        return method, url, None
    fields = draw(st.dictionaries(st.sampled_from(FORM_NAMES), hostile, max_size=4))
    body = "&".join(f"{k}={v}" for k, v in fields.items())
    if "ansehen" in path or draw(st.booleans()):
        body += ("&" if body else "") + "record=" + quote(json_with_surrogates(draw), safe="")
    return method, url, body


def test_hostile_query_form_and_path_values_are_never_a_server_error(db, caplog):
    caplog.set_level(logging.WARNING)
    anna = get_user_model().objects.create_user("anna", "anna@example.org", "pw-anna-anna-1")
    services.table_create(user=anna, game="gin", preset="klassisch")

    @FUZZ
    @given(signed_in=st.booleans(), request=requests())
    def run(signed_in, request):
        method, url, body = request
        cache.clear()
        caplog.clear()
        client = Client(raise_request_exception=False)
        if signed_in:
            client.force_login(anna)
        if method == "GET":
            response = client.get(url)
        else:
            response = client.generic("POST", url, body, content_type="application/x-www-form-urlencoded")
        case = f"{method} {url[:300]} {str(body)[:300]}"
        assert response.status_code in ALLOWED, (case, response.status_code)
        logged = [f"{r.name}: {r.getMessage()[:200]}" for r in caplog.records
                  if (r.levelno >= logging.ERROR or r.exc_info) and not r.name.startswith("django.security.")]
        assert logged == [], case

    run()


def test_the_pasted_record_text_with_a_surrogate_is_not_echoed_into_the_page_broken():
    text = json.dumps({"game": "gin", "players": ["\ud800"], "rounds": []})  # ensure_ascii: "\ud800" escaped
    response = Client(raise_request_exception=False).post("/partie/ansehen/", {"record": text})
    assert response.status_code == 400
    response.content.decode("utf-8")  # the page is valid UTF-8
