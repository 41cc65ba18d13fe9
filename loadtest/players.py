"""The scripted clients and their figures.

A **site table** is two signed-in people at a gin table, each on their own socket (the session cookie in the
handshake, an ``Origin`` of the site as a browser sends). Whoever is to act picks a random action from the
``legal_actions`` of their own ``state`` frame and sends it with the version they hold (docs/protocol.md);
the move counts once **both** sockets hold the new version. Between rounds both send ``ready``, after a
match both ask for a ``rematch`` (neither is counted as a move). Every move both seats saw applied is
recorded by version, for the check against the move log.

A **bare table** is the same two sockets on ``../shared/stackbench``, driven as its ``load.py`` does
(alternating seats, ``{"seat", "version"}``; a move counts when both sockets saw the new version).

With sockets on two daphne processes, a table's two sockets are on different processes, so every move
crosses the channel layer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import statistics
import time
from dataclasses import dataclass, field

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from loadtest import stages

#: A socket that has no state frame this long after it started connecting has failed to connect.
CONNECT_TIMEOUT = 15.0
#: A move (or a ready) whose frames have not reached both sockets this long after it was sent is an error.
FRAME_TIMEOUT = 10.0


@dataclass
class Figures:
    """Everything one run of one stack measured."""

    sockets: int = 0
    connect: list[float] = field(default_factory=list)
    failed_connects: int = 0
    moves: int = 0  # moves completed inside the measured window
    latency: list[float] = field(default_factory=list)  # of those moves
    errors: int = 0
    error_kinds: dict = field(default_factory=dict)
    window: float = 0.0
    other_changes: int = 0  # readies, rematches
    all_moves: int = 0  # every move, measured or not

    def error(self, kind: str) -> None:
        self.errors += 1
        self.error_kinds[kind] = self.error_kinds.get(kind, 0) + 1

    def absorb(self, other: Figures) -> None:
        """Add ``other`` (another round of the same profile and stack): its sockets, moves and measured window
        to these, so that moves/s is over both windows and a quantile over both rounds' samples."""
        self.sockets += other.sockets
        self.connect.extend(other.connect)
        self.failed_connects += other.failed_connects
        self.moves += other.moves
        self.latency.extend(other.latency)
        self.errors += other.errors
        for kind, count in other.error_kinds.items():
            self.error_kinds[kind] = self.error_kinds.get(kind, 0) + count
        self.window += other.window
        self.other_changes += other.other_changes
        self.all_moves += other.all_moves

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.window if self.window > 0 else 0.0


def quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q * 100) - 1]


def apply_delta(state: dict, delta: dict) -> dict:
    """The ``state`` a ``delta`` frame makes of the ``state`` of its ``after`` version (as games.delivery.events does)."""
    drop = delta.get("drop") or {}
    table = {**state["table"], **delta.get("table", {})}
    view = {**state["view"], **delta.get("view", {})}
    for key in drop.get("table", ()):
        table.pop(key, None)
    for key in drop.get("view", ()):
        view.pop(key, None)
    for key, change in delta.get("lists", {}).items():
        items = list(state["view"][key][: change["length"]])
        for index, item in sorted((int(index), item) for index, item in change["set"].items()):
            items[index:index + 1] = [item]
        view[key] = items
    if "history" in delta:
        view["history"] = state["view"].get("history", [])[: delta["history"]["from"]] + delta["history"]["append"]
    return {"type": "state", "version": delta["version"], "table": table, "view": view}


