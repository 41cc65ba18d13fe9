"""The game seam in the browser: high card, a game that lives only in the test suite (``tests/games/highcard``:
its engine, bot, registry entry and client module under ``static/highcard/``), is played to the end on the
table page by two people and stepped through in its match page's replay. Nothing outside ``tests/`` names it:
the server learns of it as an app of the test suite (``LIVE_SERVER_EXTRA_APPS``), which registers its entry
and makes its static files findable; the table page and the replay viewer load the client module its entry
names and call its hooks.
"""

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.urls import reverse

from games import services
from games.models import Table
from tests.browser.conftest import SCREENSHOT_DIR, serving, signed_in_page
from tests.games.highcard import entry as highcard

pytestmark = pytest.mark.browser

PASSWORD = "Karo-Ass-17!"
SHORT = {"A": "A", "T": "10", "J": "B", "Q": "D", "K": "K"}
SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def short(code: str) -> str:
    """A card as the German page writes it (cards.js cardShort): suit sign, then rank."""
    return SUITS[code[1]] + SHORT.get(code[0], code[0])


@pytest.fixture(scope="module")
def game_server(django_db_setup, django_db_blocker, tmp_path_factory, browser):
    """daphne with high card installed as an app of the test suite (its entry registered, its static found)."""
    extra_env = {"LIVE_SERVER_EXTRA_APPS": "tests.games.highcard.apps.HighCardConfig"}
    with serving(tmp_path_factory.mktemp("highcard_server"), extra_env=extra_env) as server:
        yield server


@pytest.fixture
def server_url(game_server, transactional_db):
    if game_server.process.poll() is not None:
        pytest.fail(f"The game server has died:\n{game_server.log_tail()}")
    return game_server.url


@pytest.fixture(autouse=True)
def third_game():
    # This process creates the table through the services, which ask the registry too.
    game = highcard.register()
    yield game
    highcard.unregister()


@pytest.fixture
def open_page(browser, server_url):
    contexts = []

    def make(user, *, locale="de-DE"):
        return signed_in_page(browser, server_url, user, contexts, locale=locale,
                              viewport={"width": 1280, "height": 900})

    yield make
    for context in contexts:
        context.close()


def make_user(name):
    user = get_user_model().objects.create_user(name, f"{name}@example.com", PASSWORD)
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    return user


def shot(page, name):
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT_DIR / f"{name}.png"), full_page=True)


def frame(page):
    return page.evaluate("window.gameTable.frame")


def version(page):
    return page.evaluate("window.gameTable.version")


