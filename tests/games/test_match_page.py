"""The match page (/partie/<id>/): the score sheet and the rating changes of a finished match, its record and
replay, and nothing of a match still being played; the record viewer for pasted records; head-to-head."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from games import registry, services
from games.models import Match, Round, Table
from games.reads.replay import replay_positions
from ratings.models import RatingChange
from tests.games.helpers import choose_action, play_out, state_of
from tests.points import replay as replay_record

pytestmark = [pytest.mark.django_db, pytest.mark.deal_seed("match-page-tests")]


@pytest.fixture
def play(django_capture_on_commit_callbacks):
    """Play a table out through the services and announce its end (so a ranked match is rated: inside a
    test's transaction the after-commit announcement would never run)."""

    def run(table_id: int, users: list) -> Match:
        with django_capture_on_commit_callbacks(execute=True):
            table = play_out(table_id, users)
        return Match.objects.get(pk=table.current_match_id)

    return run


@pytest.fixture
def ranked_gin(play):
    def run(a, b, *, preset="schnell", options=None) -> Match:
        table = services.table_create_seated(game="gin", users=[a, b], preset=preset, options=options, ranked=True)
        return play(table.pk, [a, b])

    return run


def client_of(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def page_url(match) -> str:
    return reverse("matches:detail", kwargs={"match_id": match.pk})


def viewer_data(response) -> dict:
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', response.content.decode(), re.S)
    assert found, "the page has no replay data"
    return json.loads(found.group(1))


def cells(html: str, row_pattern: str) -> list[str]:
    row = re.search(row_pattern + r".*?</tr>", html, re.S)
    assert row, f"no row {row_pattern!r}"
    return [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row.group(0), re.S)]


def canonical_hash(deal: dict) -> str:
    return hashlib.sha256(json.dumps(deal, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()).hexdigest()


# --- the finished match --------------------------------------------------------------------------------------


def test_a_ranked_gin_match_shows_the_score_sheet_and_both_rating_changes(players, ranked_gin):
    anna, ben = players[:2]
    match = ranked_gin(anna, ben)
    response = client_of().get(page_url(match))
    assert response.status_code == 200
    html = response.content.decode()

    # The rating changes openskill gives two new players, computed here independently of the app.
    model = PlackettLuce()
    seats = [anna, ben]
    winner = match.winner_seat
    teams = [[model.rating()], [model.rating()]]
    rated = model.rate(teams, ranks=[1 if seat == winner else 2 for seat in range(2)])
    for seat, user in enumerate(seats):
        after = round(1500 + 60 * (rated[seat][0].mu - 25))
        delta = after - 1500
        text = f"+{delta}" if delta > 0 else f"\u2212{-delta}"
        row = cells(html, rf'<tr class="mp-seat[^"]*" data-seat="{seat}"')
        assert row[3] == text, row
        assert row[4] == f"{after}?", row  # provisional: one rated match
        change = RatingChange.objects.get(match=match, user=user)
        assert (change.display_before, change.display_after) == (1500, after)
    assert cells(html, rf'<tr class="mp-seat[^"]*" data-seat="{winner}"')[0] == "1"

    # The score sheet: the one round's points in the winner's column, and the final scores with bonuses.
    rnd = match.rounds.get(number=1)
    row = cells(html, r'<tr class="mp-row" data-round="1"')
    assert row[1 + rnd.result["winner"]] == str(rnd.result["points"])
    final = cells(html, r'<tr class="mp-sum mp-sum-final"')
    assert final[1:3] == [str(v) for v in match.final_scores]


def test_a_gin_match_of_several_rounds_lists_every_round_and_the_bonuses(players, ranked_gin):
    anna, ben = players[:2]
    match = ranked_gin(anna, ben, preset="klassisch", options={"target": 50})
    rounds = list(match.rounds.order_by("number"))
    assert len(rounds) >= 2
    html = client_of().get(page_url(match)).content.decode()
    for rnd in rounds:
        row = cells(html, rf'<tr class="mp-row" data-round="{rnd.number}"')
        if rnd.result["winner"] is not None and rnd.result["points"]:
            assert row[1 + rnd.result["winner"]] == str(rnd.result["points"])
    totals = match.result["totals"]
    bonuses = [f - t for f, t in zip(match.final_scores, totals, strict=True)]
    assert cells(html, r'<tr class="mp-sum mp-sum-total" data-sum="1"')[1:3] == [str(t) for t in totals]
    assert cells(html, r'<tr class="mp-sum mp-sum-bonus"')[1:3] == [str(b) for b in bonuses]
    assert cells(html, r'<tr class="mp-sum mp-sum-final"')[1:3] == [str(f) for f in match.final_scores]


def test_an_unrated_match_shows_no_rating_column(players, play):
    anna = players[0]
    table = services.table_create(user=anna, game="gin", preset="schnell", bots="simple")
    match = play(table.pk, [anna, None])
    html = client_of().get(page_url(match)).content.decode()
    assert 'data-role="delta"' not in html
    assert "replay-data" in html


def shown(n: int) -> str:
    return str(n).replace("-", "\u2212")


def test_a_masters_list_shows_wertungspunkte_augen_and_the_list_result(players, play):
    anna = players[0]
    table = services.table_create(user=anna, game="romme", preset="turnier", options={"seats": 3, "rounds": 2},
                                  bots="simple")
    match = play(table.pk, [anna, None, None])
    html = client_of(anna).get(page_url(match)).content.decode()
    for rnd in match.rounds.order_by("number"):
        row = cells(html, rf'<tr class="mp-row" data-round="{rnd.number}"')
        augen = rnd.result["augen"] if rnd.result["winner"] is not None else [0, 0, 0]
        assert row[1:4] == [f"{shown(w)} WP · {a}" for w, a in zip(rnd.result["wertungspunkte"], augen, strict=True)]
    result = match.result
    # Negative numbers with the one minus sign (U+2212), as everywhere on the site.
    assert cells(html, r'<tr class="mp-sum mp-sum-final"')[1:4] == [shown(v) for v in result["final"]]
    assert cells(html, r'<tr class="mp-sum mp-sum-place"')[1:4] == [str(v) for v in result["places"]]
    assert "Listenergebnis" in html


def test_the_result_table_lists_the_players_by_place_not_by_seat(players, play):
    anna = players[0]
    for _list in range(6):  # the deals are seeded: the same list is found every run
        table = services.table_create(user=anna, game="romme", preset="turnier", options={"seats": 3, "rounds": 1},
                                      bots="simple")
        match = play(table.pk, [anna, None, None])
        if match.result["places"] != sorted(match.result["places"]):
            break
    else:
        pytest.fail("six lists all ended in seat order: no case to look at")
    html = client_of(anna).get(page_url(match)).content.decode()
    seats_shown = [int(seat) for seat in re.findall(r'<tr class="mp-seat[^"]*" data-seat="(\d)"', html)]
    places = match.result["places"]
    assert seats_shown == sorted(range(3), key=lambda seat: (places[seat], seat))
    assert [places[seat] for seat in seats_shown] == sorted(places)


@pytest.mark.parametrize(
    ("game", "preset", "options", "seats"),
    [
        ("gin", "hollywood", {"target": 50}, 2),
        ("gin", "oklahoma", {"target": 50}, 2),
        ("gin", "straight", {"target": 0}, 2),
        ("romme", "standard", {"seats": 2, "rounds": 2}, 2),
    ],
)
def test_every_kind_of_match_has_a_page_with_its_replay(players, play, game, preset, options, seats):
    anna = players[0]
    table = services.table_create(user=anna, game=game, preset=preset, options=options, bots="simple")
    match = play(table.pk, [anna] + [None] * (seats - 1))
    response = client_of().get(page_url(match))
    assert response.status_code == 200
    data = viewer_data(response)
    record = client_of().get(reverse("matches:record", kwargs={"match_id": match.pk})).json()
    assert len(data["positions"]) == sum(len(r["moves"]) + 1 for r in record["rounds"])
    assert cells(response.content.decode(), r'<tr class="mp-sum mp-sum-final"')[1:1 + seats] == [
        str(v) for v in match.final_scores
    ]
    # The game's own stylesheet (its package's, named by its entry) after matches.css; no other game's.
    head = response.content.decode().split("</head>", 1)[0]
    sheets = re.findall(r'<link rel="stylesheet" href="/static/([^"]+)">', head)
    assert sheets[sheets.index("games/matches.css") + 1] == f"{game}/{game}.css"
    assert [s for s in sheets if s.split("/")[0] in ("gin", "romme")] == [f"{game}/{game}.css"]


def test_the_match_page_speaks_english(players, ranked_gin):
    anna, ben = players[:2]
    match = ranked_gin(anna, ben)
    html = client_of().get(page_url(match), headers={"accept-language": "en"}).content.decode()
    assert '<html lang="en">' in html
    for words in ("Score sheet", "Replay", "Check the deals", "Download the record (JSON)", "Change"):
        assert words in html, words
    data = viewer_data(client_of().get(page_url(match), headers={"accept-language": "en"}))
    assert data["strings"]["check_ok"] == "matches"


# --- what a page never shows ---------------------------------------------------------------------------------


def test_a_running_match_has_no_page_and_its_deal_does_not_leak(players):
    anna, ben = players[:2]
    table = services.table_create_seated(game="gin", users=[anna, ben], preset="schnell", ranked=True)
    match = Table.objects.get(pk=table.pk).current_match
    deal = match.rounds.get(number=1).deal
    for client in (client_of(), client_of(anna), client_of(ben)):
        for url in (page_url(match), reverse("matches:record", kwargs={"match_id": match.pk}),
                    reverse("matches:table_last", kwargs={"table_id": table.pk})):
            response = client.get(url)
            assert response.status_code == 404
            body = response.content.decode()
            for secret in (deal["stock"][:5], deal["hands"][0][:5], deal["hands"][1][:5]):
                assert json.dumps(secret) not in body and " ".join(secret) not in body
            assert match.rounds.get(number=1).deal_hash not in body


def test_a_private_match_is_shown_only_to_its_players(players, play):
    anna, ben = players[:2]
    table = services.table_create(user=anna, game="gin", preset="schnell", private=True, bots="simple")
    match = play(table.pk, [anna, None])
    assert client_of(anna).get(page_url(match)).status_code == 200
    for stranger in (client_of(ben), client_of()):
        assert stranger.get(page_url(match)).status_code == 404
        assert stranger.get(reverse("matches:record", kwargs={"match_id": match.pk})).status_code == 404
        assert stranger.get(reverse("matches:table_last", kwargs={"table_id": table.pk})).status_code == 404


def test_an_aborted_match_says_so_and_shows_no_deal(players):
    anna, ben = players[:2]
    table = services.table_create_seated(game="gin", users=[anna, ben], preset="schnell", ranked=True)
    services.match_abort(table_id=table.pk, user=anna)
    match = Match.objects.get(table=table)
    assert match.status == Match.Status.ABORTED
    response = client_of().get(page_url(match))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="aborted"' in html and "abgebrochen" in html
    assert "replay-data" not in html and 'id="deal-check"' not in html
    deal = match.rounds.get(number=1)
    assert json.dumps(deal.deal["hands"][0][:5]) not in html and json.dumps(deal.deal["stock"][:5]) not in html
    assert deal.deal_hash not in html
    assert client_of().get(reverse("matches:record", kwargs={"match_id": match.pk})).status_code == 404


def test_an_unknown_match_is_404(players):
    assert client_of().get("/partie/999999/").status_code == 404


# --- the record and the replay -------------------------------------------------------------------------------


def test_the_record_download_replays_to_the_match_result(players, ranked_gin):
    anna, ben = players[:2]
    match = ranked_gin(anna, ben, preset="klassisch", options={"target": 50})
    response = client_of().get(reverse("matches:record", kwargs={"match_id": match.pk}))
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    record = json.loads(response.content)
    assert record["players"] == ["anna", "ben"]
    summary = replay_record(record)
    assert summary["final"] == match.final_scores
    assert summary["winner"] == match.winner_seat


def test_a_resigned_gin_match_records_the_resignation(players, django_capture_on_commit_callbacks):
    anna, ben = players[:2]
    table = services.table_create_seated(game="gin", users=[anna, ben], preset="klassisch", ranked=True)
    # Play one round to its end, then anna resigns in the second.
    while True:
        table = Table.objects.get(pk=table.pk)
        state = state_of(table)
        if state.to_act is None:
            break
        seat = state.to_act
        user = [anna, ben][seat]
        view = registry.get("gin").engine.view(state, seat)
        services.move_apply(table_id=table.pk, user=user, version=table.version, action=choose_action(view))
    assert not state.over  # one round does not reach 100
    with django_capture_on_commit_callbacks(execute=True):
        services.match_resign(table_id=table.pk, user=anna)
    match = Match.objects.get(table=table)
    assert (match.status, match.ending) == (Match.Status.FINISHED, Match.Ending.RESIGNED)
    record = client_of().get(reverse("matches:record", kwargs={"match_id": match.pk})).json()
    assert record["resigned"] == 0
    assert replay_record(record)["winner"] == 1 == match.winner_seat
    html = client_of().get(page_url(match)).content.decode()
    assert "anna hat aufgegeben" in html


def test_replay_data_has_a_position_per_deal_and_move_and_ends_where_the_engine_ends(players, ranked_gin):
    anna, ben = players[:2]
    match = ranked_gin(anna, ben, preset="klassisch", options={"target": 50})
    record = client_of().get(reverse("matches:record", kwargs={"match_id": match.pk})).json()
    data = viewer_data(client_of().get(page_url(match)))
    moves = sum(len(r["moves"]) for r in record["rounds"])
    assert len(data["positions"]) == moves + len(record["rounds"])
    assert data["positions"] == replay_positions(record)["positions"]

    summary = replay_record(record)
    for info, rnd, engine_round in zip(data["rounds"], record["rounds"], summary["rounds"], strict=True):
        first, last = data["positions"][info["first"]], data["positions"][info["last"]]
        assert first["move"] is None and last["to_act"] is None
        assert info["last"] - info["first"] == len(rnd["moves"])
        # Each step names the record's move.
        for offset, move in enumerate(rnd["moves"], start=1):
            shown = data["positions"][info["first"] + offset]["move"]
            assert {k: v for k, v in shown.items() if k != "card" or move["action"] != "draw"} == move
        # The end of each round is the engine's: every hand as the round ended.
        hands = [sorted(c for group in seat for c in group) for seat in last["arranged"]]
        assert hands == [sorted(h) for h in engine_round["hands"]]
        assert last["deadwood"] == engine_round["deadwood"] or engine_round["result"] in ("gin", "big_gin", "dead") \
            or engine_round.get("layoffs")


def test_the_deals_the_browser_hashes_are_the_ones_published_when_each_round_began(players, ranked_gin):
    anna, ben = players[:2]
    match = ranked_gin(anna, ben, preset="klassisch", options={"target": 50})
    data = viewer_data(client_of().get(page_url(match)))
    published = {r.number: r.deal_hash for r in Round.objects.filter(match=match)}
    assert [c["number"] for c in data["checks"]] == sorted(published)
    for check in data["checks"]:
        assert check["hash"] == published[check["number"]]
        assert canonical_hash(check["deal"]) == check["hash"]


def test_a_romme_replay_ends_with_the_engine_s_hands_and_melds(players, play):
    anna = players[0]
    table = services.table_create(user=anna, game="romme", options={"seats": 3, "rounds": 2}, bots="simple")
    match = play(table.pk, [anna, None, None])
    record = client_of(anna).get(reverse("matches:record", kwargs={"match_id": match.pk})).json()
    replay = replay_positions(record)
    assert len(replay["positions"]) == sum(len(r["moves"]) + 1 for r in record["rounds"])
    summary = replay_record(record)
    for info, engine_round in zip(replay["rounds"], summary["rounds"], strict=True):
        last = replay["positions"][info["last"]]
        assert last["hands"] == engine_round["hands"]
        assert [m["cards"] for m in last["melds"]] == engine_round["melds"]
    data = viewer_data(client_of(anna).get(page_url(match)))
    assert data["positions"] == replay["positions"]


def test_the_table_links_to_the_page_of_its_last_finished_match(players, ranked_gin):
    anna, ben = players[:2]
    match = ranked_gin(anna, ben)
    response = client_of().get(reverse("matches:table_last", kwargs={"table_id": match.table_id}))
    assert response.status_code == 302 and response["Location"] == page_url(match)


# --- pasting a record ----------------------------------------------------------------------------------------


def paste(text: str, client=None):
    return (client or client_of()).post(reverse("matches:view_record"), {"record": text})


def test_the_record_form_shows_and_a_good_record_plays(players, ranked_gin):
    anna, ben = players[:2]
    match = ranked_gin(anna, ben, preset="klassisch", options={"target": 50})
    assert client_of().get(reverse("matches:view_record")).status_code == 200
    text = client_of().get(reverse("matches:record", kwargs={"match_id": match.pk})).content.decode()
    response = paste(text)
    assert response.status_code == 200
    data = viewer_data(response)
    record = json.loads(text)
    assert len(data["positions"]) == sum(len(r["moves"]) + 1 for r in record["rounds"])
    # The hashes to compare with are the ones the record says were published (it carries them per round).
    assert [c["hash"] for c in data["checks"]] == [r["deal_hash"] for r in json.loads(text)["rounds"]]
    html = response.content.decode()
    for seat, final in enumerate(match.final_scores):
        assert cells(html, rf'<tr data-seat="{seat}"')[-1] == str(final)


def test_the_documented_romme_example_plays_in_the_viewer():
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "records-romme.md").read_text()
    text = re.search(r"```json\n(\{\n  \"game\": \"romme\".*?)\n```", docs, re.S).group(1)
    response = paste(text)
    assert response.status_code == 200
    data = viewer_data(response)
    assert len(data["positions"]) == 18  # one deal and seventeen moves
    last = data["positions"][-1]
    assert last["hands"] == [["2D"], []] and last["to_act"] is None
    assert data["players"] == ["anna", "ben"]
    html = response.content.decode()
    assert cells(html, r'<tr data-seat="1"')[0].startswith("ben") and "Sieger" in cells(html, r'<tr data-seat="1"')[0]
    # A pasted record's page loads its game's stylesheet too.
    assert '<link rel="stylesheet" href="/static/romme/romme.css">' in html.split("</head>", 1)[0]


def test_a_record_file_can_be_uploaded(players, ranked_gin):
    anna, ben = players[:2]
    match = ranked_gin(anna, ben)
    text = client_of().get(reverse("matches:record", kwargs={"match_id": match.pk})).content
    upload = SimpleUploadedFile("partie.json", text, content_type="application/json")
    response = client_of().post(reverse("matches:view_record"), {"file": upload})
    assert response.status_code == 200
    assert "replay-data" in response.content.decode()


def error_of(response) -> str:
    found = re.search(r'id="record-error"[^>]*>(.*?)</p>', response.content.decode(), re.S)
    assert found, "no error shown"
    return found.group(1)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "Bitte ein Protokoll einfügen"),
        ("{not json", "lässt sich nicht abspielen: es ist kein gültiges JSON."),
        ("[1, 2]", "es hat nicht die Form eines Spielprotokolls."),
        ('{"game": "chess", "rounds": []}', "eines Spiels, das diese Seite nicht kennt."),
        ('{"game": "gin"}', "es hat nicht die Form eines Spielprotokolls."),
        ('{"game": "gin", "rounds": [{"dealer": 0, "hands": "xx", "upcard": "5D", "stock": [], "moves": []}]}',
         "Runde 1: es hat nicht die Form eines Spielprotokolls."),
        ('{"game": "gin", "options": {"target": 7}, "rounds": []}', "die Spieleinstellungen sind ungültig."),
        ("[" * 100_000 + "]" * 100_000, "lässt sich nicht abspielen"),
    ],
)
def test_a_bad_record_gets_a_clear_error_never_a_server_error(text, says):
    response = paste(text)
    assert response.status_code == 400
    assert says in error_of(response)


