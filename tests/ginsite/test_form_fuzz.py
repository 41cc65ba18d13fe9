"""Hostile input to every form and view, generated (hypothesis): sign-up, sign-in, opening a table, the quick
game, taking and leaving seats, computer players, invitations, the table page and the record download, the
profile and the language switch, with forged, missing, repeated, oversized and badly encoded fields, by an
anonymous visitor, a signed-in stranger and the table's creator. None is a server error (5xx) or logs at
ERROR; each is refused (4xx), or sent back to a page with the reason, or does what a real form would."""

from __future__ import annotations

import logging
from urllib.parse import quote, urlencode

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from games import services
from games.models import Table
from tests.games.fuzzing import FUZZ

#: What a refused or accepted request may answer; never 5xx.
ALLOWED = {200, 302, 400, 403, 404, 405, 413, 429}

safe_text = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=40)
values = st.one_of(safe_text, st.sampled_from(["", "on", "true", "false", "1", "-1", "0", "99999999999999999999",
                                               "gin", "romme", "simple", "expert", "klassisch", "turnier", "preset",
                                               "anna", "anna@example.org", "x" * 5000, "../../etc/passwd",
                                               "<script>alert(1)</script>", "١٢", "1e3", " 1", "NaN"]))
FIELDS = ["game", "gin-preset", "romme-preset", "gin-target", "gin-variant", "gin-first_turn", "gin-next_dealer",
          "gin-undercut_bonus", "gin-gin_bonus", "gin-big_gin", "gin-match_bonuses", "gin-hollywood",
          "gin-turn_seconds", "gin-seats", "gin-foo", "romme-seats", "romme-opening_points", "romme-rounds",
          "romme-turn_seconds", "romme-tournament", "ranked", "private", "level", "seat", "invite", "username",
          "email", "password1", "password2", "login", "password", "remember", "display_name", "language",
          "confirm", "next", "csrfmiddlewaretoken"]
form_data = st.dictionaries(st.one_of(st.sampled_from(FIELDS), safe_text),
                            st.one_of(values, st.lists(values, min_size=2, max_size=3)), max_size=8)
raw_bodies = st.one_of(st.binary(max_size=200), st.sampled_from([b"\xff\xfe=\xff", b"a=%ff%fe", b"=" * 3000,
                                                                 b"&".join(b"f%d=1" % i for i in range(1200))]))
query_values = st.one_of(values, st.sampled_from(["%ff", "%", "\x00", "1%00"]))


ENDPOINTS = [
    ("POST", "/accounts/signup/"), ("POST", "/accounts/login/"), ("POST", "/spielen/neu/"),
    ("POST", "/spielen/schnellspiel/gin/"), ("POST", "/spielen/schnellspiel/romme/"),
    ("POST", "/spielen/schnellspiel/schach/"),
    ("POST", "/spielen/tisch/{open}/setzen/"), ("POST", "/spielen/tisch/{private}/setzen/"),
    ("POST", "/spielen/tisch/{open}/aufstehen/"), ("POST", "/spielen/tisch/{private}/aufstehen/"),
    ("POST", "/spielen/tisch/{open}/computer/"), ("POST", "/spielen/tisch/{finished}/setzen/"),
    ("POST", "/spielen/tisch/999999/setzen/"),
    ("GET", "/spielen/tisch/{open}/"), ("GET", "/spielen/tisch/{private}/"),
    ("GET", "/spielen/tisch/{finished}/partie.json"), ("GET", "/spielen/tisch/{private}/partie.json"),
    ("GET", "/spielen/tische/"), ("GET", "/spielen/"),
    ("POST", "/profil/bearbeiten/"), ("POST", "/profil/loeschen/"), ("POST", "/i18n/setlang/"),
    ("GET", "/spielen/tisch/{open}/setzen/"),  # a GET where only POST is meant
]


