"""A tournament evening in a real browser, through the process ``make run`` starts (one daphne on an SQLite
file, the in-memory channel layer, the referee inside; issue 27 "Done when"): a 4-player gin Swiss with a
no-show in German, a knockout of 4 in English, a Rommé Masters series of two that staff create on the page,
and a Swiss called off after its start. Each point a page can show is asserted where it shows:

- the tournament page opened before the start updates by itself: "Anmeldung offen", "Start in" and the
  withdraw button, then "läuft" without them, "Nächste Runde in" in the break, the next round's tables, "beendet";
- the banner "Dein Tisch ist bereit" on any page, withdrawn from the other player's page when the table's
  match is over; one banner per table;
- the end of a tournament match: "Zum Turnier" as the main button, no "Revanche", the standing after this
  match, "Warte auf die anderen Tische (1 läuft noch)", then the countdown to the next round;
- a no-show's opponent reads "kampflos gewonnen" and is offered no rematch; the standings say "kampflos gegen
  ben", the audit log "Kampflos verloren: ben", ben's profile "kampflos verloren";
- the knockout's bracket with scores and the champion, English headers, the profile's tournaments, the
  staff page within a phone's width; no JavaScript error on any page;
- the staff's create form: the fields the chosen game and format declare, with their defaults and labels, and
  none of the other game's; the draft's cancel button apart from publishing;
- a Rommé series in its own words: "Tische der Serie 1", the banner's "Serie 1", "Serie 1, Tisch 1" at the
  table, "Nächste Serie in" at the table's end and in the header, "Serie 2 gestartet" in the audit log, the
  Masters columns (Ergebnis, WP, Augen) in the final standings; its lists played out by the game's own
  computer player on each seat's socket;
- banners out of the navigation's way on a laptop, and withdrawn when the tournament is called off (the
  call-off's notice in their place).

Screenshots of each page at 1366×768 and 390×844 go to ``/work/screenshots-27/`` (outside the repository;
``SCREENSHOTS_27`` names another folder). The waits are the site's own settings, shortened in daphne's
environment (``TOURNAMENTS_MINUTE_SECONDS``); the one real wait is gin's shortest turn (30 s) that a
no-show's first turn must run out before the forfeit rule may take the match from them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import threading
import time
from pathlib import Path

import pytest

from tests.games.test_live_daphne import free_port, manage_shell, stop
from tests.live.test_clocks_make_run import Visitor, make_run_environment, show_up_and_play, start_as_make_run

# `make run`'s own stack (an SQLite file, the in-memory layer) whatever the run's DATABASE_URL and REDIS_URL: stackless.
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.stackless]

SHOTS = Path(os.environ.get("SCREENSHOTS_27", "/work/screenshots-27"))
SIZES = ((1366, 768), (390, 844))
MINUTE_SECONDS = 0.5  # break_minutes 20 → 10 s, forfeit_minutes 1 → 0.5 s
START_LEAD = 14  # seconds from the setup to the Swiss' start: every page is open before it
WAIT_MS = 20_000

SETUP = """
import json
from datetime import timedelta
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.utils import timezone
from tournaments import services as tournaments

spec = json.loads({spec!r})
User = get_user_model()
sessions, ids = {{}}, {{}}
for name in [spec["staff"], *spec["players"]]:
    user = User.objects.create_user(name, name + "@example.org", is_staff=name == spec["staff"])
    user.profile.language = spec["language"]
    user.profile.save()
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    sessions[name], ids[name] = session.session_key, user.pk
staff = User.objects.get(username=spec["staff"])
lead = spec["start_lead"]
tournament = None
if spec["format"]:  # else staff create it on the page (the Rommé series)
    t = tournaments.tournament_create(
        by=staff, name=spec["name"], game="gin", format=spec["format"], settings=spec["settings"],
        options={{"turn_seconds": 30, "target": 0}},
        starts_at=timezone.now() + timedelta(seconds=lead) if lead else None)
    tournaments.tournament_publish(tournament_id=t.pk, by=staff)
    for name in spec["players"]:
        tournaments.tournament_register(tournament_id=t.pk, user=User.objects.get(username=name))
    tournament = t.pk