def test_an_illegal_move_is_named_by_round_and_move(players, ranked_gin):
    anna, ben = players[:2]
    match = ranked_gin(anna, ben)
    record = client_of().get(reverse("matches:record", kwargs={"match_id": match.pk})).json()
    record["rounds"][0]["moves"][1] = {"seat": 0, "action": "big_gin"}
    response = paste(json.dumps(record))
    assert response.status_code == 400
    assert error_of(response) == (
        "Dieses Protokoll lässt sich nicht abspielen: Runde 1, Zug 2: der Zug ist nach den Regeln nicht erlaubt.")
    assert re.search(r"round 1, move 1: ", response.content.decode())  # the engine's own words, folded away


@pytest.mark.parametrize(
    ("text", "german", "english"),
    [
        ("{not json", "Dieses Protokoll lässt sich nicht abspielen: es ist kein gültiges JSON.",
         "This record cannot be replayed: it is not valid JSON."),
        ('{"game": "chess", "rounds": []}',
         "Dieses Protokoll lässt sich nicht abspielen: es ist ein Protokoll eines Spiels, das diese Seite nicht kennt.",
         "This record cannot be replayed: it is a record of a game this site does not know."),
        ('{"game": "gin", "rounds": [{"dealer": 0, "hands": "xx", "upcard": "5D", "stock": [], "moves": []}]}',
         "Dieses Protokoll lässt sich nicht abspielen: Runde 1: es hat nicht die Form eines Spielprotokolls.",
         "This record cannot be replayed: round 1: it does not have the shape of a game record."),
        ("[" * 100_000 + "]" * 100_000,
         "Dieses Protokoll lässt sich nicht abspielen: es hat nicht die Form eines Spielprotokolls.",
         "This record cannot be replayed: it does not have the shape of a game record."),
    ],
)
def test_a_pasted_records_error_is_in_the_pages_language(text, german, english):
    assert error_of(client_of().post(reverse("matches:view_record"), {"record": text},
                                     HTTP_ACCEPT_LANGUAGE="de")) == german
    assert error_of(client_of().post(reverse("matches:view_record"), {"record": text},
                                     HTTP_ACCEPT_LANGUAGE="en")) == english