class Socket:
    """One WebSocket with a reader task that keeps the newest frame and counts error frames."""

    def __init__(self, figures: Figures, *, site: bool):
        self.figures = figures
        self.site = site
        self.ws = None
        self.state: dict | None = None
        self.version = -1
        self.changed = asyncio.Event()
        self.reader: asyncio.Task | None = None
        self.closed = False
        self.states = 0  # state frames received

    async def open(self, url: str, *, headers: dict | None = None, origin: str | None = None) -> bool:
        started = time.perf_counter()
        try:
            self.ws = await asyncio.wait_for(
                connect(url, additional_headers=headers, origin=origin, open_timeout=CONNECT_TIMEOUT,
                        max_size=2**22, ping_interval=None, close_timeout=2),
                CONNECT_TIMEOUT,
            )
            self.reader = asyncio.create_task(self._read())
            if self.site:  # the site sends the whole state first: connected means holding it
                await self.wait_version(0, timeout=CONNECT_TIMEOUT - (time.perf_counter() - started))
        except Exception as error:  # noqa: BLE001 - any failure to connect counts as one
            self.figures.failed_connects += 1
            self.figures.error_kinds[f"connect:{error.__class__.__name__}"] = (
                self.figures.error_kinds.get(f"connect:{error.__class__.__name__}", 0) + 1
            )
            await self.close()
            return False
        self.figures.connect.append(time.perf_counter() - started)
        return True

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                frame = json.loads(raw)
                if self.site:
                    kind = frame.get("type")
                    if kind == "state":
                        self.states += 1
                        if frame["version"] >= self.version:
                            self.state, self.version = frame, frame["version"]
                            self.changed.set()
                    elif kind == "delta":  # what changed since the state we hold (docs/protocol.md)
                        if frame["version"] <= self.version:
                            continue  # we hold that version already
                        if self.state is None or frame["after"] != self.version:
                            self.figures.error("delta:gap")  # a frame lost on the way: ask for the whole state
                            await self.ws.send(json.dumps({"type": "sync"}))
                            continue
                        self.state, self.version = apply_delta(self.state, frame), frame["version"]
                        self.changed.set()
                    elif kind == "error":
                        self.figures.error(f"error:{frame.get('code')}")
                else:
                    if frame["version"] > self.version:
                        self.version = frame["version"]
                        self.changed.set()
        except Exception as error:  # noqa: BLE001 - the server closed or broke the socket
            if not self.closed:
                self.figures.error(f"closed:{error.__class__.__name__}")
                self.closed = True
        finally:
            if not self.closed:  # a clean close the client did not ask for
                self.figures.error("closed")
            self.closed = True
            self.changed.set()

    async def wait(self, predicate, timeout: float = FRAME_TIMEOUT) -> bool:
        deadline = time.perf_counter() + timeout
        while not predicate():
            if self.closed:
                return False
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                return False
            self.changed.clear()
            if predicate():
                return True
            try:
                await asyncio.wait_for(self.changed.wait(), remaining)
            except TimeoutError:
                return predicate()
        return True

    async def wait_version(self, version: int, timeout: float = FRAME_TIMEOUT) -> bool:
        ok = await self.wait(lambda: self.version >= version, timeout)
        if not ok and not self.closed and timeout > 0:
            raise TimeoutError(f"no frame of version {version}")
        return ok

    async def send(self, message: dict) -> bool:
        """Send ``message``; False if the socket is closed (the server's close, e.g. bare daphne's 1011, counts
        once as a dropped socket, as the reader counts it, instead of ending the run)."""
        if self.closed:
            return False
        try:
            await self.ws.send(json.dumps(message))
        except ConnectionClosed as error:
            if not self.closed:
                self.figures.error(f"closed:{error.__class__.__name__}")
                self.closed = True
                self.changed.set()
            return False
        return True

    async def close(self) -> None:
        self.closed = True
        if self.reader is not None:
            self.reader.cancel()
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 3)


@dataclass
class Plan:
    """When a table plays: ``think`` seconds before each move (0: closed loop), connects spread over
    ``ramp`` seconds (0: all at once), moves counted between ``measure_from`` and ``stop_at``."""

    think: float
    ramp: float
    start_at: float
    measure_from: float
    stop_at: float