print("E2E " + json.dumps({{"sessions": sessions, "ids": ids, "tournament": tournament}}))
"""

REGISTER = """
import json
from django.contrib.auth import get_user_model
from tournaments import services as tournaments

for name in {players!r}:
    tournaments.tournament_register(tournament_id={tournament_id}, user=get_user_model().objects.get(username=name))
print("E2E " + json.dumps({{"registered": len({players!r})}}))
"""

TABLES = """
import json
from tournaments.models import StageTable
rows = StageTable.objects.filter(stage__tournament_id={tournament_id}, stage__number={stage}).order_by("number")
print("E2E " + json.dumps([{{"table": st.table_id, "users": st.users}} for st in rows]))
"""


#: The elements that reach past the page's right edge (outside a scrolling box): what makes a page too wide.
WIDER_THAN_PAGE = """() => [...document.querySelectorAll("main *")]
  .filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 1
    && !el.closest(".tn-scroll"))
  .slice(0, 8).map((el) => `${el.tagName}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`)"""


#: The main navigation's links and buttons that a notice banner covers (on a laptop the banners stand below the
#: header, at the right): what would keep a person from the site's menu while a banner shows.
NAV_UNDER_BANNERS = """() => {
  const banners = [...document.querySelectorAll(".site-notice")].map((b) => b.getBoundingClientRect());
  return [...document.querySelectorAll(".site-nav a, .site-nav button")].filter((item) => {
    const r = item.getBoundingClientRect();
    return r.width > 0 && banners.some((b) => b.left < r.right && r.left < b.right && b.top < r.bottom && r.top < b.bottom);
  }).map((item) => item.textContent.trim());
}"""


@pytest.fixture(scope="module")
def evening(tmp_path_factory):
    """daphne as ``make run`` starts it, with the tournaments' minute shortened; stopped after the module."""
    folder = tmp_path_factory.mktemp("evening")
    env = make_run_environment(folder)
    env["TOURNAMENTS_MINUTE_SECONDS"] = str(MINUTE_SECONDS)
    env["GAMES_TEST_DEAL_SEED"] = "evening-27"
    port = free_port()
    log = folder / "daphne.log"
    daphne = start_as_make_run(port, env, log)
    yield {"env": env, "port": port, "log": log, "base": f"http://127.0.0.1:{port}"}
    stop(daphne)


