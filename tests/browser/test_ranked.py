"""Ranked play in a real browser: two people sign in, each presses "Gewertet spielen" for gin, the pool seats
them together, they play the match to the end, and then see both rating changes on the match page, both of
them on the leaderboard (their tenth rated match: nine were played before the test), and the replay with the
deal check green for every round. Also: the page's canonical JSON is byte for byte Python's.

The match itself is played through the services from the test (the table page is the games app's and is
tested in test_games.py); the browser sees the table end, follows its link to the match page and checks
everything there. Runs on the shared daphne (no referee): the pool pairs on the second join.
"""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from games import services
from games.models import Match, Table
from ratings.models import RatingChange
from ratings.selectors import rating_of
from tests.browser.conftest import elsewhere
from tests.browser.people import PASSWORD, confirmed_user
from tests.games import helpers
from tests.games.helpers import play_out

pytestmark = pytest.mark.browser

TABLE_URL = re.compile(r"/spielen/tisch/(\d+)/")


@pytest.fixture
def seeded_settings(settings, monkeypatch):
    # The nine earlier matches are played in this process: fixed deals, the same for every table.
    settings.GAMES_TEST_DEAL_SEED = "ranked-browser"
    settings.GAMES_BOT_DELAY_SECONDS = 0
    # The same two people play each other nine times here; the farming cap has its own tests (test_farming).
    monkeypatch.setattr("ratings.selectors.FARMING_CAP", 10**6)


def sign_in(page, name: str) -> None:
    page.goto("/accounts/login/")
    page.fill("#id_login", name)
    page.fill("#id_password", PASSWORD)
    page.locator("main").get_by_role("button", name="Anmeldung").click()
    page.get_by_role("button", name="Abmelden").wait_for()


def nine_earlier_rated_matches(anna, ben, cleo, dora) -> None:
    """Anna against Cleo and Ben against Dora, nine one-hand ranked matches each. Every table deals the same
    cards and the test players choose alike, so Anna and Ben come out with the same rating: the pool pairs
    them at once."""
    for i in range(9):
        for player, opponent in ((anna, cleo), (ben, dora)):
            helpers._RNG.seed(100 + i)
            table = services.table_create_seated(game="gin", users=[player, opponent], preset="schnell", ranked=True)
            play_out(table.pk, [player, opponent])


def press_ranked_gin(page) -> None:
    page.goto("/spielen/")
    # The lobby swaps in the pool's own panel; press the button once it is there.
    page.wait_for_selector("#ranked [data-pool-state='idle'] #ranked-gin")
    page.click("#ranked-gin")