class SiteTable:
    def __init__(self, index: int, table: dict, ports: list[int], figures: Figures, rng: random.Random):
        self.index = index
        self.id = table["id"]
        self.sessions = table["sessions"]
        self.ports = [ports[index % len(ports)], ports[(index + 1) % len(ports)]]
        self.figures = figures
        self.rng = rng
        self.seats = [Socket(figures, site=True), Socket(figures, site=True)]
        self.moves: list[list] = []  # [version after, seat, action] seen applied by both
        self.sent: list[list] = []  # [version sent, seat, action]
        self.last_seen: int | None = None

    async def connect(self) -> bool:
        results = await asyncio.gather(*(
            seat.open(f"ws://127.0.0.1:{port}/ws/table/{self.id}/?frames=delta", headers={"Cookie": f"sessionid={session}"},
                      origin=f"http://127.0.0.1:{port}")
            for seat, port, session in zip(self.seats, self.ports, self.sessions, strict=True)
        ))
        if all(results):
            # The sessions may come in any order (a tournament seats whom it drew): order by the seat each holds.
            self.seats.sort(key=lambda seat: seat.state["table"]["you"] if seat.state else 0)
        return all(results)

    def _both(self) -> int:
        return min(seat.version for seat in self.seats)

    async def _until_both(self, version: int) -> bool:
        for seat in self.seats:
            if not await seat.wait_version(version):
                return False
        return True

    async def play(self, plan: Plan) -> None:
        figures = self.figures
        if plan.think:
            await asyncio.sleep(self.rng.uniform(0, plan.think))
        while time.perf_counter() < plan.stop_at:
            if any(seat.closed for seat in self.seats):
                return
            # Both seats hold the same version here (every step below waits for both).
            version = self._both()
            frame = self.seats[0].state
            table, view = frame["table"], frame["view"]
            if table["status"] == "finished":
                if not await self.match_over():
                    return
                continue
            if view is None or table["status"] != "playing":
                figures.error(f"table:{table['status']}")
                return
            if view["to_act"] is None:
                if view["over"]:
                    await self._settle(lambda s: s.state["table"]["status"] == "finished", version + 1)
                    continue
                # The players' "ready" for the next round, after the same thinking as a move: the table changes
                # once per ``think`` as the bare stack's table does (their first readies came at once otherwise:
                # in a burst, a transaction per socket while the bare stack's tables still think).
                if plan.think:
                    await asyncio.sleep(plan.think)
                    if time.perf_counter() >= plan.stop_at:
                        break
                await asyncio.gather(*(seat.send({"type": "ready"}) for seat in self.seats))
                if not await self._settle(lambda s: s.state["view"]["to_act"] is not None, version + 1):
                    return
                figures.other_changes += 2
                continue
            seat = view["to_act"]
            mover = self.seats[seat]
            if plan.think:
                await asyncio.sleep(plan.think)
                if time.perf_counter() >= plan.stop_at:
                    break
            action = self.choose(mover.state["view"])
            self.sent.append([version, seat, action])
            started = time.perf_counter()
            stages.client_note((self.id, version), "sent")
            await mover.send({"type": "move", "version": version, "action": action})
            try:
                if not await self._until_both(version + 1):
                    return
            except TimeoutError:
                figures.error("move:timeout")
                return
            done = time.perf_counter()
            stages.client_note((self.id, version), "both")
            figures.all_moves += 1
            if self._both() == version + 1:
                self.moves.append([version + 1, seat, action])
            if plan.measure_from <= started and done <= plan.stop_at + FRAME_TIMEOUT:
                figures.moves += 1
                figures.latency.append(done - started)

    def choose(self, view: dict) -> dict:
        """The move of the seat to act, from its own view: a random legal one."""
        return self.rng.choice(view["legal_actions"])

    async def match_over(self) -> bool:
        """The match is over: both ask for a rematch. True to play on (the rematch started)."""
        await asyncio.gather(*(seat.send({"type": "rematch"}) for seat in self.seats))
        if not await self._settle(lambda s: s.state["table"]["status"] == "playing"):
            return False
        self.figures.other_changes += 2
        return True

    async def _settle(self, predicate, version: int | None = None) -> bool:
        """Wait until both seats' frames satisfy ``predicate`` (and reach ``version``)."""
        for seat in self.seats:
            ok = await seat.wait(
                lambda s=seat: s.state is not None and (version is None or s.version >= version) and predicate(s)
            )
            if not ok:
                if not seat.closed:
                    self.figures.error("settle:timeout")
                return False
        return True

    async def finish(self) -> None:
        """Ask both sockets for the whole state once more: each must hold the table's current version."""
        live = [seat for seat in self.seats if not seat.closed]
        if len(live) == 2:
            before = max(seat.version for seat in live)
            counts = [seat.states for seat in live]
            await asyncio.gather(*(seat.send({"type": "sync"}) for seat in live))
            # Each socket's answer to its sync (a whole state), before it closes.
            await asyncio.gather(*(seat.wait(lambda s=seat, n=n: s.states > n, timeout=FRAME_TIMEOUT)
                                   for seat, n in zip(live, counts, strict=True)))
            self.last_seen = min(seat.version for seat in live)
            if self.last_seen < before:
                self.figures.error("sync:behind")
        await asyncio.gather(*(seat.close() for seat in self.seats))

    def record(self) -> dict:
        return {"moves": self.moves, "sent": self.sent, "last_seen": self.last_seen}