class Evening:
    """The browser side of one evening: a context per person (their session cookie), pages, screenshots and
    every JavaScript error any page raised."""

    def __init__(self, browser, server, setup, *, locale: str, prefix: str):
        self.browser, self.server, self.setup, self.locale, self.prefix = browser, server, setup, locale, prefix
        self.contexts: dict[str, object] = {}
        self.errors: list[str] = []

    def page(self, name: str | None, path: str):
        if name not in self.contexts:
            context = self.browser.new_context(base_url=self.server["base"], locale=self.locale,
                                               viewport={"width": SIZES[0][0], "height": SIZES[0][1]})
            context.set_default_timeout(WAIT_MS)
            if name is not None:
                context.add_cookies([{"name": "sessionid", "value": self.setup["sessions"][name],
                                      "url": self.server["base"]}])
            self.contexts[name] = context
        page = self.contexts[name].new_page()
        page.on("pageerror", lambda error: self.errors.append(f"{name} {page.url}: {error}"))
        page.goto(path)
        return page

    @contextlib.contextmanager
    def played(self):
        """The evening's play: on a failure the end of the server's log and the pages' JavaScript errors are
        printed with it; the browser contexts are closed either way."""
        try:
            yield
        except BaseException:
            print(self.server["log"].read_text()[-4000:])
            print("JavaScript errors:", self.errors)
            raise
        finally:
            self.close()

    def shoot(self, page, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(150)
            page.screenshot(path=str(SHOTS / f"{self.prefix}-{name}-{width}x{height}.png"), full_page=True)
        page.set_viewport_size({"width": SIZES[0][0], "height": SIZES[0][1]})

    def tables(self, stage: int) -> list[dict]:
        return manage_shell(TABLES.format(tournament_id=self.setup["tournament"], stage=stage), self.server["env"])

    def close(self) -> None:
        for context in self.contexts.values():
            context.close()


def autoplay(server, session: str, table_id: int) -> threading.Thread:
    """A player who shows up and makes every move that falls to their seat (a socket of their own, in a
    thread: the browser's loop is the test's)."""
    visitor = Visitor(server["port"], session)
    outcome: dict = {}

    def run():
        outcome["final"] = asyncio.run(show_up_and_play(visitor, table_id, time.monotonic() + 120))

    thread = threading.Thread(target=run, daemon=True)
    thread.outcome = outcome  # type: ignore[attr-defined]
    thread.start()
    return thread


async def play_with_the_games_bot(visitor: Visitor, table_id: int, deadline: float) -> dict:
    """Open the table and play every move that falls to this seat as the game's computer player would, from the
    view this seat is sent (a Rommé list needs melds to end), and say ready between rounds, until it is over."""
    from websockets.asyncio.client import connect

    from games import registry

    rng = random.Random(table_id)
    port = visitor.base.rsplit(":", 1)[1]
    ready_for = None
    async with connect(f"ws://127.0.0.1:{port}/ws/table/{table_id}/", origin=visitor.base,
                       additional_headers={"Cookie": f"sessionid={visitor.session}"}, open_timeout=10) as ws:
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), timeout=max(0.1, deadline - time.monotonic())))
            if frame["type"] != "state":
                continue
            table, view = frame["table"], frame["view"]
            if table["status"] in ("finished", "aborted"):
                return frame
            if table["status"] != "playing" or not view or view.get("over"):
                continue
            if view.get("to_act") == table["you"]:
                action = registry.get(view["game"]).bots.choose_action(view, "advanced", rng)
                await ws.send(json.dumps({"type": "move", "version": frame["version"], "action": action}))
            elif view.get("to_act") is None and ready_for != view.get("round_number"):
                ready_for = view.get("round_number")
                await ws.send(json.dumps({"type": "ready"}))


def autoplay_with_bots(server, session: str, table_id: int) -> threading.Thread:
    """``play_with_the_games_bot`` in a thread of its own (the browser's loop is the test's)."""
    visitor = Visitor(server["port"], session)
    outcome: dict = {}

    def run():
        outcome["final"] = asyncio.run(play_with_the_games_bot(visitor, table_id, time.monotonic() + 240))

    thread = threading.Thread(target=run, daemon=True)
    thread.outcome = outcome  # type: ignore[attr-defined]
    thread.start()
    return thread


def resign(page) -> None:
    # A page is drawn from the state in its HTML before its socket is open; offline, a resignation cannot go out
    # (the page says so and the match goes on), so the player resigns once the page is connected.
    page.locator("#table-app[data-connected='1']").wait_for()
    page.locator("#btn-resign").click()
    page.locator("#btn-resign-confirm").click()


def name_of(setup, user_id: int) -> str:
    return next(name for name, pk in setup["ids"].items() if pk == user_id)


def test_a_gin_swiss_with_a_no_show_in_german(browser, evening):
    spec = {"staff": "leitung", "players": ["anna", "ben", "claire", "dora"], "language": "de", "name": "Adventsturnier",
            "format": "swiss", "start_lead": START_LEAD,
            "settings": {"rounds": 2, "check_in_minutes": 0, "break_minutes": 20, "forfeit_minutes": 1}}
    setup = manage_shell(SETUP.format(spec=json.dumps(spec)), evening["env"])
    e = Evening(browser, evening, setup, locale="de-DE", prefix="swiss-de")
    url = f"/turniere/{setup['tournament']}/"
    with e.played():
        _swiss_evening(e, url)
    assert e.errors == []