def test_a_record_over_the_size_limit_is_refused(players):
    from games.web.match_views import RECORD_MAX_BYTES

    response = paste(" " * (RECORD_MAX_BYTES + 20 * 1024) + "{}")
    assert response.status_code == 413
    assert "zu groß" in error_of(response)


@pytest.fixture(scope="module")
def gin_record_text() -> str:
    import random

    from games.engine.gin import bots
    from games.engine.gin.match import apply_action, new_match, view

    rng = random.Random(11)
    m = new_match({"target": 0}, rng=rng)
    while not m.over:
        m = apply_action(m, m.to_act, bots.choose_action(view(m, m.to_act), "simple", rng))
    return json.dumps(m.record())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_mangled_record_is_refused_or_played_but_never_a_server_error(gin_record_text, data, db):
    record = json.loads(gin_record_text)
    rnd = record["rounds"][0]
    what = data.draw(st.sampled_from(["drop_key", "bad_value", "move", "swap_cards", "truncate"]))
    if what == "drop_key":
        rnd.pop(data.draw(st.sampled_from(sorted(rnd))))
    elif what == "bad_value":
        key = data.draw(st.sampled_from(sorted(rnd)))
        rnd[key] = data.draw(st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=3),
                                       st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)))
    elif what == "move":
        index = data.draw(st.integers(0, len(rnd["moves"]) - 1))
        rnd["moves"][index] = data.draw(st.dictionaries(st.sampled_from(["seat", "action", "card", "from"]),
                                                        st.one_of(st.integers(-1, 2), st.sampled_from(["draw", "pass", "KS", "stock"])),
                                                        max_size=4))
    elif what == "swap_cards":
        rnd["hands"][0][0], rnd["stock"][0] = rnd["stock"][0], rnd["hands"][0][0]
    else:
        text = gin_record_text[: data.draw(st.integers(0, len(gin_record_text) - 1))]
        response = paste(text)
        assert response.status_code in (200, 400)
        return
    response = paste(json.dumps(record))
    assert response.status_code in (200, 400)