def test_two_people_play_ranked_gin_and_see_ratings_leaderboard_and_a_verified_replay(
    new_page, live_server_url, seeded_settings, screenshot
):
    anna, ben, cleo, dora = (confirmed_user(n) for n in ("anna", "ben", "cleo", "dora"))
    elsewhere(nine_earlier_rated_matches, anna, ben, cleo, dora)
    before = {u.pk: rating_of(user=u, game="gin") for u in (anna, ben)}
    assert before[anna.pk].matches == before[ben.pk].matches == 9
    assert before[anna.pk].display == before[ben.pk].display

    anna_page, ben_page = new_page(), new_page()
    errors: list[str] = []
    for page in (anna_page, ben_page):
        page.on("pageerror", lambda error: errors.append(str(error)))
    sign_in(anna_page, "anna")
    sign_in(ben_page, "ben")

    # "Gewertet spielen": Anna waits, Ben's press pairs them, and Anna's lobby takes her to the table.
    press_ranked_gin(anna_page)
    anna_page.wait_for_selector("#ranked [data-pool-state='waiting']")
    press_ranked_gin(ben_page)
    ben_page.wait_for_url(TABLE_URL)
    anna_page.wait_for_url(TABLE_URL, timeout=15_000)
    table_id = int(TABLE_URL.search(ben_page.url).group(1))
    assert int(TABLE_URL.search(anna_page.url).group(1)) == table_id
    table = Table.objects.get(pk=table_id)
    assert table.ranked and table.game == "gin"
    users = [s.user for s in table.seats.order_by("index")]
    assert {u.pk for u in users} == {anna.pk, ben.pk}

    # The match, to its end (announced after commit, so it is rated here and now).
    finished = elsewhere(play_out, table_id, users)
    match = Match.objects.get(pk=finished.current_match_id)
    assert match.status == Match.Status.FINISHED
    rounds = match.rounds.filter(finished_at__isnull=False).count()

    # The table shows the end and links the match page.
    link = anna_page.locator("#match-page")
    try:
        link.wait_for(state="visible", timeout=8_000)
    except Exception:  # the table's socket polls once a second; a reload shows the end in any case
        anna_page.reload()
        link.wait_for(state="visible")
    link.click()
    anna_page.wait_for_url(f"**/partie/{match.pk}/")

    # Both rating changes, and the new Wertungszahl without "?" (ten rated matches now).
    changes = {c.user_id: c for c in RatingChange.objects.filter(match=match)}
    assert set(changes) == {anna.pk, ben.pk}
    deltas = []
    for seat, user in enumerate(users):
        change = changes[user.pk]
        delta = change.display_after - change.display_before
        deltas.append(delta)
        row = anna_page.locator(f"tr.mp-seat[data-seat='{seat}']")
        shown = row.locator("[data-role='delta']").inner_text().strip()
        assert shown == (f"+{delta}" if delta > 0 else f"\u2212{-delta}"), shown
        assert row.locator("[data-role='rating']").inner_text().strip() == str(change.display_after)
    assert deltas[match.winner_seat] > 0 > deltas[1 - match.winner_seat]

    # The deal check: every round's hash recomputed in the browser matches the one published at its start.
    anna_page.wait_for_selector("#deal-check[data-checked='true']")
    states = anna_page.locator(".dc-row").evaluate_all("rows => rows.map(r => r.dataset.state)")
    assert states == ["ok"] * rounds
    published = [r.deal_hash for r in match.rounds.order_by("number")]
    computed = anna_page.locator(".dc-row [data-role='computed']").all_inner_texts()
    assert computed == published
    assert anna_page.locator("#dc-summary[data-state='ok']").is_visible()

    # The replay: forward, back, the end of the round, another round.
    anna_page.wait_for_selector("#replay[data-ready='true']")
    board = anna_page.locator("#rv-board")
    assert board.get_attribute("data-position") == "0"
    first_hand = anna_page.locator(".rv-seat[data-seat='0'] [data-role='hand']").inner_text()
    anna_page.click("#rv-forward")
    anna_page.click("#rv-forward")
    assert board.get_attribute("data-position") == "2"
    anna_page.click("#rv-back")
    assert board.get_attribute("data-position") == "1"
    anna_page.click("[data-step='end']")
    data = json.loads(anna_page.evaluate("document.getElementById('replay-data').textContent"))
    first_round = data["rounds"][0]
    assert board.get_attribute("data-position") == str(first_round["last"])
    assert anna_page.locator("#rv-counter").inner_text().endswith(f"{first_round['last']} von {first_round['last']}")
    anna_page.click("[data-step='start']")
    assert anna_page.locator(".rv-seat[data-seat='0'] [data-role='hand']").inner_text() == first_hand
    if rounds > 1:
        anna_page.select_option("#rv-round", str(rounds))
        assert board.get_attribute("data-position") == str(data["rounds"][-1]["first"])
    screenshot(anna_page, "ranked-match-page")

    # The leaderboard lists both: ten rated matches, played within 30 days.
    ben_page.goto("/bestenliste/")
    for user in (anna, ben):
        row = ben_page.locator(f"#leaderboard tr[data-user='{user.pk}']")
        assert row.count() == 1
        assert row.locator("strong").first.inner_text() == str(changes[user.pk].display_after)
    screenshot(ben_page, "ranked-leaderboard")

    # Ben's profile draws his history: before the first match and after each of the ten.
    ben_page.goto("/profil/")
    points = ben_page.locator("#rating-gin polyline").get_attribute("points").split()
    assert len(points) == 11
    assert errors == []


def test_the_page_s_canonical_json_is_python_s(new_page, live_server_url):
    value = {
        "stock": ["QC", "2H"], "dealer": 1, "hands": [["7H"], ["KS"]], "upcard": "5D",
        "text": "Grüße \u20ac \U0001f600 \u0001 \u007f \"quoted\" back\\slash \n\t",
        "\uffff": 1, "\U0001f600": 2, "é": {}, "a": [0.5, -2.5, 1e-07, 0.0001, 123.456, 1e16, 1.5e16, True, None, -7],
    }
    expected = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    page = new_page()
    page.goto("/partie/ansehen/")
    got = page.evaluate(
        """async (text) => {
            const { canonicalJSON, dealHash } = await import("/static/games/canonical.js");
            const value = JSON.parse(text);
            return [canonicalJSON(value), await dealHash(value)];
        }""",
        json.dumps(value),
    )
    assert got[0] == expected
    assert got[1] == hashlib.sha256(expected.encode("ascii")).hexdigest()


def test_a_deal_that_does_not_match_its_published_hash_shows_red(new_page, live_server_url, seeded_settings):
    anna = confirmed_user("anna")

    def played() -> Match:
        table = services.table_create(user=anna, game="gin", preset="klassisch", options={"target": 50}, bots="simple")
        return Match.objects.get(pk=play_out(table.pk, [anna, None]).current_match_id)

    match = elsewhere(played)
    rounds = list(match.rounds.order_by("number"))
    assert len(rounds) >= 2
    # As if the server had published one hash and dealt other cards: that round must show red.
    tampered = rounds[1]
    tampered.deal_hash = hashlib.sha256(b"another deal").hexdigest()
    tampered.save(update_fields=["deal_hash"])

    page = new_page()
    page.goto(f"/partie/{match.pk}/")
    page.wait_for_selector("#deal-check[data-checked='true']")
    states = page.locator(".dc-row").evaluate_all("rows => rows.map(r => r.dataset.state)")
    assert states == ["ok" if r.number != tampered.number else "bad" for r in rounds]
    assert page.locator(f".dc-row[data-round='{tampered.number}'] [data-role='verdict']").inner_text() == "✗ stimmt NICHT"
    assert page.locator("#dc-summary").get_attribute("data-state") == "bad"