class BareTable:
    """Two sockets on the bare stack, moving alternately as stackbench/load.py does."""

    def __init__(self, index: int, ports: list[int], figures: Figures, rng: random.Random):
        self.id = index + 1
        self.ports = [ports[self.id % len(ports)], ports[(self.id + 1) % len(ports)]]
        self.figures = figures
        self.rng = rng
        self.seats = [Socket(figures, site=False), Socket(figures, site=False)]
        self.version = 0

    async def connect(self) -> bool:
        results = await asyncio.gather(*(
            seat.open(f"ws://127.0.0.1:{port}/ws/{self.id}/") for seat, port in zip(self.seats, self.ports, strict=True)
        ))
        for seat in self.seats:
            seat.version = max(seat.version, 0)
        return all(results)

    async def play(self, plan: Plan) -> None:
        figures = self.figures
        if plan.think:
            await asyncio.sleep(self.rng.uniform(0, plan.think))
        seat = 0
        while time.perf_counter() < plan.stop_at:
            if any(s.closed for s in self.seats):
                return
            if plan.think:
                await asyncio.sleep(plan.think)
                if time.perf_counter() >= plan.stop_at:
                    break
            started = time.perf_counter()
            stages.client_note((self.id, self.version), "sent")
            await self.seats[seat].send({"seat": seat, "version": self.version})
            try:
                for s in self.seats:
                    if not await s.wait_version(self.version + 1):
                        return
            except TimeoutError:
                figures.error("move:timeout")
                return
            done = time.perf_counter()
            stages.client_note((self.id, self.version), "both")
            figures.all_moves += 1
            self.version += 1
            seat = 1 - seat
            if plan.measure_from <= started:
                figures.moves += 1
                figures.latency.append(done - started)

    async def finish(self) -> None:
        await asyncio.gather(*(seat.close() for seat in self.seats))


async def drive(tables: list, plan: Plan, figures: Figures, between=None) -> None:
    """Connect every table (spread over the ramp, or all at once), let them play until ``stop_at``, then
    let each finish cleanly; ``between``: awaited after the play, while every socket is still open."""
    figures.sockets = 2 * len(tables)

    async def one(i: int, table) -> None:
        if plan.ramp and len(tables) > 1:
            await asyncio.sleep(plan.ramp * i / len(tables))
        if await table.connect():
            await table.play(plan)

    await asyncio.gather(*(one(i, t) for i, t in enumerate(tables)))
    if between is not None:
        await between()
    await asyncio.gather(*(t.finish() for t in tables))
    figures.window = max(0.0, plan.stop_at - plan.measure_from)


