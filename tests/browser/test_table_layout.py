"""The table on one screen, in a real browser: at 1366×768 (a laptop) and 390×844 (a phone), for gin and for a
4-seat Rommé list against computer players, everything a turn needs is inside the viewport at once (the
own hand, stock and pile, the other players, every enabled button), the score sheet fits its panel, a
finger drags a card onto the pile, a resigned Rommé list is gone from the player's lobby, and the English
table shows English rank letters. Screenshots of both tables at both sizes land in artifacts/screenshots/.

Like test_games.py this module runs its own daphne and referee (fixed deal seed, quick computer players).
"""

import json
import random
import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import F
from django.utils import timezone
from django.utils.translation import override
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import registry, services
from games.engine.romme.melds import validate_meld
from games.models import Table
from games.templatetags.table_i18n import table_strings
from tests.browser.conftest import SCREENSHOT_DIR, elsewhere, serving, signed_in_page

pytestmark = pytest.mark.browser

SEED = "layout-tests-1"
LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
SIZES = [pytest.param(LAPTOP, id="laptop"), pytest.param(PHONE, id="phone")]


def _table_id_sequence(value=None):
    """The next table id's counter (read, or set back to ``value``). Seeded deals depend on a table's id,
    so the tables these tests open must not change the deals of the test modules that run after them."""
    table = Table._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            if value is None:
                cursor.execute("SELECT seq FROM sqlite_sequence WHERE name = %s", [table])
                row = cursor.fetchone()
                return ("sqlite", row[0] if row else None)
            cursor.execute("DELETE FROM sqlite_sequence WHERE name = %s", [table])
            if value[1] is not None:
                cursor.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)", [table, value[1]])
        elif connection.vendor == "postgresql":
            cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
            sequence = cursor.fetchone()[0]
            if value is None:
                cursor.execute(f"SELECT last_value, is_called FROM {sequence}")
                return ("postgresql", cursor.fetchone())
            cursor.execute("SELECT setval(%s, %s, %s)", [sequence, *value[1]])
    return None