# --- head-to-head --------------------------------------------------------------------------------------------


def test_head_to_head_counts_the_matches_two_played_together_and_who_won(players, ranked_gin, play):
    anna, ben, cleo = players[:3]
    first, second = ranked_gin(anna, ben), ranked_gin(anna, ben)
    ranked_gin(anna, cleo)  # not theirs
    private = services.table_create(user=anna, game="gin", preset="schnell", private=True)
    services.table_join(table_id=private.pk, user=ben, invite_token=Table.objects.get(pk=private.pk).invite_token)
    hidden = play(private.pk, [anna, ben])

    url = reverse("matches:compare", kwargs={"user_a": "anna", "user_b": "ben"})
    public_view = client_of(cleo).get(url)
    assert public_view.status_code == 200
    row = cells(public_view.content.decode(), r'<tr data-game="gin"')
    wins = [m.winner_id for m in (first, second)]
    assert row[1:4] == ["2", str(wins.count(anna.pk)), str(wins.count(ben.pk))]
    assert page_url(hidden) not in public_view.content.decode()

    own_view = client_of(ben).get(url).content.decode()
    wins.append(hidden.winner_id)
    assert cells(own_view, r'<tr data-game="gin"')[1:4] == ["3", str(wins.count(anna.pk)), str(wins.count(ben.pk))]
    assert page_url(hidden) in own_view