def post_start(port: int, tournament: int, staff_session: str) -> int:
    """Start ``tournament`` as staff do: the start button of its staff page (a POST with the CSRF token).
    Returns the HTTP status (302: started, back to the staff page)."""
    import secrets
    import urllib.error
    import urllib.request

    token = secrets.token_hex(16)  # 32 characters: Django takes it as the unmasked secret of the cookie
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/turniere/{tournament}/leitung/start/",
        data=f"csrfmiddlewaretoken={token}".encode(), method="POST",
        headers={"Cookie": f"sessionid={staff_session}; csrftoken={token}",
                 "Content-Type": "application/x-www-form-urlencoded", "Origin": f"http://127.0.0.1:{port}"},
    )

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    try:
        with urllib.request.build_opener(NoRedirect).open(request, timeout=600) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


async def open_notice_socket(port: int, session: str, figures: Figures, *, failed_connect: bool = False):
    """A signed-in person's ``/ws/notices/`` socket on ``port``, or None (the failure recorded in ``figures``,
    and counted as a failed connect where the socket is part of the measured load)."""
    try:
        return await connect(f"ws://127.0.0.1:{port}/ws/notices/", open_timeout=CONNECT_TIMEOUT,
                             additional_headers={"Cookie": f"sessionid={session}"},
                             origin=f"http://127.0.0.1:{port}", ping_interval=None, close_timeout=2)
    except Exception as error:  # noqa: BLE001 - any failure to connect counts as one
        if failed_connect:
            figures.failed_connects += 1
        figures.error(f"notice-connect:{error.__class__.__name__}")
        return None


class NoticeSocket:
    """A signed-in person's ``/ws/notices/`` socket, open before a tournament starts: records when its
    ``table_ready`` notice arrives and for which table."""

    def __init__(self, user: int, session: str, port: int, figures: Figures):
        self.user, self.session, self.port, self.figures = user, session, port, figures
        self.ws = None
        self.table_id: int | None = None
        self.told_at: float | None = None
        self.told = asyncio.Event()
        self.reader: asyncio.Task | None = None

    async def open(self) -> bool:
        self.ws = await open_notice_socket(self.port, self.session, self.figures)
        if self.ws is None:
            return False
        self.reader = asyncio.create_task(self._read())
        return True

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                frame = json.loads(raw)
                if frame.get("type") == "notice" and frame.get("kind") == "table_ready" and self.table_id is None:
                    self.told_at = time.perf_counter()
                    self.table_id = int(frame["table_id"])
                    self.told.set()
        except Exception as error:  # noqa: BLE001 - the server closed or broke the socket
            self.figures.error(f"notice-closed:{error.__class__.__name__}")
        finally:
            self.told.set()

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 3)


@dataclass
class StartFigures:
    """What a tournament start measured besides the tables' play."""

    players: int = 0
    notice_sockets: int = 0  # open when the start was posted
    told: list[float] = field(default_factory=list)  # seconds from posting the start to each table_ready
    not_told: int = 0
    start_seconds: float | None = None  # the staff request's round trip: the stage start, on the server
    start_status: int | None = None
    tables: int = 0