@pytest.fixture(scope="module", autouse=True)
def _table_ids_as_found(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        before = _table_id_sequence()
    yield
    with django_db_blocker.unblock():
        if before is not None:
            _table_id_sequence(before)


@pytest.fixture(scope="module")
def layout_server(django_db_setup, django_db_blocker, tmp_path_factory, browser):
    extra_env = {"GAMES_TEST_DEAL_SEED": SEED, "GAMES_BOT_DELAY_SECONDS": "0.1"}
    with serving(tmp_path_factory.mktemp("layout_server"), extra_env=extra_env, referee=True) as server:
        yield server


@pytest.fixture
def server_url(layout_server, transactional_db):
    if layout_server.process.poll() is not None:
        pytest.fail(f"The game server has died:\n{layout_server.log_tail()}")
    yield layout_server.url
    # Stop all play before the tables are emptied (a referee still moving computers would deadlock).
    Table.objects.update(status=Table.Status.ABORTED, turn_deadline=None, bot_due_at=None)


@pytest.fixture
def open_page(browser, server_url):
    contexts = []

    def make(user, size, *, locale="de-DE", reduced_motion="no-preference"):
        phone = size["width"] < 700
        return signed_in_page(browser, server_url, user, contexts, locale=locale, viewport=size, has_touch=phone,
                              is_mobile=phone, reduced_motion=reduced_motion)

    yield make
    for context in contexts:
        context.close()


def make_user(name):
    return get_user_model().objects.create_user(name, f"{name}@example.com", "Kreuz-Bube-17!")


def frame(page):
    return page.evaluate("window.gameTable.frame")


def settled(page):
    """The page has the table's current version, drawn (the game's module loaded, ``data-hand`` set by the
    first render), and no card is in flight."""
    page.wait_for_selector("#table-app[data-connected='1'][data-hand]")
    page.wait_for_function("() => window.gameTable.moving === 0")


def my_turn(page, *, phase):
    """Plays the page's own seat (pass, draw from the stock, confirm a round's end) until it is to act in
    ``phase`` ("draw" or "discard"), waiting on the server between steps."""
    for _ in range(200):
        state = frame(page)
        view, me = state["view"], state["table"]["you"]
        version = state["version"]
        if view["to_act"] is None:
            if page.locator("#btn-ready").is_visible() and page.locator("#btn-ready").is_enabled():
                page.click("#btn-ready")
            page.wait_for_function(f"() => window.gameTable.version > {version}", timeout=30_000)
            continue
        if view["to_act"] != me:
            page.wait_for_function(
                "() => { const v = window.gameTable.frame.view; return v.to_act === v.seat || v.to_act === null; }",
                timeout=30_000,
            )
            continue
        legal = view.get("legal_actions", [])
        if phase == "discard" and any(a["action"] in ("discard", "knock") for a in legal):
            return
        if phase == "draw" and any(a["action"] == "draw" for a in legal) and not any(a["action"] == "pass" for a in legal):
            return
        if any(a["action"] == "pass" for a in legal):
            page.click("#btn-pass")
        elif any(a["action"] == "draw" for a in legal):
            page.click("#stock")
        else:
            discard = next(a for a in legal if a["action"] == "discard")
            page.locator(f"#hand [data-card='{discard['card']}']").first.click()
            page.click("#btn-discard")
        page.wait_for_function(f"() => window.gameTable.version > {version}", timeout=30_000)
    pytest.fail("the player's turn never came")


def boxes(page, selector):
    return page.evaluate(SHOWN, selector)["boxes"]


#: The boxes of ``s`` and, in the same turn of the page's script (a frame drawn a moment later would hide what
#: was wrong), what hides those not shown (the nearest ancestor not displayed) and what the page holds.
SHOWN = """s => {
  const els = [...document.querySelectorAll(s)];
  const box = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, what: e.id || e.className}; };
  const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className ? "." + e.className : "");
  const hider = (e) => { for (let a = e; a; a = a.parentElement) {
    if (getComputedStyle(a).display === "none") return name(a); } return e.isConnected ? "?" : "detached"; };
  const root = document.getElementById("table-app");
  const game = window.gameTable || {};
  return {boxes: els.filter((e) => e.getClientRects().length).map(box),
    state: {found: els.length, hiddenBy: [...new Set(els.filter((e) => !e.getClientRects().length).map(hider))],
      root: root ? {...root.dataset} : null, version: game.version, received: game.received,
      toAct: game.frame?.view?.to_act, over: game.frame?.view?.over, status: game.frame?.table?.status,
      endOpen: document.getElementById("round-end")?.open, moving: game.moving}};
}"""


def assert_on_screen(page, selector, size, *, at_least=1):
    shown = page.evaluate(SHOWN, selector)
    found = shown["boxes"]
    if len(found) < at_least:
        pytest.fail(f"{selector}: {len(found)} shown; the page then: {shown['state']}; its errors: {page.errors}")
    for box in found:
        inside = box["left"] >= -0.5 and box["top"] >= -0.5 and box["right"] <= size["width"] + 0.5 and box["bottom"] <= size["height"] + 0.5
        assert inside, f"{selector} ({box['what']}) is outside the {size['width']}×{size['height']} viewport: {box}"


def font_size(page, selector: str) -> float:
    """The font size in px of the first element ``selector`` finds, found and read in one turn of the page's
    script: a frame may draw the hand anew between a locator's finding and its reading, and an element no
    longer in the document has no computed size (``NaN``)."""
    return page.evaluate("s => parseFloat(getComputedStyle(document.querySelector(s)).fontSize)", selector)


def assert_turn_fits(page, size, *, opponents, cards=10):
    """Everything a turn needs is on screen without scrolling."""
    assert page.evaluate("document.scrollingElement.scrollTop") == 0
    assert_on_screen(page, "#hand .pcard", size, at_least=cards)
    assert_on_screen(page, "#stock", size)
    assert_on_screen(page, "#pile", size)
    assert_on_screen(page, "#opponents .seat", size, at_least=opponents)
    assert_on_screen(page, "#opponents .seat .fan", size, at_least=opponents)
    assert_on_screen(page, "#opponents .seat [data-role=count]", size, at_least=opponents)
    assert_on_screen(page, "#numbers > *", size)
    assert_on_screen(page, "#clock", size)
    assert_on_screen(page, "#actions .btn", size)  # every button of the moment, enabled or not
    assert_on_screen(page, "#actions .btn:not([disabled])", size, at_least=0)
    # Cards are big enough to read and to tap.
    rank = font_size(page, "#hand .pcard__rank")
    assert rank >= 12
    for box in boxes(page, "#actions .btn, #stock, #pile"):
        assert box["bottom"] - box["top"] >= 44, box
    # How much of each card shows (up to the next card of its row), read in the same turn of the page's script
    # as what the page then held (SHOWN): CI once read every card at 0 px, the hand hidden a moment after it
    # was found on screen; the message now says what hid it.
    read = page.evaluate(
        "s => { const cards = [...document.querySelectorAll(s)];"
        " return {widths: cards.map((c, i) => { const r = c.getBoundingClientRect(); const next = cards[i + 1];"
        " const n = next && next.getBoundingClientRect(); return n && Math.abs(n.top - r.top) < 5 ? n.left - r.left : r.width; }),"
        f" page: ({SHOWN})(s).state}}; }}",
        "#hand .pcard",
    )
    if min(read["widths"]) < 44:
        pytest.fail(f"cards show {read['widths']} px; the page then: {read['page']}; its errors: {page.errors}")


def open_panel(page, size):
    """The score sheet: beside the table on a laptop, in the drawer on a phone."""
    if size["width"] < 1100:
        page.click("#btn-panel")
        page.wait_for_selector("#side.is-open")
    assert_on_screen(page, "#score-sheet", size)
    overflow = page.evaluate(
        "() => { const box = document.getElementById('scores'); const sheet = document.getElementById('score-sheet');"
        " const side = document.getElementById('side').getBoundingClientRect(); const r = sheet.getBoundingClientRect();"
        " return {scroll: box.scrollWidth - box.clientWidth, sheet: sheet.scrollWidth - sheet.clientWidth,"
        " left: r.left - side.left, right: side.right - r.right}; }"
    )
    assert overflow["scroll"] <= 0 and overflow["sheet"] <= 0, overflow
    assert overflow["left"] >= 0 and overflow["right"] >= 0, overflow
    # Every player's column shows its numbers (nothing cut off to the right).
    cells = boxes(page, "#score-sheet tfoot td")
    side = page.locator("#side").bounding_box()
    assert cells and all(c["right"] <= side["x"] + side["width"] + 0.5 for c in cells)


def close_panel(page, size):
    if size["width"] < 1100:
        page.click("#btn-panel-close")
        page.wait_for_selector("#side:not(.is-open)", state="attached")


def shot(page, name):
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT_DIR / f"{name}.png"))


