"""The clocks beside the tables, tested through the process ``make run`` starts: one daphne serving
``ginsite.asgi:application`` on an SQLite file with the in-memory channel layer, no Redis, no referee
process, nothing else. Real HTTP (session cookies, the pool's and the tournament's pages) and real
WebSockets show that, with no one else joining and nobody calling a tick by hand:

- two ranked gin players 300 Wertungszahl apart are paired once the widening window reaches both;
- three Rommé players in the pool get a table of 3 once the longest has waited the pool's step;
- a tournament starts at its ``starts_at``, a player who never opens their table forfeits after
  ``forfeit_minutes``, and the next stage starts ``break_minutes`` after the last table of the stage ended.

The waits are the site's own settings (``RATINGS_POOL_*``, ``TOURNAMENTS_MINUTE_SECONDS``), shortened in the
environment of the daphne this test starts; the code paths are those of every site. The one wait that
stays real is gin's shortest turn timer (30 s): the no-show's first turn must run out before the server
moves for them, which is what the forfeit rule waits for.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.servers import free_port, manage_shell, migrated_sqlite, start_daphne, stop

#: The whole scenario must be over within this many seconds once daphne listens.
TIME_LIMIT = 80

# `make run`'s own stack (an SQLite file, the in-memory layer) whatever the run's DATABASE_URL and REDIS_URL: stackless.
pytestmark = [pytest.mark.slow, pytest.mark.stackless]

#: The site's waits, shortened (the defaults: 5 per second, 60 s, 60 s).
WIDEN_PER_SECOND = 40  # 300 apart: 100 + 40 × 5 s
ROMME_STEP_SECONDS = 4  # a table of 3 after 4 s, of 2 after 8 s
MINUTE_SECONDS = 1  # break_minutes 2 → 2 s, forfeit_minutes 1 → 1 s
BREAK_MINUTES = 2
#: Seconds from the end of the setup to the tournament's start: daphne is listening well before.
START_LEAD = 10

SETUP = """
import json
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.utils import timezone
from ratings.models import Rating
from tournaments import services as tournaments
from tests.servers import session_key

spec = json.loads({spec!r})
User = get_user_model()
users, sessions = {{}}, {{}}
for name in spec["players"]:
    user = User.objects.create_user(name, name + "@example.org")
    users[name], sessions[name] = user, session_key(user)
for name, display in spec["ratings"].items():
    Rating.objects.create(user=users[name], game="gin", display=display, mu=25 + (display - 1500) / 60)
staff = User.objects.create_user("leitung", "leitung@example.org", is_staff=True)
t = tournaments.tournament_create(
    by=staff, name="Uhrentest", game="gin", format="swiss",
    settings={{"rounds": 2, "check_in_minutes": 0, "break_minutes": spec["break_minutes"], "forfeit_minutes": 1}},
    options={{"turn_seconds": 30}}, starts_at=timezone.now() + timedelta(seconds=spec["start_lead"]),
)
tournaments.tournament_publish(tournament_id=t.pk, by=staff)
for name in spec["entrants"]:
    tournaments.tournament_register(tournament_id=t.pk, user=users[name])
print("E2E " + json.dumps({{"sessions": sessions, "ids": {{n: u.pk for n, u in users.items()}}, "tournament": t.pk}}))
"""

FACTS = """
import json
from games.models import Move
from tournaments.models import Tournament
t = Tournament.objects.get(pk={tournament_id})
stages = []
for stage in t.stages.order_by("number"):
    tables = []
    for st in stage.tables.select_related("table__current_match").order_by("number"):
        match = st.table.current_match if st.table else None
        moves = list(Move.objects.filter(match=match).values_list("seat", "by")) if match else []
        tables.append({{"users": st.users, "ending": match.ending if match else None,
                        "left": match.left_seats if match else None, "moves": moves,
                        "finished": st.finished_at.timestamp() if st.finished_at else None}})
    stages.append({{"number": stage.number, "started": stage.started_at.timestamp(),
                    "finished": stage.finished_at.timestamp() if stage.finished_at else None, "tables": tables}})