async def drive_tournament(info: dict, ports: list[int], plan_of, figures: Figures, start, rng: random.Random,
                           notice_timeout: float = 60.0, between=None) -> tuple[StartFigures, list[SiteTable]]:
    """Open every player's notice socket, call ``start()`` (a blocking call that starts the tournament, run in
    a thread; returns the HTTP status), then seat each table as soon as both its players were told: both sockets
    connect together and play as ``plan_of(now)`` says. ``between``: awaited after the play, while every
    socket (tables and notices) is still open."""
    sf = StartFigures(players=len(info["players"]))
    notes = [NoticeSocket(p["user"], p["session"], ports[i % len(ports)], figures)
             for i, p in enumerate(info["players"])]
    # The notice sockets open before the start, in batches (an evening fills up; this is not what is measured).
    for i in range(0, len(notes), 100):
        await asyncio.gather(*(n.open() for n in notes[i:i + 100]))
    sf.notice_sockets = sum(1 for n in notes if n.ws is not None)
    tables: list[SiteTable] = []
    waiting: dict[int, list[NoticeSocket]] = {}
    plays: list[asyncio.Task] = []
    posted = time.perf_counter()
    plan = None  # the play's clock starts with the first table seated (however long the start took)

    async def seat(table: SiteTable) -> None:
        if await table.connect():
            await table.play(plan)

    async def told(note: NoticeSocket) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(note.told.wait(), notice_timeout)
        if note.table_id is None:
            sf.not_told += 1
            return
        sf.told.append(note.told_at - posted)
        nonlocal plan
        if plan is None:
            plan = plan_of(time.perf_counter())
        pair = waiting.setdefault(note.table_id, [])
        pair.append(note)
        if len(pair) == 2:
            table = SiteTable(len(tables), {"id": note.table_id, "sessions": [n.session for n in pair]},
                              ports, figures, random.Random(rng.random()))
            tables.append(table)
            plays.append(asyncio.create_task(seat(table)))

    async def post() -> None:
        began = time.perf_counter()
        sf.start_status = await asyncio.to_thread(start)
        sf.start_seconds = time.perf_counter() - began

    await asyncio.gather(post(), *(told(n) for n in notes if n.ws is not None))
    sf.not_told += len(notes) - sf.notice_sockets
    await asyncio.gather(*plays)
    if between is not None:
        await between()
    await asyncio.gather(*(t.finish() for t in tables), *(n.close() for n in notes))
    figures.sockets = 2 * len(tables)
    figures.window = max(0.0, plan.stop_at - plan.measure_from) if plan is not None else 0.0
    sf.tables = len(tables)
    return sf, tables


# --- the arena (issue 30): players paired by the referee, told over their notice socket ---------------------


#: While waiting for a table this long, a player's arena page fetches its live part (as the page does every
#: few seconds), which keeps them present for the pairing (``TOURNAMENTS_ARENA_PRESENT_SECONDS``).
ARENA_REFRESH = 10.0
#: Seconds after the stop in which a player still sits down at a table told before it (and plays no move).
ARENA_DRAIN = 5.0


@dataclass
class ArenaStats:
    """What an arena run measured besides the tables' moves (those are in :class:`Figures`)."""

    players: int = 0
    notice_sockets: int = 0
    start_status: int | None = None
    register_seconds: float | None = None  # registering everyone (a registration marks its player present)
    start_seconds: float | None = None  # the staff start's round trip (it seats everyone present: the first pass)
    told: dict = field(default_factory=dict)  # user id → [[table id, wall-clock time told], ...]
    to_table: list[float] = field(default_factory=list)  # seconds from a table_ready to holding the table's state
    wait: list[float] = field(default_factory=list)  # seconds from seeing one's match end to the next table_ready
    matches: int = 0  # tables played to their end
    unfinished: int = 0  # tables still playing when the time was up
    refreshes: int = 0  # live-part fetches of players waiting longer than ARENA_REFRESH
    partner_missing: int = 0  # tables where one player never came
    stop_wall: float = 0.0  # wall-clock time the play stopped
    start_wall: float = 0.0  # wall-clock time the staff start answered