def size_name(size):
    return "laptop" if size["width"] > 700 else "phone"


# --- gin -----------------------------------------------------------------------------------------------


def quick_table(page, game):
    page.goto("/spielen/")
    page.click(f"#quick-{game}")
    page.wait_for_url("**/spielen/tisch/*/")
    settled(page)
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


@pytest.mark.parametrize("size", SIZES)
def test_gin_turn_fits_the_screen(server_url, open_page, size):
    page = open_page(make_user("gina"), size)
    quick_table(page, "gin")
    my_turn(page, phase="draw")
    settled(page)
    assert_turn_fits(page, size, opponents=1)
    page.click("#stock")
    page.wait_for_selector("#btn-knock")
    settled(page)
    assert_turn_fits(page, size, opponents=1)
    assert_on_screen(page, "#deadwood-meter", size)
    # Tipp answers inside the meter, never over the buttons.
    page.click("#btn-tip")
    page.wait_for_selector("#meter-note.meter__note--tip")  # the server's answer (a `hint` frame)
    assert page.locator("#meter-note").inner_text().startswith("Tipp:")
    assert page.locator("#toast").is_hidden()
    assert_turn_fits(page, size, opponents=1)
    shot(page, f"gin_table_{size_name(size)}")
    open_panel(page, size)
    close_panel(page, size)
    assert not page.errors


def test_a_touch_drag_discards(server_url, open_page):
    page = open_page(make_user("tina"), PHONE)
    quick_table(page, "gin")
    my_turn(page, phase="discard")
    settled(page)
    view = frame(page)["view"]
    card = next(a["card"] for a in view["legal_actions"] if a["action"] == "discard")
    source = page.locator(f"#hand [data-card='{card}']").bounding_box()
    target = page.locator("#pile").bounding_box()
    start = (source["x"] + source["width"] / 2, source["y"] + source["height"] / 2)
    end = (target["x"] + target["width"] / 2, target["y"] + target["height"] / 2)
    version = page.evaluate("window.gameTable.version")
    # A real finger, as the phone's touch screen sends it: down on the card, a slide, up over the pile.
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": start[0], "y": start[1]}]})
    for step in range(1, 11):
        x = start[0] + (end[0] - start[0]) * step / 10
        y = start[1] + (end[1] - start[1]) * step / 10
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    page.wait_for_function(f"() => window.gameTable.version > {version}")
    after = frame(page)["view"]
    assert card not in after["hand"]
    assert any(m["action"] in ("discard", "knock") and m["card"] == card for m in after["history"])
    assert not page.errors


# --- Rommé: four seats, long melds, a score sheet with rounds -----------------------------------------------