def test_the_head_to_head_form_finds_the_player_or_says_who_is_unknown(players):
    response = client_of().get(reverse("matches:compare_form"), {"a": "anna", "b": "ben"})
    assert response.status_code == 302
    assert response["Location"] == reverse("matches:compare", kwargs={"user_a": "anna", "user_b": "ben"})
    unknown = client_of().get(reverse("matches:compare_form"), {"a": "anna", "b": "nobody"})
    assert unknown.status_code == 404 and "nobody" in unknown.content.decode()
    assert client_of().get(reverse("matches:compare", kwargs={"user_a": "anna", "user_b": "anna"})).status_code == 404


@pytest.mark.parametrize(("language", "term", "other"), [("de", "Restpunkte", "Deadwood"), ("en", "Deadwood", "Restpunkte")])
def test_a_gin_score_sheet_names_the_deadwood_as_the_table_does(players, ranked_gin, language, term, other):
    # Issue 27.11: one glossary; the German match page says "Restpunkte 3 : 12" as the table does, not "Deadwood".
    anna, ben = players[:2]
    match = ranked_gin(anna, ben)
    html = client_of().get(page_url(match), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    notes = re.findall(rf"{term} \d+ : \d+", html)
    assert notes and other not in re.sub(r"<script.*?</script>", "", html, flags=re.S)


@pytest.mark.parametrize(
    ("language", "says"),
    [("de", "Zu Beginn jeder Runde veröffentlicht der Server die SHA-256-Prüfsumme der Mischung. Dein Browser rechnet "
            "sie hier aus den aufgedeckten Karten selbst nach: stimmt sie, wurde während der Runde nichts verändert."),
     ("en", "When each round begins the server publishes the SHA-256 hash of its deal. Your browser recomputes it here "
            "from the revealed cards: if it matches, nothing was changed during the round.")],
)
def test_the_deal_check_explains_itself_without_naming_a_source_file(players, ranked_gin, language, says):
    match = ranked_gin(*players[:2])
    html = client_of().get(page_url(match), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    section = html[html.index('id="deal-check-title"'):]
    section = section[:section.index("</section>")]
    assert says in section
    assert not re.search(r"\w+\.(py|js|mjs)\b", re.sub(r"<[^>]+>", " ", section))