def _swiss_evening(e: Evening, url: str) -> None:
    setup = e.setup
    # --- before the start: every showing player has a page open somewhere (ben never comes)
    head = e.page("anna", url)  # anna's tab on the tournament page, kept open all evening
    status = head.locator("[data-live-part=head] [data-role=status]")
    assert status.inner_text() == "Anmeldung offen"
    assert head.locator("[data-role=countdown]").inner_text().startswith("Start in")
    assert head.locator("[data-live-part=head]").get_by_role("button", name="Abmelden").is_visible()
    others = {"claire": e.page("claire", "/bestenliste/"), "dora": e.page("dora", "/spielen/")}
    for page in [head, *others.values()]:
        page.locator("#site-notices[data-status=online]").wait_for(state="attached")
    e.shoot(head, "tournament-before-start")

    # --- the start, at its minute: the header follows without a reload
    head.locator("[data-live-part=head] [data-role=status]", has_text="läuft").wait_for(timeout=(START_LEAD + 15) * 1000)
    assert head.locator("[data-live-part=head]").get_by_role("button", name="Abmelden").count() == 0
    assert head.locator("[data-role=countdown]").count() == 0  # no break yet: no countdown
    assert "Start in" not in head.locator("[data-live-part=head]").inner_text()
    head.get_by_text("Tische der Runde 1").wait_for()
    tables = e.tables(1)
    by_user = {name_of(setup, u): row for row in tables for u in row["users"]}
    forfeit_table = by_user["ben"]
    opponent = name_of(setup, next(u for u in forfeit_table["users"] if u != setup["ids"]["ben"]))
    played = next(row for row in tables if row is not forfeit_table)
    resigner, stayer = (name_of(setup, u) for u in played["users"])
    pages = {"anna": head, **others}
    for name in ("anna", "claire", "dora"):
        banner = pages[name].locator(".site-notice")
        banner.wait_for()
        assert banner.count() == 1 and "Dein Tisch ist bereit" in banner.inner_text()
        assert "Adventsturnier" in banner.inner_text()
        assert pages[name].evaluate(NAV_UNDER_BANNERS) == []  # 1366×768: out of the navigation's way
    e.shoot(others["dora"], "banner-table-ready")

    # --- the no-show's opponent plays; the other table ends by a resignation at the table
    player = autoplay(e.server, setup["sessions"][opponent], forfeit_table["table"])
    watcher = e.page(opponent, f"/spielen/tisch/{forfeit_table['table']}/")
    table = e.page(resigner, f"/spielen/tisch/{played['table']}/")
    table.locator("#table-app[data-status=playing]").wait_for()
    assert table.locator(".site-notice").count() == 0  # no banner for the table this tab is
    resign(table)
    end = table.locator("#match-end")
    end.wait_for()
    back = end.locator("[data-role=to-tournament]")
    back.wait_for()
    assert back.inner_text() == "Zum Turnier" and back.get_attribute("href") == url
    assert end.locator("#btn-rematch").is_hidden()
    end.locator("[data-role=standing]").wait_for()
    assert re.fullmatch(r"Dein Stand nach dieser Partie: Platz \d von 4 \(Punkte: 0\)",
                        end.locator("[data-role=standing]").inner_text())
    assert end.locator("[data-role=next]").inner_text() == "Warte auf die anderen Tische (1 läuft noch)"
    assert "kampflos" not in end.locator("[data-role=text]").inner_text()  # resigned by hand, after no timeout
    e.shoot(table, "table-end-waiting")
    # the stayer's banner of that table is withdrawn on whatever page it showed
    stay_page = pages[stayer]
    stay_page.locator(".site-notice").wait_for(state="detached")

    # --- the forfeit (the no-show's first turn runs out, then the rule takes the match)
    watcher_end = watcher.locator("#match-end")
    watcher_end.locator("[data-role=text]", has_text="kampflos gewonnen").wait_for(timeout=80_000)
    assert watcher_end.locator("#btn-rematch").is_hidden()
    assert watcher_end.locator("[data-role=to-tournament]").inner_text() == "Zum Turnier"
    e.shoot(watcher, "table-end-forfeit")
    player.join(timeout=30)
    assert player.outcome["final"]["table"]["status"] == "finished"

    # --- the break: the countdown at the table's end and in the tournament page's header
    next_line = end.locator("[data-role=next]", has_text="Nächste Runde in")
    next_line.wait_for()
    assert re.fullmatch(r"Nächste Runde in \d:\d\d", next_line.inner_text())
    e.shoot(table, "table-end-countdown")
    countdown = head.locator("[data-role=countdown]", has_text="Nächste Runde in")
    countdown.wait_for()
    assert status.inner_text() == "läuft"
    e.shoot(head, "tournament-break")

    # --- round 2 begins by itself; its tables show on the page opened before the start
    head.get_by_text("Tische der Runde 2").wait_for()
    assert head.locator("[data-role=countdown]").count() == 0
    tables = e.tables(2)
    by_user = {name_of(setup, u): row for row in tables for u in row["users"]}
    second_forfeit = by_user["ben"]
    opponent2 = name_of(setup, next(u for u in second_forfeit["users"] if u != setup["ids"]["ben"]))
    played2 = next(row for row in tables if row is not second_forfeit)
    # the end view of round 1 gets the banner of the new table (one banner, its link)
    banner = table.locator(".site-notice") if resigner in by_user else None
    if banner is not None and by_user[resigner]["table"] != played["table"]:
        banner.wait_for()
        assert banner.count() == 1
        assert banner.get_by_role("link").get_attribute("href") == f"/spielen/tisch/{by_user[resigner]['table']}/"
    player2 = autoplay(e.server, setup["sessions"][opponent2], second_forfeit["table"])
    loser2 = name_of(setup, played2["users"][0])
    table2 = e.page(loser2, f"/spielen/tisch/{played2['table']}/")
    table2.locator("#table-app[data-status=playing]").wait_for()
    resign(table2)
    table2.locator("#match-end [data-role=to-tournament]").wait_for()
    player2.join(timeout=90)

    # --- the end: the header and the final standings, the profile, the staff page on a phone
    status.filter(has_text="beendet").wait_for(timeout=60_000)
    assert head.get_by_role("heading", name="Endstand").is_visible()
    assert head.locator("[data-role=countdown]").count() == 0
    assert head.locator("[data-role=stage-match]").count() >= 4  # every played round cell links its match
    assert "kampflos gegen ben" in head.locator("main").inner_text()  # the no-show's rounds, in the standings
    e.shoot(head, "tournament-final")
    profile = e.page("claire", "/profil/")
    assert "Adventsturnier" in profile.locator("main").inner_text()
    e.shoot(profile, "profile")
    no_show = e.page("ben", "/profil/")  # the profile's word for the rounds ben never played
    assert "kampflos verloren" in no_show.locator("#match-history").inner_text()
    assert "aufgegeben" not in no_show.locator("#match-history").inner_text()
    staff = e.page("leitung", f"{url}leitung/")
    staff.set_viewport_size({"width": 390, "height": 844})
    assert "Kampflos verloren: ben, Runde 1" in staff.locator("[data-role=audit]").inner_text()
    wider = staff.evaluate(WIDER_THAN_PAGE)
    assert staff.evaluate("document.documentElement.scrollWidth") <= 390, wider
    e.shoot(staff, "staff")