print("E2E " + json.dumps({{"status": t.status, "starts_at": t.starts_at.timestamp(),
                           "started_at": t.started_at.timestamp() if t.started_at else None, "stages": stages}}))
"""


def make_run_environment(tmp_path) -> dict:
    """What ``make run`` gives daphne: SQLite in a file, no DATABASE_URL, no REDIS_URL, the referee inside."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("DATABASE_URL", "REDIS_URL", "GAMES_REFEREE_IN_PROCESS")}
    env.update({
        "DJANGO_SETTINGS_MODULE": "ginsite.settings", "DEBUG": "1", "PYTHONUNBUFFERED": "1",
        "SQLITE_PATH": str(tmp_path / "make-run.sqlite3"), "GAMES_TEST_DEAL_SEED": "live-clocks",
        "RATINGS_POOL_WIDEN_PER_SECOND": str(WIDEN_PER_SECOND),
        "RATINGS_POOL_ROMME_STEP_SECONDS": str(ROMME_STEP_SECONDS),
        "TOURNAMENTS_MINUTE_SECONDS": str(MINUTE_SECONDS),
    })
    migrated_sqlite(env)
    return env


def start_as_make_run(port: int, env: dict, log: Path) -> subprocess.Popen:
    """The Makefile's ``run`` line: ``daphne -e tcp:port=…:interface=…:backlog=1024 ginsite.asgi:application``."""
    return start_daphne(port, env, log=log, make_run=True)