@pytest.fixture
def world(db, settings):
    settings.GAMES_BOT_DELAY_SECONDS = 0
    settings.GAMES_STATE_POLL_SECONDS = 0
    User = get_user_model()
    anna = User.objects.create_user("anna", "anna@example.org", "pw-anna-anna-1")
    ben = User.objects.create_user("ben", "ben@example.org", "pw-ben-ben-12")
    cleo = User.objects.create_user("cleo", "cleo@example.org", "pw-cleo-cleo-1")
    open_table = services.table_create(user=anna, game="gin", preset="klassisch")
    private = services.table_create(user=anna, game="romme", preset="standard", private=True)
    finished = services.table_create(user=cleo, game="gin", preset="schnell", bots="simple")
    from tests.games.helpers import play_out

    play_out(finished.pk, [cleo, None])
    return {"users": {"anonymous": None, "stranger": ben, "creator": anna},
            "ids": {"open": open_table.pk, "private": private.pk, "finished": finished.pk},
            "private_token": Table.objects.get(pk=private.pk).invite_token}


@pytest.mark.parametrize("method, path", ENDPOINTS, ids=[f"{m} {p}" for m, p in ENDPOINTS])
def test_forged_input_is_never_a_server_error(world, caplog, method, path):
    caplog.set_level(logging.WARNING)
    users = world["users"]
    path = path.format(**world["ids"])
    statuses: dict[int, int] = {}

    @FUZZ
    @given(who=st.sampled_from(sorted(users)), body=st.one_of(form_data, form_data, raw_bodies),
           query=st.dictionaries(st.sampled_from(["einladung", "partie", "next", "x"]), query_values, max_size=2))
    def run(who, body, query):
        cache.clear()  # allauth's limits would otherwise answer 429 to everything after a while
        caplog.clear()
        client = Client(raise_request_exception=False)
        if users[who] is not None:
            client.force_login(users[who])
        url = path + ("?" + urlencode(query, quote_via=quote) if query else "")
        if isinstance(body, bytes):
            response = client.generic(method, url, body, content_type="application/x-www-form-urlencoded")
        elif method == "GET":
            response = client.get(url, body)
        else:
            response = client.post(url, body)
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
        case = f"{who} {method} {url} {str(body)[:200]!r}"
        assert response.status_code in ALLOWED, (case, response.status_code)
        # django.security.* is Django's own report of hostile input it refused with a 400 (too many fields):
        # that is the log working, not a fault.
        logged = [f"{r.name}: {r.getMessage()[:200]}" for r in caplog.records
                  if (r.levelno >= logging.ERROR or r.exc_info) and not r.name.startswith("django.security.")]
        assert logged == [], case

    run()


@pytest.mark.parametrize("field, value", [
    ("gin-seats", "3"), ("gin-foo", "1"), ("gin-target", "25"), ("gin-target", "abc"), ("gin-big_gin", "vielleicht"),
    ("gin-preset", "schach"), ("gin-turn_seconds", "1"), ("romme-seats", "9"),
])
def test_a_forged_option_on_the_create_form_is_a_400_and_opens_no_table(world, client, field, value):
    client.force_login(world["users"]["stranger"])
    before = Table.objects.count()
    game = field.split("-")[0]
    response = client.post("/spielen/neu/", {"game": game, field: value})
    assert response.status_code == 400
    assert Table.objects.count() == before


@pytest.mark.parametrize("path", ["/spielen/tisch/{open}/partie.json?partie=1%00",
                                  "/spielen/tisch/{open}/partie.json?partie=%D9%A1",
                                  "/spielen/tisch/{private}/partie.json",
                                  "/spielen/tisch/{private}/?einladung=%ff",
                                  "/spielen/tisch/{private}/?einladung=falsch",
                                  "/spielen/tisch/{finished}/partie.json?partie=99999999999999999999999"])
def test_forged_record_and_invitation_addresses_are_404(world, client, path):
    response = client.get(path.format(**world["ids"]))
    assert response.status_code == 404