def test_a_knockout_of_four_in_english(browser, evening):
    spec = {"staff": "boss", "players": ["erik", "fiona", "greta", "hans"], "language": "en", "name": "Winter Cup",
            "format": "knockout", "start_lead": 0,
            # No forfeit here (the Swiss shows one): 240 minutes are 120 s of this test's clock, so a loser whose
            # page is slow to resign on a busy machine is never overtaken by the rule taking the match from the
            # winner, who never opens the final's table.
            "settings": {"check_in_minutes": 0, "break_minutes": 10, "forfeit_minutes": 240}}
    setup = manage_shell(SETUP.format(spec=json.dumps(spec)), evening["env"])
    e = Evening(browser, evening, setup, locale="en-GB", prefix="knockout-en")
    url = f"/turniere/{setup['tournament']}/"
    with e.played():
        _knockout_evening(e, url)
    assert e.errors == []


def _knockout_evening(e: Evening, url: str) -> None:
    setup = e.setup
    head = e.page("erik", url)
    status = head.locator("[data-live-part=head] [data-role=status]")
    assert status.inner_text() == "Registration open"
    assert "Gin Rummy" in head.locator("[data-role=meta]").inner_text()
    assert head.locator("[data-live-part=head]").get_by_role("button", name="Withdraw").is_visible()
    staff = e.page("boss", f"{url}leitung/")
    staff.get_by_role("button", name="Start now").click()
    staff.wait_for_load_state()
    status.filter(has_text="running").wait_for()
    assert head.locator("[data-live-part=head]").get_by_role("button", name="Withdraw").count() == 0
    e.shoot(head, "tournament-running")

    semis = e.tables(1)
    assert len(semis) == 2
    winners = []
    first_end = None
    for number, row in enumerate(semis):
        loser, winner = (name_of(setup, u) for u in row["users"])
        winners.append(winner)
        watcher = e.page(winner, f"/spielen/tisch/{row['table']}/")
        page = e.page(loser, f"/spielen/tisch/{row['table']}/")
        page.locator("#table-app[data-status=playing]").wait_for()
        resign(page)
        end = watcher.locator("#match-end")
        end.locator("[data-role=to-tournament]").wait_for()
        assert end.locator("[data-role=to-tournament]").inner_text() == "Go to the tournament"
        assert end.locator("#btn-rematch").is_hidden()
        assert "wins the match" in end.locator("[data-role=text]").inner_text()
        if number == 0:
            assert end.locator("[data-role=next]").inner_text() == "Waiting for the other tables (1 still playing)"
            e.shoot(watcher, "table-end-waiting")
            first_end = end
    assert first_end is not None
    first_end.locator("[data-role=next]", has_text="Next round in").wait_for()
    head.locator("[data-role=countdown]", has_text="Next round in").wait_for()
    e.shoot(head, "tournament-break")

    (final,) = e.tables(2) if _wait_for_stage(e, 2) else [None]
    assert sorted(name_of(setup, u) for u in final["users"]) == sorted(winners)
    loser, champion = (name_of(setup, u) for u in final["users"])
    page = e.page(loser, f"/spielen/tisch/{final['table']}/")
    page.locator("#table-app[data-status=playing]").wait_for()
    resign(page)
    status.filter(has_text="finished").wait_for(timeout=30_000)
    bracket = head.locator("[data-role=bracket]")
    assert bracket.locator("[data-role=bracket-match]").count() == 3
    assert head.locator("[data-role=champion]").inner_text().strip().endswith(champion)
    assert head.get_by_role("heading", name="Final standings").is_visible()
    e.shoot(head, "tournament-final")