class Visitor:
    """One signed-in person's browser: their session cookie, a CSRF cookie and header, plain HTTP."""

    def __init__(self, port: int, session: str):
        self.base = f"http://127.0.0.1:{port}"
        self.session = session
        self.csrf = secrets.token_hex(16)  # 32 characters: a valid unmasked token, sent as cookie and header

    def _request(self, method: str, path: str, *, json_wanted: bool) -> tuple[int, str]:
        request = urllib.request.Request(self.base + path, method=method, data=b"" if method == "POST" else None)
        request.add_header("Cookie", f"sessionid={self.session}; csrftoken={self.csrf}")
        request.add_header("X-CSRFToken", self.csrf)
        if json_wanted:
            request.add_header("Accept", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    async def get(self, path: str, *, json_wanted: bool = False) -> tuple[int, str]:
        return await asyncio.to_thread(self._request, "GET", path, json_wanted=json_wanted)

    async def post_json(self, path: str) -> dict:
        status, body = await asyncio.to_thread(self._request, "POST", path, json_wanted=True)
        assert status == 200, (path, status, body[:500])
        return json.loads(body)

    async def pool_until_ready(self, deadline: float) -> tuple[str, float]:
        """Poll the pool's status as the lobby does; the table's address and when it was first seen."""
        while time.monotonic() < deadline:
            status, body = await self.get("/spielen/gewertet/status.json", json_wanted=True)
            assert status == 200, body[:500]
            state = json.loads(body)
            if state["state"] == "ready":
                return state["table_url"], time.monotonic()
            assert state["state"] == "waiting", state
            await asyncio.sleep(0.2)
        raise AssertionError("the pool never seated this player")

    async def table_state(self, table_id: int) -> dict:
        """The first state frame this person's socket gets at the table."""
        from websockets.asyncio.client import connect

        async with connect(f"ws://127.0.0.1:{self.base.rsplit(':', 1)[1]}/ws/table/{table_id}/", origin=self.base,
                           additional_headers={"Cookie": f"sessionid={self.session}"}, open_timeout=10) as ws:
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
                if frame["type"] == "state":
                    return frame


def table_id_of(url: str) -> int:
    found = re.fullmatch(r"/spielen/tisch/(\d+)/", url)
    assert found, url
    return int(found.group(1))


async def gin_far_apart_are_paired(low: Visitor, high: Visitor, names: tuple[str, str]) -> None:
    joined = await low.post_json("/spielen/gewertet/gin/")
    assert joined["state"] == "waiting"
    joined = await high.post_json("/spielen/gewertet/gin/")
    assert joined["state"] == "waiting", "300 apart must not be paired at once"
    second_joined = time.monotonic()
    deadline = second_joined + 25
    (url_low, _), (url_high, seen) = await asyncio.gather(low.pool_until_ready(deadline),
                                                          high.pool_until_ready(deadline))
    assert url_low == url_high
    # Not before the window of the later one reached 300 (100 + 40 per second: 5 s; a second of slack for
    # the join's own round trip, which started the waiting earlier than this client's clock says).
    assert seen - second_joined >= (300 - 100) / WIDEN_PER_SECOND - 1
    table_id = table_id_of(url_low)
    frames = await asyncio.gather(low.table_state(table_id), high.table_state(table_id))
    for frame in frames:
        assert frame["table"]["ranked"] is True and frame["table"]["you"] is not None
    assert sorted(seat["name"] for seat in frames[0]["table"]["seats"]) == sorted(names)


async def romme_pool_of_three_gets_a_table_of_three(visitors: list[Visitor], names: list[str]) -> None:
    first_joined = None
    for visitor in visitors:
        joined = await visitor.post_json("/spielen/gewertet/romme/")
        assert joined["state"] == "waiting", "three waiters want a table of 4 until the step has passed"
        first_joined = first_joined or time.monotonic()
    deadline = first_joined + 25
    seated = await asyncio.gather(*(visitor.pool_until_ready(deadline) for visitor in visitors))
    assert len({url for url, _ in seated}) == 1
    assert min(seen for _, seen in seated) - first_joined >= ROMME_STEP_SECONDS - 1
    frame = await visitors[0].table_state(table_id_of(seated[0][0]))
    assert len(frame["table"]["seats"]) == 3 and frame["table"]["ranked"] is True
    assert sorted(seat["name"] for seat in frame["table"]["seats"]) == sorted(names)


_MINE = re.compile(r'<li class="tn-mine">(.*?)</li>', re.DOTALL)
_STAGE = re.compile(r"Tische der Runde (\d+)")


async def my_tournament_table(visitor: Visitor, tournament_id: int, stage: int, deadline: float) -> int | None:
    """Poll the tournament's live part until stage ``stage`` shows; this person's table there (None: a bye)."""
    while time.monotonic() < deadline:
        status, html = await visitor.get(f"/turniere/{tournament_id}/live/")
        assert status == 200, html[:500]
        shown = _STAGE.search(html)
        if shown and int(shown.group(1)) >= stage:
            assert int(shown.group(1)) == stage, f"stage {shown.group(1)} showed before stage {stage} was seen"
            mine = _MINE.search(html)
            link = re.search(r'href="/spielen/tisch/(\d+)/"', mine.group(1)) if mine else None
            return int(link.group(1)) if link else None
        await asyncio.sleep(0.25)
    raise AssertionError(f"stage {stage} of the tournament never started")


async def show_up_and_play(visitor: Visitor, table_id: int, deadline: float) -> dict:
    """Open the table and make every move that falls to this seat (pass, draw, discard) until it is over."""
    from websockets.asyncio.client import connect

    port = visitor.base.rsplit(":", 1)[1]
    async with connect(f"ws://127.0.0.1:{port}/ws/table/{table_id}/", origin=visitor.base,
                       additional_headers={"Cookie": f"sessionid={visitor.session}"}, open_timeout=10) as ws:
        while True:
            raw = await asyncio.wait_for(ws.recv(), timeout=max(0.1, deadline - time.monotonic()))
            frame = json.loads(raw)
            if frame["type"] != "state":
                continue
            table, view = frame["table"], frame["view"]
            if table["status"] in ("finished", "aborted"):
                return frame
            if table["status"] == "playing" and view and view.get("to_act") == table["you"]:
                legal = view["legal_actions"]
                action = next((a for a in legal if a["action"] == "pass"), None) \
                    or next((a for a in legal if a == {"action": "draw", "from": "stock"}), None) \
                    or next(a for a in legal if a["action"] == "discard")
                await ws.send(json.dumps({"type": "move", "version": frame["version"], "action": action}))


async def tournament_runs_on_its_clock(visitors: dict[str, Visitor], tournament_id: int, deadline: float) -> dict:
    tables = dict(zip(visitors, await asyncio.gather(
        *(my_tournament_table(v, tournament_id, 1, deadline) for v in visitors.values())), strict=True))
    seated = [name for name, table in tables.items() if table is not None]
    assert len(seated) == 2 and len({tables[name] for name in seated}) == 1, tables
    shows, no_show = seated  # the second never opens the table
    final = await show_up_and_play(visitors[shows], tables[shows], deadline)
    assert final["table"]["status"] == "finished"
    assert final["view"]["result"]["winner"] == final["table"]["you"], "whoever did not show up loses"
    stage_two = await my_tournament_table(visitors[shows], tournament_id, 2, deadline)
    return {"shows": shows, "no_show": no_show, "stage_two_table": stage_two}


def test_the_clocks_run_in_the_process_make_run_starts(tmp_path):
    env = make_run_environment(tmp_path)
    gin, romme, entrants = ("gina", "gustav"), ["rita", "rolf", "ruth"], ["tara", "till", "tom"]
    spec = {"players": [*gin, *romme, *entrants], "ratings": {"gina": 1500, "gustav": 1800},
            "entrants": entrants, "break_minutes": BREAK_MINUTES, "start_lead": START_LEAD}
    began = time.monotonic()
    setup = manage_shell(SETUP.format(spec=json.dumps(spec)), env)
    set_up = time.monotonic()
    port = free_port()
    log = tmp_path / "daphne.log"
    daphne = start_as_make_run(port, env, log)
    listening = time.time()
    listening_mono = time.monotonic()
    visitors = {name: Visitor(port, session) for name, session in setup["sessions"].items()}

    async def scenario():
        deadline = time.monotonic() + TIME_LIMIT
        return await asyncio.gather(
            gin_far_apart_are_paired(visitors["gina"], visitors["gustav"], gin),
            romme_pool_of_three_gets_a_table_of_three([visitors[name] for name in romme], romme),
            tournament_runs_on_its_clock({name: visitors[name] for name in entrants}, setup["tournament"], deadline),
        )

    try:
        _, _, tournament = asyncio.run(asyncio.wait_for(scenario(), timeout=TIME_LIMIT + 5))
    except BaseException:
        stop(daphne)
        print(log.read_text()[-4000:])
        raise
    stop(daphne)
    print(f"\nmake-run clocks: set up in {set_up - began:.1f} s, daphne listening after {listening_mono - set_up:.1f} s, "
          f"scenario {time.time() - listening:.1f} s")
    facts = manage_shell(FACTS.format(tournament_id=setup["tournament"]), env)

    # Started by the clock at its time: not before starts_at, and within a few ticks of it (daphne listened
    # before starts_at unless the machine was very slow; then the first ticks start it).
    assert facts["started_at"] >= facts["starts_at"]
    assert facts["started_at"] - max(facts["starts_at"], listening) < 5
    first, second = facts["stages"][0], facts["stages"][1]
    (played,) = [table for table in first["tables"] if table["ending"] is not None]  # the other: a bye
    no_show_seat = played["users"].index(setup["ids"][tournament["no_show"]])
    # The no-show forfeited: resigned for them, never a move of their own, after the server moved for them.
    assert played["ending"] == "resigned" and played["left"] == [no_show_seat]
    assert (no_show_seat, "timeout") in [tuple(move) for move in played["moves"]]
    assert (no_show_seat, "player") not in [tuple(move) for move in played["moves"]]
    # The next stage came by itself after the break, and not before it.
    gap = second["started"] - first["finished"]
    assert BREAK_MINUTES * MINUTE_SECONDS <= gap < BREAK_MINUTES * MINUTE_SECONDS + 5, gap
    assert tournament["stage_two_table"] is not None or second["tables"]