class ArenaTable(SiteTable):
    """A gin table of the arena: each seat's socket opens as soon as its own player is told the table (a
    ``table_ready`` on the notice socket); play starts when both hold the state. Both play a short script
    (knock or go gin when they can, else take from the stock and shed the meter's worst card), a move every
    ``plan.think`` seconds; the match ends with its one scored round (the arena's tables play ``target`` 0),
    and both seats leave the finished table (no rematch at a tournament table)."""

    def __init__(self, index: int, table_id: int, figures: Figures, rng: random.Random):
        super().__init__(index, {"id": table_id, "sessions": []}, [0], figures, rng)
        self.seats = []
        self.arrived = 0
        self.both = asyncio.Event()
        self.done = asyncio.Event()
        self.finished = False
        self.ended_at: float | None = None

    def choose(self, view: dict) -> dict:
        legal = view["legal_actions"]
        best = (view.get("meter") or {}).get("best_discard")
        knocks = [a for a in legal if a.get("action") in ("knock", "gin")]
        if knocks:
            return next((a for a in knocks if a.get("card") == best), knocks[0])
        for wanted in ({"action": "pass"}, {"action": "draw", "from": "stock"}):
            if wanted in legal:
                return wanted
        discards = [a for a in legal if a.get("action") == "discard"]
        if discards:
            return next((a for a in discards if a.get("card") == best), discards[0])
        return self.rng.choice(legal)

    async def match_over(self) -> bool:
        self.finished = True
        self.ended_at = time.perf_counter()
        return False

    async def join(self, port: int, session: str, told_at: float, stats: ArenaStats, plan: Plan) -> None:
        """This player's seat: open its socket, and once both are there play the match (the second to arrive
        drives it); returns when the table is done (finished, the time up, or the partner never came)."""
        seat = Socket(self.figures, site=True)
        ok = await seat.open(f"ws://127.0.0.1:{port}/ws/table/{self.id}/?frames=delta",
                             headers={"Cookie": f"sessionid={session}"}, origin=f"http://127.0.0.1:{port}")
        self.arrived += 1
        if ok:
            stats.to_table.append(time.perf_counter() - told_at)
            self.seats.append(seat)
        if self.arrived < 2:
            # The partner is told in the same pass: wait for them (or for the end of the run).
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.both.wait(),
                                       max(0.0, plan.stop_at + ARENA_DRAIN - time.perf_counter()) + CONNECT_TIMEOUT)
            if not self.both.is_set():
                stats.partner_missing += 1
                self.figures.error("arena:partner-missing")
                await self.finish()
                self.done.set()
                return
            await self.done.wait()
            return
        self.both.set()
        try:
            if len(self.seats) == 2:
                self.seats.sort(key=lambda s: s.state["table"]["you"] if s.state else 0)
                await self.play(plan)
                if self.finished:
                    stats.matches += 1
                else:
                    stats.unfinished += 1
            await self.finish()
        finally:
            self.done.set()