def _wait_for_stage(e: Evening, stage: int, seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if e.tables(stage):
            return True
        time.sleep(0.5)
    raise AssertionError(f"stage {stage} never began")


#: The create form's option fields a person sees now, in the page's order: name, label and placeholder (the
#: default an empty field takes).
SHOWN_FIELDS = """() => [...document.querySelectorAll("fieldset[data-kind] input, fieldset[data-kind] select")]
  .filter((el) => el.type !== "hidden" && el.getClientRects().length > 0)
  .map((el) => ({name: el.name, placeholder: el.placeholder || "",
                 label: (document.querySelector(`label[for="${el.id}"]`) || {innerText: ""}).innerText.trim()}))"""


def shown_fields(page) -> dict[str, dict]:
    return {field["name"]: field for field in page.evaluate(SHOWN_FIELDS)}


def test_a_romme_masters_series_of_two_in_german(browser, evening):
    spec = {"staff": "vorstand", "players": ["ida", "jan", "kai"], "language": "de", "name": "Rommé-Abend",
            "format": None, "start_lead": 0, "settings": {}}
    setup = manage_shell(SETUP.format(spec=json.dumps(spec)), evening["env"])
    e = Evening(browser, evening, setup, locale="de-DE", prefix="series-de")
    with e.played():
        _series_evening(e, spec)
    assert e.errors == []


def _series_evening(e: Evening, spec: dict) -> None:
    setup = e.setup
    # --- staff create it on the page: the fields the chosen game and format declare, with their defaults
    form = e.page(spec["staff"], "/turniere/leitung/neu/")
    form.select_option("#id_create_kind", "gin:swiss")
    form.locator('fieldset[data-kind="gin:swiss"]').wait_for(state="visible")
    swiss = shown_fields(form)
    assert list(swiss) == ["rounds", "target", "forfeit_minutes", "turn_seconds", "min_players", "max_players",
                           "check_in_minutes", "break_minutes"]
    assert swiss["break_minutes"]["label"] == "Pause zwischen den Runden (Minuten)"
    assert swiss["forfeit_minutes"]["label"] == "Kampflos verloren nach (Minuten)"
    assert swiss["min_players"]["placeholder"] == "2"
    labels = " ".join(field["label"] for field in swiss.values())
    assert "Serie" not in labels and "Liste" not in labels and "Tischgröße" not in labels
    e.shoot(form, "create-swiss")

    form.select_option("#id_create_kind", "romme:series")
    chosen = form.locator('fieldset[data-kind="romme:series"]')
    chosen.wait_for(state="visible")
    series = shown_fields(form)
    assert list(series) == ["series", "rounds", "table_size", "same_deals", "turn_seconds", "min_players",
                            "max_players", "check_in_minutes", "break_minutes"]
    assert series["series"]["label"] == "Serien" and series["rounds"]["label"] == "Runden je Liste"
    assert series["break_minutes"]["label"] == "Pause zwischen den Serien (Minuten)"
    assert (series["series"]["placeholder"], series["table_size"]["placeholder"],
            series["min_players"]["placeholder"]) == ("3", "4", "3")
    labels = " ".join(field["label"] for field in series.values())
    assert "Gin" not in labels and "Kampflos" not in labels and "Partie bis" not in labels
    form.fill("#id_create_name", spec["name"])
    for name, value in (("series", "2"), ("rounds", "6"), ("table_size", "3"), ("check_in_minutes", "0"),
                        ("break_minutes", "40")):  # 40 minutes: 20 s of this test's clock
        chosen.locator(f"[name={name}]").fill(value)
    e.shoot(form, "create-series")
    form.locator("form.tn-form button[type=submit]").click()
    form.wait_for_url(re.compile(r"/turniere/\d+/leitung/$"))
    tournament_id = int(re.search(r"/turniere/(\d+)/leitung/$", form.url).group(1))
    setup["tournament"] = tournament_id
    staff, url = form, f"/turniere/{tournament_id}/"

    # --- the draft: its own fields to edit, the dangerous button apart from publishing
    assert staff.locator("form.tn-edit [name=table_size]").input_value() == "3"
    danger = staff.locator(".tn-danger")
    assert danger.get_by_role("button", name="Absagen").is_visible()
    assert danger.get_by_role("button", name="Veröffentlichen").count() == 0
    e.shoot(staff, "staff-draft")
    staff.get_by_role("button", name="Veröffentlichen").click()
    staff.wait_for_load_state()
    assert manage_shell(REGISTER.format(players=spec["players"], tournament_id=tournament_id),
                        e.server["env"]) == {"registered": 3}
    head = e.page(spec["players"][0], url)
    status = head.locator("[data-live-part=head] [data-role=status]")
    assert status.inner_text() == "Anmeldung offen"
    lobby = e.page(spec["players"][1], "/spielen/")
    lobby.locator("#site-notices[data-status=online]").wait_for(state="attached")
    staff.goto(f"{url}leitung/")
    staff.get_by_role("button", name="Jetzt starten").click()
    staff.wait_for_load_state()

    # --- two series, each a Masters list played out at one table of three; a stage is a "Serie" everywhere
    status.filter(has_text="läuft").wait_for()
    for number in (1, 2):
        head.get_by_text(f"Tische der Serie {number}").wait_for(timeout=60_000)
        assert "Tische der Runde" not in head.locator("main").inner_text()
        (row,) = e.tables(number)
        players = [autoplay_with_bots(e.server, setup["sessions"][name_of(setup, u)], row["table"])
                   for u in row["users"]]
        if number == 1:
            banner = lobby.locator(".site-notice")
            banner.wait_for()
            assert "Dein Tisch ist bereit" in banner.inner_text() and "Serie 1" in banner.inner_text()
            assert staff.get_by_role("button", name="Nächste Serie jetzt").is_visible()
        table = e.page(name_of(setup, row["users"][0]), f"/spielen/tisch/{row['table']}/")
        assert table.locator(".gt-bar__head[data-panel=head]").inner_text() == (
            f"Turnier: {spec['name']} · Serie {number}, Tisch 1")
        end = table.locator("#match-end")
        end.locator("[data-role=to-tournament]").wait_for(timeout=240_000)
        if number == 1:
            next_line = end.locator("[data-role=next]", has_text="Nächste Serie in")
            next_line.wait_for()
            assert re.fullmatch(r"Nächste Serie in \d:\d\d", next_line.inner_text())
            e.shoot(table, "table-end-countdown")
            head.locator("[data-role=countdown]", has_text="Nächste Serie in").wait_for()
            e.shoot(head, "tournament-break")
        for player in players:
            player.join(timeout=60)
            assert player.outcome["final"]["table"]["status"] == "finished"

    # --- the end: the series' standings, its audit log in its own words
    status.filter(has_text="beendet").wait_for(timeout=60_000)
    assert head.get_by_role("heading", name="Endstand").is_visible()
    columns = head.locator("table.tn-standings thead th").all_inner_texts()
    assert columns == ["Platz", "Spieler", "Ergebnis", "WP", "Augen", "Runden gewonnen", "Serie 1", "Serie 2"]
    e.shoot(head, "tournament-final")
    staff.reload()
    audit = staff.locator("[data-role=audit]").inner_text()
    assert "Serie 1 gestartet" in audit and "Serie 2 gestartet" in audit and "Runde 1 gestartet" not in audit
    e.shoot(staff, "staff-final")


def test_a_swiss_cancelled_after_its_start_withdraws_the_banners_of_its_tables(browser, evening):
    spec = {"staff": "absage", "players": ["lena", "max"], "language": "de", "name": "Regenabend",
            "format": "swiss", "start_lead": 0,
            "settings": {"rounds": 2, "check_in_minutes": 0, "break_minutes": 20, "forfeit_minutes": 240}}
    setup = manage_shell(SETUP.format(spec=json.dumps(spec)), evening["env"])
    e = Evening(browser, evening, setup, locale="de-DE", prefix="cancelled-de")
    url = f"/turniere/{setup['tournament']}/"
    with e.played():
        pages = {"lena": e.page("lena", "/bestenliste/"), "max": e.page("max", "/spielen/")}
        for page in pages.values():
            page.locator("#site-notices[data-status=online]").wait_for(state="attached")
        staff = e.page("absage", f"{url}leitung/")
        staff.get_by_role("button", name="Jetzt starten").click()
        staff.wait_for_load_state()
        for page in pages.values():
            page.locator(".site-notice", has_text="Dein Tisch ist bereit").wait_for()
        e.shoot(pages["lena"], "banner-before-cancel")
        danger = staff.locator(".tn-danger")
        danger.get_by_label("Grund").fill("Gewitter, der Strom fällt aus")
        danger.get_by_role("button", name="Absagen").click()
        staff.wait_for_load_state()
        for page in pages.values():  # the table is closed: its banner goes, the tournament's notice says why
            page.locator(".site-notice", has_text="Dein Tisch ist bereit").wait_for(state="detached")
            cancelled = page.locator(".site-notice")
            cancelled.wait_for()
            assert cancelled.count() == 1 and "Regenabend" in cancelled.inner_text()
            assert "abgesagt" in cancelled.inner_text()
        e.shoot(pages["lena"], "banner-after-cancel")
        head = e.page("lena", url)
        assert head.locator("[data-live-part=head] [data-role=status]").inner_text() == "abgesagt"
    assert e.errors == []