def test_two_people_play_high_card_on_the_table_page_and_step_through_its_replay(open_page):
    anna_user, ben_user = make_user("anna"), make_user("ben")
    table = services.table_create_seated(game="highcard", users=[anna_user, ben_user], preset="lang", ranked=False)
    pages = {0: open_page(anna_user), 1: open_page(ben_user)}
    for page in pages.values():
        page.goto(f"/spielen/tisch/{table.pk}/")
        page.wait_for_selector("#table-app[data-connected='1'][data-status='playing']")
        # The game's client module was loaded from its own package, as its entry names it.
        assert page.locator("#game-module").get_attribute("href").endswith("/static/highcard/client.js")

    anna, ben = pages[0], pages[1]
    # High card has no stock and no pile: the shell shows none; its round count is the game's.
    assert anna.locator("#stock").is_hidden() and anna.locator("#pile").is_hidden()
    assert anna.locator("#table-info").inner_text() == "Runde 1 von 3"
    assert anna.locator("#played").inner_text() == "Noch liegt keine Karte."

    rounds_seen = 0
    for _ in range(40):
        view = frame(anna)["view"]
        if view["over"]:
            break
        if view["to_act"] is None:
            # A round's end: its view names the winner (or the tie); both go on to the next round.
            rounds_seen += 1
            for page in pages.values():
                page.wait_for_selector("#round-end[open]")
                last = frame(page)["view"]["last_round"]
                headline = page.locator("#round-headline").inner_text()
                if last["winner"] is None:
                    assert headline == "Die Runde endet ohne Sieger (Gleichstand)."
                else:
                    assert headline == f"{['anna', 'ben'][last['winner']]} gewinnt die Runde – höchste Karte!"
                # Each seat's card of the round, drawn by the one card component.
                played = page.locator("#round-end .summary__seat .pcard").evaluate_all("cs => cs.map(c => c.dataset.card)")
                assert played == last["cards"]
            before = version(anna)
            for page in pages.values():
                page.click("#btn-ready")
            anna.wait_for_function(f"() => window.gameTable.version > {before} && window.gameTable.frame.view.to_act !== null")
            continue
        seat = view["to_act"]
        me, other = pages[seat], pages[1 - seat]
        me.wait_for_function(f"() => window.gameTable.version >= {version(anna)}")
        hand = frame(me)["view"]["hand"]
        # A client never receives a card it may not see: the other window holds no card of this hand.
        assert not set(hand) & set(frame(other)["view"].get("hand", []))
        for card in hand:
            assert other.locator(f"#hand [data-card='{card}']").count() == 0
        assert me.locator("#turn").inner_text() == "Du bist am Zug: eine Karte wählen und ausspielen."
        assert me.locator("#btn-play").is_disabled()
        card = hand[0]
        me.click(f"#hand .pcard[data-card='{card}']")
        assert me.locator("#btn-play").inner_text() == f"{short(card)} ausspielen"
        before = version(me)
        me.click("#btn-play")
        me.wait_for_function(f"() => window.gameTable.version > {before}")
        other.wait_for_function(f"() => window.gameTable.version > {before}")
        # The other window shows the card in the middle and says who played it, in the game's words.
        assert other.locator(f"#played .meld[data-seat='{seat}'] [data-card='{card}']").count() == 1
        assert other.locator("#last-move").inner_text() == f"{['anna', 'ben'][seat]} spielt {short(card)}"
        if rounds_seen == 0 and len(frame(other)["view"]["history"]) == 1:
            shot(other, "highcard_table")
    else:
        pytest.fail("the match did not end")

    assert rounds_seen == 2  # the third round's end is the match's
    match = Table.objects.get(pk=table.pk).current_match
    result = match.result
    for page in pages.values():
        page.wait_for_selector("#match-end:not([hidden])")
        assert page.locator("#round-end").get_attribute("data-kind") == "match"
        # The score sheet: three rounds, a +1 for each round's winner, and the totals.
        rows = page.locator("#score-sheet tbody tr")
        assert rows.count() == 3
        for index, round_ in enumerate(frame(page)["view"]["scores"]["rounds"]):
            cells = rows.nth(index).locator("td").all_inner_texts()
            assert cells == ["+1" if round_["winner"] == seat else "" for seat in range(2)]
        assert page.locator("#score-sheet tfoot td").all_inner_texts() == [str(n) for n in result["final"]]
        assert page.locator("#final-score tbody tr").count() == 2
        if result["winner"] is not None:
            assert page.locator("#match-end").inner_text().startswith(f"{['anna', 'ben'][result['winner']]} gewinnt die Partie!")
    assert not anna.errors and not ben.errors

    # The replay on the match page: its client module's hooks, the cards of cards.js.
    anna.goto(reverse("matches:detail", kwargs={"match_id": match.pk}))
    anna.wait_for_selector("#replay[data-ready='true']")
    assert anna.locator("#game-module").get_attribute("href").endswith("/static/highcard/client.js")
    data = anna.evaluate("JSON.parse(document.getElementById('replay-data').textContent)")
    assert data["game"] == "highcard" and len(data["positions"]) == 3 + 3 * 2
    first = data["rounds"][0]
    deal = data["positions"][first["first"]]
    for seat in range(2):
        shown = anna.locator(f".rv-seat[data-seat='{seat}'] [data-role='hand'] .pcard").evaluate_all("cs => cs.map(c => c.dataset.card)")
        assert shown == deal["hands"][seat]
    assert anna.locator("#rv-board [data-role='discard']").count() == 0  # no pile in this game
    anna.click("#rv-forward")
    move = data["positions"][first["first"] + 1]["move"]
    name = data["players"][move["seat"]]
    assert anna.locator("#rv-move").inner_text() == f"{name} spielt {short(move['card'])}"
    assert anna.locator(f".rv-seat[data-seat='{move['seat']}'] [data-role='hand'] .pcard").count() == 1
    anna.click("#rv-forward")
    summary = first["summary"]
    end_line = anna.locator("#rv-move").inner_text()
    if summary["winner"] is None:
        assert end_line.endswith("Die Runde endet ohne Sieger.")
    else:
        assert end_line.endswith(f"{data['players'][summary['winner']]} gewinnt die Runde: höchste Karte.")
    anna.click("#rv-back")
    assert anna.locator("#rv-move").inner_text() == f"{name} spielt {short(move['card'])}"
    shot(anna, "highcard_replay")
    anna.select_option("#rv-round", "3")
    assert anna.locator("#rv-counter").inner_text() == "Ausgeteilt · Zug 0 von 2"
    assert not anna.errors

    # In English (a watcher who reads English), the game's own words come from its entry too.
    emma = make_user("emma")
    emma.profile.language = "en"
    emma.profile.save()
    english = open_page(emma, locale="en-US")
    english.goto(reverse("matches:detail", kwargs={"match_id": match.pk}))
    english.wait_for_selector("#replay[data-ready='true']")
    english.click("#rv-forward")
    assert english.locator("#rv-move").inner_text().startswith(f"{name} plays ")
    english.goto(f"/spielen/tisch/{table.pk}/")
    english.wait_for_selector("#table-app[data-connected='1']")
    assert english.locator("#last-move").inner_text().split(" plays ")[0] in ("anna", "ben")
    assert english.locator("#score-sheet thead").inner_text().startswith("Round")
    assert not english.errors