class ArenaPlayer:
    """A signed-in player of the arena: a notice socket open all along (every ``table_ready`` is queued and
    recorded), and a loop that takes each table told, plays it, and waits for the next."""

    def __init__(self, index: int, user: int, session: str, ports: list[int], figures: Figures, stats: ArenaStats):
        self.index, self.user, self.session = index, user, session
        self.port = ports[index % len(ports)]
        self.table_port = ports[(index + 1) % len(ports)]
        self.figures, self.stats = figures, stats
        self.queue: asyncio.Queue = asyncio.Queue()
        self.ws = None
        self.reader: asyncio.Task | None = None
        stats.told[user] = []

    async def open(self) -> bool:
        self.ws = await open_notice_socket(self.port, self.session, self.figures, failed_connect=True)
        if self.ws is None:
            return False
        self.reader = asyncio.create_task(self._read())
        return True

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                frame = json.loads(raw)
                if frame.get("type") == "notice" and frame.get("kind") == "table_ready":
                    table_id = int(frame["table_id"])
                    if any(t == table_id for t, _ in self.stats.told[self.user]):
                        continue  # told again (a reconnect's pending tables): the same table
                    self.stats.told[self.user].append([table_id, time.time()])
                    self.queue.put_nowait((table_id, time.perf_counter()))
        except Exception as error:  # noqa: BLE001 - the server closed or broke the socket
            self.figures.error(f"notice-closed:{error.__class__.__name__}")

    async def play(self, tables: dict, plan: Plan, rng: random.Random, refresh) -> None:
        """Until ``plan.stop_at``: take the next table told, sit down and play it, then wait for the next
        (fetching the arena's live part every :data:`ARENA_REFRESH` seconds of waiting). For
        :data:`ARENA_DRAIN` seconds after that, still sit down at a table told before the stop or one whose
        partner sat down already, so that no table the referee opened before the stop is left half empty."""
        freed: float | None = None
        drain_until = plan.stop_at + ARENA_DRAIN
        while True:
            now = time.perf_counter()
            if now >= drain_until:
                return
            try:
                if now < plan.stop_at:
                    table_id, told_at = await asyncio.wait_for(self.queue.get(), min(plan.stop_at - now, ARENA_REFRESH))
                else:
                    table_id, told_at = await asyncio.wait_for(self.queue.get(), drain_until - now)
            except TimeoutError:
                if time.perf_counter() < plan.stop_at:
                    self.stats.refreshes += 1
                    await asyncio.to_thread(refresh, self.port, self.session)
                continue
            table = tables.get(table_id)
            if table is None and told_at > plan.stop_at:
                continue  # paired after the time was up, and the partner did not sit down either
            if freed is not None and told_at <= plan.stop_at:
                self.stats.wait.append(max(0.0, told_at - freed))
            if table is None:
                table = tables[table_id] = ArenaTable(len(tables), table_id, self.figures, random.Random(rng.random()))
            await table.join(self.table_port, self.session, told_at, self.stats, plan)
            if table.finished and table.ended_at is not None:
                freed = table.ended_at

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 3)


def get_live(port: int, tournament: int, session: str) -> int:
    """The arena page's refresh: ``GET /turniere/<id>/live/`` as the signed-in player (which marks them
    present). Returns the HTTP status."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(f"http://127.0.0.1:{port}/turniere/{tournament}/live/",
                                     headers={"Cookie": f"sessionid={session}", "X-Requested-With": "fetch"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


async def drive_arena(info: dict, ports: list[int], plan_of, figures: Figures, register, start,
                      rng: random.Random) -> tuple[ArenaStats, list[ArenaTable]]:
    """Open every player's notice socket, then ``register()`` them all and ``start()`` the arena (blocking
    calls, run in a thread; ``start`` returns the HTTP status of the staff start), then let every player
    take, play and leave the tables the referee gives them until ``plan_of(now)``'s ``stop_at``."""
    stats = ArenaStats(players=len(info["players"]))
    people = [ArenaPlayer(i, p["user"], p["session"], ports, figures, stats) for i, p in enumerate(info["players"])]
    for i in range(0, len(people), 100):  # the arena page open before the start (not what is measured)
        await asyncio.gather(*(p.open() for p in people[i:i + 100]))
    stats.notice_sockets = sum(1 for p in people if p.ws is not None)
    began = time.perf_counter()
    await asyncio.to_thread(register)
    stats.register_seconds = time.perf_counter() - began
    began = time.perf_counter()
    stats.start_status = await asyncio.to_thread(start)
    stats.start_seconds = time.perf_counter() - began
    stats.start_wall = time.time()
    plan = plan_of(time.perf_counter())
    stats.stop_wall = time.time() + (plan.stop_at - time.perf_counter())
    tables: dict[int, ArenaTable] = {}

    def refresh(port: int, session: str) -> None:
        if get_live(port, info["tournament"], session) != 200:
            figures.error("arena:live-page")

    await asyncio.gather(*(p.play(tables, plan, rng, refresh) for p in people if p.ws is not None))
    await asyncio.gather(*(t.done.wait() for t in tables.values()))
    await asyncio.gather(*(p.close() for p in people))
    figures.sockets = stats.notice_sockets + sum(t.arrived for t in tables.values())
    figures.window = max(0.0, plan.stop_at - plan.measure_from)
    return stats, list(tables.values())