LONG_MELDS = [
    (1, ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH"]),
    (1, ["7C", "7D", "7S", "JK"]),
    (2, ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS"]),
    (2, ["QC", "QD", "QS"]),
    (3, ["5D", "6D", "JK", "8D", "9D", "TD", "JD"]),
    (3, ["KC", "KD", "KH", "KS"]),
    (3, ["3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC"]),
]


OWN_HAND = ["2C", "QC", "5S", "7H", "8H", "9H", "TH", "QH", "3S", "9D", "QD", "KD", "JK"]


def romme_round_summary(seats, winner, minus):
    return {
        "result": "romme", "winner": winner, "hand_romme": False, "augen": minus, "minus": minus,
        "opened": [True] * seats, "laid_off": [False] * seats, "hands": [[] for _ in range(seats)], "melds": [],
    }


def crowd_the_table(table_id, me):
    """Three rounds already played and long melds of every other player on the table; the turn is the
    player's. Only done while it is the player's turn anyway (so no computer move can race the change)."""
    table = Table.objects.get(pk=table_id)
    state = table.state
    seats = len(state["round"]["hands"])
    assert state["round"]["to_act"] == me
    state["summaries"] = [
        romme_round_summary(seats, 1, [112, 0, 37, 85]),
        romme_round_summary(seats, 3, [64, 120, 9, 0]),
        romme_round_summary(seats, 2, [100, 41, 0, 33]),
    ]
    # One round record per summary (the engine keeps them in step): the current deal, no moves.
    state["finished"] = [{**state["round"]["deal"], "moves": []} for _ in state["summaries"]]
    state["round"]["melds"] = [{"number": i + 1, "owner": owner, "cards": cards} for i, (owner, cards) in enumerate(LONG_MELDS)]
    state["round"]["opened"] = [seat != me for seat in range(seats)]
    for seat in range(seats):
        if seat != me:
            state["round"]["hands"][seat] = state["round"]["hands"][seat][:5]
    # The player's hand holds an opening (7–10 ♥ with a joker, three queens) and two lay-offs (2♣ on meld 7,
    # ♦D on meld 5).
    state["round"]["hands"][me] = OWN_HAND
    Table.objects.filter(pk=table_id).update(state=state, version=F("version") + 1)


def romme_table_at_my_turn(page):
    table_id = quick_table(page, "romme")
    my_turn(page, phase="draw")
    crowd_the_table(table_id, frame(page)["table"]["you"])
    page.reload()
    settled(page)
    assert len(frame(page)["view"]["melds"]) == len(LONG_MELDS)
    return table_id


@pytest.mark.parametrize("size", SIZES)
def test_romme_turn_with_four_seats_and_long_melds_fits_the_screen(server_url, open_page, size):
    page = open_page(make_user("rosa"), size)
    romme_table_at_my_turn(page)
    assert page.locator("#opponents .seat").count() == 3
    assert_turn_fits(page, size, opponents=3)
    # Each other player's last turn stays named at their seat, every move of it (not only the last one's).
    history = frame(page)["view"]["history"]
    for seat in {m["seat"] for m in history if m["action"] != "reshuffle"}:
        line = page.locator(f"#opponents .seat[data-seat='{seat}'] [data-role=last]").inner_text()
        assert line and "wirft" in line, (seat, line)
    assert_on_screen(page, "#melds", size)
    # The melds carry their numbers (the swap and lay-off buttons name them), with readable cards.
    numbers = page.locator("#melds .meld__no").all_inner_texts()
    assert numbers == [str(n) for n in range(1, len(LONG_MELDS) + 1)]
    rank = font_size(page, "#melds .pcard__rank")
    assert rank >= 12
    version = page.evaluate("window.gameTable.version")
    page.click("#stock")
    page.wait_for_function(f"() => window.gameTable.version > {version}")
    settled(page)
    assert_turn_fits(page, size, opponents=3)
    # The meld builder: the server's suggestion staged, its points from the server, all in view.
    page.click("#btn-suggest")
    page.wait_for_function(
        "() => { const m = [...document.querySelectorAll('#melds .meld--staged')]; return m.length && m.every((x) => x.dataset.status === 'ok'); }"
    )
    assert_on_screen(page, "#melds .meld--staged", size)
    assert_on_screen(page, "#opening-total", size)
    assert_turn_fits(page, size, opponents=3)
    assert int(page.locator("#opening-total strong").inner_text().split("/")[0]) >= 40
    shot(page, f"romme_builder_{size_name(size)}")
    version = page.evaluate("window.gameTable.version")
    page.click("#btn-lay-out")
    page.wait_for_function(f"() => window.gameTable.version > {version}")
    settled(page)
    # Opened: choosing a card that fits a meld shows its lay-off buttons, naming the meld's number.
    layoff = next(a for a in frame(page)["view"]["legal_actions"] if a["action"] == "lay_off")
    page.locator(f"#hand [data-card='{layoff['card']}']").first.click()
    page.wait_for_selector(".btn-lay-off")
    assert f"Meldung {layoff['meld']}" in page.locator("#actions").inner_text()
    assert_turn_fits(page, size, opponents=3, cards=4)
    shot(page, f"romme_table_{size_name(size)}")
    open_panel(page, size)
    assert page.locator("#score-sheet tbody tr").count() == 3
    # Every player's column shows its total, the long computer names shortened.
    assert page.locator("#score-sheet tfoot td").all_inner_texts() == ["−276", "−161", "−46", "−118"]
    shot(page, f"romme_scores_{size_name(size)}")
    close_panel(page, size)
    assert not page.errors


def test_meld_builder_shows_the_servers_order_and_points(server_url, open_page):
    page = open_page(make_user("mara"), LAPTOP)
    quick_table(page, "romme")
    # The page asks the server; what it computes is what the engine says (a run written lowest first,
    # a spare joker at the top end, an invalid choice named as such).
    answers = page.evaluate(
        """async () => {
            const store = await import("/static/games/table/store.js");
            return Promise.all([["KH", "JK", "QH"], ["7H", "8C", "9H"], ["2S", "AS", "3S"]].map((c) => store.askMeldPreview(c)));
        }"""
    )
    assert [a["meld"] for a in answers] == [["QH", "KH", "JK"], None, ["AS", "2S", "3S"]]
    assert [a["points"] for a in answers] == [31, None, 6]
    assert not page.errors


# --- the end of a round and of the match ---------------------------------------------------------------


def play_out(table_id, *, until):
    """Every seat plays the computer's moves (the engine's, in this process) until the round ("round") or
    the whole match ("match") is over; the table then shows that end. Done while it is the player's turn, so
    the referee has nothing to race."""
    table = Table.objects.get(pk=table_id)
    engine = registry.get(table.game).engine
    match = engine.Match.from_json(table.state)
    rng = random.Random(11)
    for _ in range(20_000):
        if match.over:
            break
        if match.to_act is None:
            if until == "round":
                break
            match = engine.deal_next_round(match, rng=rng)
            continue
        action = registry.get(table.game).bot_action(match, match.to_act, "simple", rng)
        match = engine.apply_action(match, match.to_act, action, rng=rng)
    Table.objects.filter(pk=table_id).update(
        state=match.to_json(), version=F("version") + 1, bot_due_at=None,
        turn_deadline=timezone.now() + timedelta(minutes=10),
    )


def assert_end_view_fits(page, size, *, seats):
    page.wait_for_selector("#round-end[open]")
    settled(page)
    for selector in ("#round-end", "#round-end-title", "#btn-round-close"):
        assert_on_screen(page, selector, size)
    assert page.locator("#round-end .summary__seat").count() == seats or page.locator("#match-end").is_visible()


@pytest.mark.parametrize("size", SIZES)
def test_romme_round_end_and_match_end_each_show_as_one_view(server_url, open_page, size):
    page = open_page(make_user("olga"), size)
    table_id = quick_table(page, "romme")
    my_turn(page, phase="draw")
    play_out(table_id, until="round")
    page.reload()
    assert_end_view_fits(page, size, seats=4)
    # Who won and how, on top; every hand below; the next round a click away.
    assert_on_screen(page, "#round-headline", size)
    assert "gewinnt die Runde" in page.locator("#round-headline").inner_text() or "ohne Sieger" in page.locator("#round-headline").inner_text()
    assert_on_screen(page, "#btn-ready", size)
    assert page.locator("#round-end .summary__seat").count() == 4
    shot(page, f"romme_round_end_{size_name(size)}")
    # Closed, it leaves the table in view and a button to see it again.
    page.click("#btn-round-close")
    assert_on_screen(page, "#btn-show-result", size)
    page.click("#btn-show-result")
    page.wait_for_selector("#round-end[open]")

    play_out(table_id, until="match")
    page.reload()
    assert_end_view_fits(page, size, seats=4)
    assert page.locator("#round-end").get_attribute("data-kind") == "match"
    assert_on_screen(page, ".gt-match-end__text", size)
    assert page.locator(".gt-match-end__text").inner_text().endswith(("gewinnt die Partie!", "unentschieden."))
    # The final score, one row per player, and the way to a rematch: all in the one view.
    assert page.locator("#final-score tbody tr").count() == 4
    assert_on_screen(page, "#final-score", size)
    assert_on_screen(page, "#btn-rematch", size)
    assert page.locator("#btn-ready").is_hidden()
    shot(page, f"romme_match_end_{size_name(size)}")
    assert not page.errors


@pytest.mark.parametrize("size", SIZES)
def test_gin_match_end_names_the_winner_and_the_final_score_with_bonuses(server_url, open_page, size):
    page = open_page(make_user("gero"), size)
    table_id = quick_table(page, "gin")
    my_turn(page, phase="draw")
    play_out(table_id, until="match")
    page.reload()
    assert_end_view_fits(page, size, seats=2)
    view = frame(page)["view"]
    assert_on_screen(page, ".gt-match-end__text", size)
    assert_on_screen(page, "#final-score", size)
    assert_on_screen(page, "#btn-rematch", size)
    final = page.locator("#final-score").inner_text()
    for value in view["result"]["final"]:
        assert str(value) in final
    assert "Boni" in final  # the game bonus at least: the final is more than the round points
    shot(page, f"gin_match_end_{size_name(size)}")
    assert not page.errors


# --- a resigned Rommé list, English ------------------------------------------------------------------------


def test_a_resigned_romme_table_is_gone_from_the_players_lobby(server_url, open_page):
    user = make_user("rudi")
    page = open_page(user, LAPTOP)
    table_id = quick_table(page, "romme")
    page.goto("/spielen/")
    assert page.locator(f".gl-mine a[href='/spielen/tisch/{table_id}/']").count() == 1
    page.goto(f"/spielen/tisch/{table_id}/")
    settled(page)
    page.click("#btn-resign")
    page.click("#btn-resign-confirm")
    page.wait_for_selector("#left-note:not([hidden])")
    # The list goes on among the computer players; the page shows it as to a spectator.
    assert page.locator("#hand .pcard").count() == 0
    assert page.locator("#btn-resign").is_hidden()
    assert page.locator("#chat-form").is_hidden()
    assert Table.objects.get(pk=table_id).seats.get(user=user).left
    page.goto("/spielen/")
    page.wait_for_selector("#lobby-live[data-status='online']")
    assert page.locator(".gl-mine").count() == 0
    assert page.locator(f".gl-table[data-table='{table_id}']").count() == 0
    assert not page.errors


def test_the_english_table_shows_no_german_rank_letter(server_url, open_page):
    user = make_user("emma")
    user.profile.language = "en"
    user.profile.save()
    with override("en"):
        table = services.table_create(user=user, game="gin", bots="simple", options={"turn_seconds": 600})
    page = open_page(user, LAPTOP, locale="en-US")
    page.goto(f"/spielen/tisch/{table.pk}/")
    settled(page)
    my_turn(page, phase="discard")
    settled(page)
    assert page.locator("h1").inner_text().startswith("Gin Rummy")
    ranks = set(page.locator(".pcard__rank").all_inner_texts())
    assert ranks and ranks <= {"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "★"}, ranks
    text = page.locator("#table-app").inner_text()
    assert not re.search(r"[♣♦♥♠](B|D)\b", text), text
    assert "Rommé" not in text and "Restpunkte" not in text
    labels = page.locator("#hand .pcard").evaluate_all("cards => cards.map(c => c.getAttribute('aria-label'))")
    assert all(" of " in label or label == "Joker" for label in labels), labels
    shot(page, "gin_table_english_laptop")
    # The lobby names both games in English too.
    page.goto("/spielen/")
    assert page.locator("#quick").inner_text().count("Gin Rummy") == 1
    assert "Rummy" in page.locator("#quick-romme").inner_text() and "Rommé" not in page.locator("#quick").inner_text()
    # Each game's suit in its own colour: Rommé's red is its package's (romme/romme.css), gin's the shared green.
    suit = "e => getComputedStyle(e).color"
    assert page.eval_on_selector("#quick-romme .gl-quick__suit", suit) == "rgb(192, 38, 45)"
    assert page.eval_on_selector("#quick-gin .gl-quick__suit", suit) == "rgb(11, 77, 50)"
    assert not page.errors


@pytest.mark.parametrize("game", ["gin", "romme"])
def test_every_text_of_the_table_has_its_english_translation(game):
    with override("de"):
        german = table_strings(game)
    with override("en"):
        english = table_strings(game)
    same = {key for key, text in german.items() if text == english[key]}
    # Words English shares with German (and placeholders alone) are the only ones left as they are.
    assert same <= {"gin", "result_gin", "turn_line", "offline", "computer_n", "computer_tiny", "computer_name", "computer_plain", "wp_short"}, same
    assert json.dumps(english).count("{") == json.dumps(german).count("{")


def test_sounds_wait_for_the_first_interaction_and_the_off_switch_is_remembered(server_url, open_page):
    user = make_user("sina")
    page = open_page(user, LAPTOP)
    page.add_init_script(
        "window.__contexts = 0; const Real = window.AudioContext;"
        " window.AudioContext = class extends Real { constructor(...a) { super(...a); window.__contexts += 1; } };"
    )
    table = services.table_create(user=user, game="gin", bots="simple", options={"turn_seconds": 600})
    page.goto(f"/spielen/tisch/{table.pk}/")
    settled(page)
    # Moves arrive (one of the player's, played here on the server, and the computer's answer), but
    # nothing may sound before the player has clicked or typed on the page.
    # Whose turn it is, as the page shows it: the database may already be a computer's move further on (its
    # frame on the way), and a page that shows the player to act is current, for only the player can move then.
    shown = frame(page)
    me = shown["table"]["you"]
    if shown["view"]["to_act"] == me:
        action = next(a for a in shown["view"]["legal_actions"] if a["action"] == "pass" or a.get("from") == "stock")
        elsewhere(services.move_apply, table_id=table.pk, user=user, version=shown["version"], action=action)
    page.wait_for_function(f"() => window.gameTable.frame.view.history.some((m) => m.seat !== {me})", timeout=15_000)
    assert page.evaluate("window.__contexts") == 0
    assert page.get_attribute("#btn-sound", "aria-pressed") == "true"
    page.click("#btn-sound")
    assert page.get_attribute("#btn-sound", "aria-pressed") == "false"
    page.reload()
    settled(page)
    assert page.get_attribute("#btn-sound", "aria-pressed") == "false"
    assert page.evaluate("localStorage.getItem('games:sound')") == "off"
    my_turn(page, phase="discard")
    assert page.evaluate("window.__contexts") == 0  # switched off: no sound at all
    # Switched on again (a click: the page may sound now), the next card laid down is heard.
    page.click("#btn-sound")
    card = next(a["card"] for a in frame(page)["view"]["legal_actions"] if a["action"] == "discard")
    version = page.evaluate("window.gameTable.version")
    page.locator(f"#hand [data-card='{card}']").dblclick()
    page.wait_for_function(f"() => window.gameTable.version > {version}")
    page.wait_for_function("() => window.__contexts === 1")
    assert not page.errors


def test_a_frame_drawn_while_a_card_is_pressed_does_not_lose_the_click(server_url, open_page):
    """A frame (a move, a presence, a chat line) drawn between the press on a card and its release would put new
    cards in the hand: the click, a press and a release on one element, would come to nothing. The page draws
    it once the pointer is lifted."""
    page = open_page(make_user("pia"), LAPTOP)
    quick_table(page, "gin")
    my_turn(page, phase="discard")
    settled(page)
    page.evaluate("window.gameTable.holdMs = 600000")  # only the release may draw the waiting frame here
    card = frame(page)["view"]["hand"][0]
    box = page.locator(f"#hand [data-card='{card}']").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    mark_hand(page)
    page.evaluate("window.gameTable.redraw()")
    assert page.evaluate(HAND_MARKED)  # held back: the pressed card is the one the press began on
    page.mouse.up()
    assert page.locator(f"#hand [data-card='{card}']").get_attribute("aria-pressed") == "true"
    assert len(page.evaluate("window.gameTable.selected")) == 1
    page.wait_for_function(f"() => !({HAND_MARKED})")  # and drawn once the press ended
    # A press that is no click (on the numbers beside the hand): its release alone draws the waiting frame.
    box = page.locator("#numbers").bounding_box()
    page.mouse.move(box["x"] + 2, box["y"] + 2)
    page.mouse.down()
    mark_hand(page)
    page.evaluate("window.gameTable.redraw()")
    assert page.evaluate(HAND_MARKED)
    page.mouse.up()
    page.wait_for_function(f"() => !({HAND_MARKED})")
    assert not page.errors


#: Whether every card of the hand is still an element ``mark_hand`` marked (no frame drawn since).
HAND_MARKED = "[...document.querySelectorAll('#hand [data-card]')].every((el) => el.heldMark === true)"


def mark_hand(page) -> None:
    page.evaluate("document.querySelectorAll('#hand [data-card]').forEach((el) => { el.heldMark = true; })")


def test_a_press_held_longer_than_the_hold_time_lets_the_waiting_frame_be_drawn(server_url, open_page):
    """A press that never ends (a finger resting on the table) must not freeze it: after the hold time the frame
    waiting for it is drawn anyway."""
    page = open_page(make_user("pit"), LAPTOP)
    quick_table(page, "gin")
    my_turn(page, phase="discard")
    settled(page)
    page.evaluate("window.gameTable.holdMs = 300")
    box = page.locator("#hand [data-card]").first.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    mark_hand(page)
    page.evaluate("window.gameTable.redraw()")
    assert page.evaluate(HAND_MARKED)
    page.wait_for_function(f"() => !({HAND_MARKED})")  # drawn while the button is still down
    page.mouse.up()
    assert not page.errors


def test_a_resignation_offline_is_not_sent_and_the_page_says_so(server_url, open_page):
    """Offline (here: every socket of the page refused), the resignation cannot reach the server: the page says
    that nothing was sent, and the match goes on."""
    user = make_user("otto")
    page = open_page(user, LAPTOP)
    page.route_web_socket(re.compile(r"/ws/"), lambda socket: socket.close())
    table = services.table_create(user=user, game="gin", bots="simple", options={"turn_seconds": 600})
    page.goto(f"/spielen/tisch/{table.pk}/")
    page.wait_for_selector("#table-app[data-connected='0']")
    page.click("#btn-resign")
    page.click("#btn-resign-confirm")
    page.wait_for_selector("#toast:not([hidden])")
    assert page.locator("#toast").inner_text().startswith("Keine Verbindung")
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    assert not table.seats.filter(left=True).exists()
    assert not page.errors


def test_a_click_after_the_table_changed_is_a_new_choice_not_the_second_half_of_a_double_click(server_url, open_page):
    page = open_page(make_user("dora"), LAPTOP)
    quick_table(page, "gin")
    my_turn(page, phase="draw")
    settled(page)
    # However slow the machine, both clicks below come within the double-click time.
    page.evaluate("window.gameTable.doubleClickMs = 600000")
    card = frame(page)["view"]["hand"][0]
    page.click(f"#hand [data-card='{card}']")
    assert page.locator(f"#hand [data-card='{card}']").get_attribute("aria-pressed") == "true"
    version = page.evaluate("window.gameTable.version")
    page.click("#stock")
    page.wait_for_function(f"() => window.gameTable.version > {version}")
    settled(page)
    drawn = page.evaluate("window.gameTable.version")
    assert page.locator(f"#hand [data-card='{card}']").get_attribute("aria-pressed") == "true"  # still chosen
    # The same card clicked again after the draw: it is no longer chosen, and it was not thrown away.
    page.click(f"#hand [data-card='{card}']")
    assert page.locator(f"#hand [data-card='{card}']").get_attribute("aria-pressed") == "false"
    assert page.evaluate("window.gameTable.selected") == []
    assert page.evaluate("window.gameTable.version") == drawn
    assert card in frame(page)["view"]["hand"]
    assert not page.errors


def test_keyboard_alone_chooses_and_plays_a_card(server_url, open_page):
    page = open_page(make_user("kai"), LAPTOP)
    quick_table(page, "gin")
    my_turn(page, phase="draw")
    settled(page)
    # Enter on the stock draws; Tab reaches the hand (one stop), arrows walk it, Space chooses, Delete discards.
    page.focus("#stock")
    version = page.evaluate("window.gameTable.version")
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => window.gameTable.version > {version}")
    settled(page)
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("!!document.activeElement.closest('#hand')"):
            break
    else:
        pytest.fail("Tab never reached the hand")
    assert page.evaluate("document.activeElement.matches(':focus-visible')")
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    card = page.evaluate("document.activeElement.dataset.card")
    page.keyboard.press("Space")
    assert page.locator(f"#hand [data-card='{card}']").get_attribute("aria-pressed") == "true"
    assert page.locator("#btn-discard").is_enabled()
    version = page.evaluate("window.gameTable.version")
    page.keyboard.press("Delete")
    page.wait_for_function(f"() => window.gameTable.version > {version}")
    me = frame(page)["table"]["you"]
    assert {"seat": me, "action": "discard", "card": card} in frame(page)["view"]["history"]
    assert not page.errors


@pytest.mark.parametrize("reduced", [False, True], ids=["motion", "reduced-motion"])
def test_a_drawn_card_slides_into_the_hand_unless_the_system_asks_for_less_motion(server_url, open_page, reduced):
    page = open_page(make_user("mika"), LAPTOP, reduced_motion="reduce" if reduced else "no-preference")
    quick_table(page, "gin")
    my_turn(page, phase="draw")
    settled(page)
    before = page.evaluate("window.gameTable.flights")
    version = page.evaluate("window.gameTable.version")
    page.click("#stock")
    page.wait_for_function(f"() => window.gameTable.version > {version}")
    settled(page)
    moved = page.evaluate("window.gameTable.flights") - before
    assert (moved == 0) if reduced else (moved >= 1), moved
    assert not page.errors


# --- the meld builder's arithmetic against the engine -------------------------------------------------------

RANKS = "A23456789TJQK"


@st.composite
def romme_melds(draw):
    """A valid Rommé meld as the engine sees it, then shuffled: the cards a player picks, in any order."""
    if draw(st.booleans()):
        rank = draw(st.sampled_from(RANKS))
        suits = draw(st.lists(st.sampled_from("CDHS"), min_size=3, max_size=4, unique=True))
        cards = [rank + suit for suit in suits]
        if draw(st.booleans()):
            cards[draw(st.integers(0, len(cards) - 1))] = "JK"
    else:
        suit = draw(st.sampled_from("CDHS"))
        length = draw(st.integers(3, 9))
        start = draw(st.integers(0, 14 - length))  # positions 0..13: ace low .. ace high
        cards = [("A" if p == 13 else RANKS[p]) + suit for p in range(start, start + length)]
        wanted = draw(st.sets(st.integers(0, length - 1), max_size=(length - 1) // 2))
        kept: list[int] = []
        for i in sorted(wanted):  # two jokers never lie side by side
            if not kept or i > kept[-1] + 1:
                kept.append(i)
        for i in kept:
            cards[i] = "JK"
    validate_meld(cards)  # the strategy itself makes only melds the engine accepts
    return draw(st.permutations(cards))


@pytest.fixture
def meld_page(server_url, open_page):
    """A table page at the player's own turn: only the seat to act gets `meld_preview` answered."""
    page = open_page(make_user("mona"), LAPTOP)
    quick_table(page, "romme")
    my_turn(page, phase="draw")
    return page


# Ten melds an example, five examples: inside the socket's burst (previews are charged like any message).
@settings(max_examples=5, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(picked=st.lists(romme_melds(), min_size=10, max_size=10))
def test_meld_builder_arranges_chosen_cards_into_melds_the_engine_accepts_with_its_points(meld_page, picked):
    # The page computes nothing: it asks the server, which answers from the engine.
    answers = meld_page.evaluate(
        """async (melds) => {
            const store = await import("/static/games/table/store.js");
            return Promise.all(melds.map((cards) => store.askMeldPreview(cards)));
        }""",
        picked,
    )
    for cards, answer in zip(picked, answers, strict=True):
        assert sorted(answer["meld"]) == sorted(cards), (cards, answer)
        meld = validate_meld(answer["meld"])  # raises if the server's order is not a meld
        assert answer["points"] == meld.points, (cards, answer)
