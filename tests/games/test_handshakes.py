"""The handshake of table and notice sockets (games/web/handshakes.py, games/delivery/framecache.py): accepted first, the
handshakes that arrive together read each table once, the last frames per table and audience kept by version
and never handed to anyone else, presence per person and batched, the caps on sockets per person and address."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
from unittest import mock

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.delivery import events, framecache
from games.reads import selectors
from games.web import handshakes
from tests.games.helpers import Socket, assert_own_views, playing_gin, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

create_table = sync_to_async(services.table_create)
join_table = sync_to_async(services.table_join)


@pytest.fixture(autouse=True)
def _fresh_counts():
    handshakes.reset()
    framecache.clear()
    yield
    handshakes.reset()
    framecache.clear()


def _reads(queries, *tables: str) -> int:
    return sum(1 for q in queries if any(f'"{t}"' in q["sql"] for t in tables))


def test_sockets_of_one_table_share_one_read_and_a_kept_version_reads_no_rows(players, spectator):
    table = playing_gin(players)
    viewers = [(players[0], ""), (players[1], ""), (spectator, ""), (AnonymousUser(), "")]
    # One socket at a time, as before the batching: every handshake reads the table's rows and its chat.
    framecache.clear()
    with CaptureQueriesContext(connection) as alone:
        for user, invite in viewers:
            framecache.clear()
            selectors.table_opening(table_id=table.pk, user=user, invite_token=invite)
    framecache.clear()
    with CaptureQueriesContext(connection) as together:
        openings = selectors.table_openings(table_id=table.pk, viewers=viewers)
    with CaptureQueriesContext(connection) as again:
        kept = selectors.table_openings(table_id=table.pk, viewers=viewers)
    print(f"statements for 4 handshakes of one table: one at a time {len(alone)}, batched {len(together)}, "
          f"batched at a kept version {len(again)}")
    assert _reads(together, "games_seat") == 1 and _reads(together, "games_chatmessage") == 1
    assert _reads(alone, "games_seat") >= 4
    assert len(together) * 3 <= len(alone)
    # At an unchanged version nothing of the state is read again: the table's row (for its version) and the chat.
    assert _reads(again, "games_seat", "games_round") == 0 and len(again) == 2
    assert [o[0] for o in kept] == [o[0] for o in openings]
    you = [state["table"]["you"] for state, _ in openings]
    assert you == [0, 1, None, None]


def test_sockets_of_many_tables_share_one_read_of_each_kind_and_get_what_each_table_alone_gives(players, spectator):
    """``table_openings_many``: the sockets of several tables (a burst) read the tables, their seats, rounds,
    versions and chat in one statement each, however many tables; each socket gets exactly what its table's
    own ``table_openings`` gives (its seat's view or the public one, the chat with its seats), and a table
    that does not exist gets nothing."""
    tables = [playing_gin(players) for _ in range(3)]
    for table in tables[:2]:
        services.chat_post(table_id=table.pk, user=players[0], text=f"Hallo an Tisch {table.pk}")
    requests = {table.pk: [(players[0], ""), (players[1], ""), (spectator, "")] for table in tables}
    requests[10**9] = [(players[0], "")]
    framecache.clear()
    with CaptureQueriesContext(connection) as together:
        many = selectors.table_openings_many(requests)
    framecache.clear()
    one_by_one = {table_id: selectors.table_openings(table_id=table_id, viewers=viewers)
                  for table_id, viewers in requests.items()}
    assert many == one_by_one
    assert many[10**9] == [None]
    assert [[state["table"]["you"] for state, _ in many[table.pk]] for table in tables] == [[0, 1, None]] * 3
    assert many[tables[0].pk][2][1][0]["text"] == f"Hallo an Tisch {tables[0].pk}" and many[tables[2].pk][0][1] == []
    for kind in ("games_seat", "games_round", "games_chatmessage"):
        assert _reads(together, kind) == 1, kind
    assert len(together) == 5  # tables, seats, rounds, versions, chat: not five per table


@contextlib.contextmanager
def _pipelines_sent():
    """Every statement sent inside (a ``CaptureQueriesContext``), and the statements of each PostgreSQL pipeline
    opened inside, a list per pipeline (one round trip each)."""
    import psycopg

    pipelines: list[list[str]] = []
    pipeline = psycopg.Connection.pipeline
    with CaptureQueriesContext(connection) as sent, pytest.MonkeyPatch.context() as patch:
        @contextlib.contextmanager
        def noted(self):
            start = len(sent.captured_queries)
            with pipeline(self) as opened:
                yield opened
            pipelines.append([query["sql"] for query in sent.captured_queries[start:]])

        patch.setattr(psycopg.Connection, "pipeline", noted)
        yield sent, pipelines


@pytest.mark.skipif(connection.vendor != "postgresql", reason="pipeline mode is PostgreSQL's")
def test_a_batchs_table_reads_take_two_round_trips_on_postgresql(players, spectator):
    """On PostgreSQL the five reads of a batch's tables go in two round trips (``prepared.fetch_in_together``):
    the tables with their chat, then the seats, rounds and versions of those not kept, the versions last;
    each statement the same however many tables (``= ANY(%s)``: compiled once, ``prepared.PreparedIn``).
    Each socket still gets what its table's own ``table_openings`` gives (the test above, on every database)."""
    tables = [playing_gin(players) for _ in range(3)]
    services.chat_post(table_id=tables[0].pk, user=players[0], text="Hallo")
    requests = {table.pk: [(players[0], ""), (spectator, "")] for table in tables}
    framecache.clear()
    with _pipelines_sent() as (together, pipelines):
        many = selectors.table_openings_many(requests)
    framecache.clear()
    assert many == {table_id: selectors.table_openings(table_id=table_id, viewers=viewers)
                    for table_id, viewers in requests.items()}
    assert len(together) == 5 and [len(sent) for sent in pipelines] == [2, 3]  # every statement in one of two
    first, second = pipelines
    assert 'FROM "games_table"' in first[0] and '"games_chatmessage"' in first[1]
    assert 'FROM "games_seat"' in second[0] and '"games_round"' in second[1]
    assert '"games_table"."version"' in second[2].split(" FROM ")[0] and second[2].split(" FROM ")[1].startswith(
        '"games_table"')
    assert all(" = ANY(" in sql and " IN (" not in sql for sql in first + second)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="pipeline mode is PostgreSQL's")
def test_a_batch_reads_its_users_in_the_round_trip_of_its_tables(players, spectator):
    """A batch of handshakes: its sessions, then in one round trip to PostgreSQL the users they name with the
    batch's tables and their chat, then the tables' seats, rounds and versions: two round trips in all, and every
    socket signed in as and shown what it would be one at a time."""
    from channels.auth import UserLazyObject
    from django.contrib.sessions.backends.db import SessionStore

    tables = [playing_gin(players) for _ in range(2)]
    cookies = [session_cookie(user) for user in (players[0], players[1], spectator)]
    batch = [handshakes._Request({"session": SessionStore(key), "user": UserLazyObject()}, table.pk, "", None)
             for table in tables for key in cookies]
    framecache.clear()
    with _pipelines_sent() as (sent, pipelines):
        results = handshakes._open_batch(batch)
    framecache.clear()
    users = [user for user, _ in results]
    assert [user.pk for user in users] == [players[0].pk, players[1].pk, spectator.pk] * 2
    for table, (user, opened) in zip([t for t in tables for _ in cookies], results, strict=True):
        state, chat = selectors.table_openings(table_id=table.pk, viewers=[(user, "")])[0]
        assert opened == (events.StateText.of(state), chat)  # the state encoded where it was read
    outside = [q["sql"] for q in sent.captured_queries if not any(q["sql"] in trip for trip in pipelines)]
    assert len(pipelines) == 2 and [len(trip) for trip in pipelines] == [3, 3], pipelines
    assert '"auth_user"' in pipelines[0][0].split(" WHERE ")[0] and 'FROM "games_table"' in pipelines[0][1]
    assert all('"django_session"' in sql for sql in outside), outside  # only the sessions, before


def test_a_batchs_reads_of_ids_are_one_statement_whatever_their_number_and_give_what_the_queryset_gives(
        players, spectator):
    """``prepared.PreparedIn`` (the handshake batch's users and tables): the ids go as one parameter (on
    PostgreSQL an array, on SQLite a JSON array), so the statement is the same for one id or three (compiled
    once per process); the objects are the queryset's own, ids that name nothing and an empty list included."""
    from django.contrib.auth import get_user_model

    ids = [players[0].pk, 10**12, spectator.pk, players[1].pk]
    statements = []
    for some in ([ids[0]], ids, []):
        with CaptureQueriesContext(connection) as sent:
            got = handshakes._USERS.fetch(some)
        expected = list(get_user_model()._default_manager.filter(pk__in=some))
        assert sorted((u.pk, u.username, u.password) for u in got) == sorted(
            (u.pk, u.username, u.password) for u in expected)
        statements += [query["sql"] for query in sent.captured_queries]
    if connection.vendor == "postgresql":
        # The same statement, its values apart (the captured SQL shows them bound into it).
        assert " = ANY(" in statements[0] and " IN (" not in statements[0]
        assert statements[0].split(" = ANY(")[0] == statements[1].split(" = ANY(")[0]
    else:
        assert all(" IN (SELECT value FROM json_each(" in sql for sql in statements)
        assert len({sql.split("json_each(")[0] for sql in statements}) == 1


def test_a_kept_seat_view_never_reaches_anyone_else(players, spectator):
    table = playing_gin(players)
    anna, ben = players[0], players[1]
    anna_view = selectors.table_state_for(table_id=table.pk, user=anna)  # anna's frame is kept now
    hand = anna_view["view"]["hand"]
    assert len(hand) == 7 or len(hand) >= 7
    for someone in (spectator, AnonymousUser(), None, players[2]):
        seen = selectors.table_state_for(table_id=table.pk, user=someone)
        assert seen["table"]["you"] is None and seen["version"] == anna_view["version"]
        assert not set(hand) & set(json.dumps(seen["view"]).replace('"', " ").split()), "a kept hand leaked"
    bens = selectors.table_state_for(table_id=table.pk, user=ben)
    assert bens["table"]["you"] == 1 and not set(bens["view"]["hand"]) & set(hand)
    # Anna's seat changes hands (she resigns and leaves): a newer version, her old frame is not reused for her.
    services.match_resign(table_id=table.pk, user=anna)
    after = selectors.table_state_for(table_id=table.pk, user=anna)
    assert after["version"] > anna_view["version"] and after["view"].get("hand") != hand


async def test_sockets_connecting_together_each_get_their_own_view(players, spectator):
    table = await sync_to_async(playing_gin)(players)
    sockets = await asyncio.gather(
        Socket.open(table.pk, players[0]), Socket.open(table.pk, spectator),
        Socket.open(table.pk, players[1]), Socket.open(table.pk, None))
    states = [await s.until(lambda f: f["type"] == "state") for s in sockets]
    assert_own_views([states[0], states[2]], [states[1], states[3]])
    for socket in sockets:
        await socket.close()


def _move_now(table_id: int, players) -> int:
    """The player to act makes a move through the service (not through a socket); the new version."""
    from games import registry
    from games.models import Table
    from tests.games.helpers import choose_action, state_of

    table = Table.objects.get(pk=table_id)
    state = state_of(table)
    action = choose_action(registry.get(table.game).engine.view(state, state.to_act))
    return services.move_apply(table_id=table_id, user=players[state.to_act], version=table.version, action=action)


async def test_a_seat_holds_its_state_before_its_own_groups_are_joined_and_a_change_meanwhile_still_reaches_it(
        players, monkeypatch):
    """A seated socket is sent its state as soon as it is read, before its user group is joined (a Redis round
    trip on the scaled stack): the client does not wait for that join. A change committed while the join is
    under way misses the user group but comes on the public group, joined before the read, and the socket
    reads its own state again; later changes come on its user group. Its own cards only, all along."""
    from channels.layers import get_channel_layer

    table = await sync_to_async(playing_gin)(players)
    layer = get_channel_layer()
    joining, go_on = asyncio.Event(), asyncio.Event()
    regroup = layer.regroup

    async def held(channel, *, add=(), discard=()):
        if any(".user." in group for group in add):  # the seat's own group: held until told
            joining.set()
            await go_on.wait()
        return await regroup(channel, add=add, discard=discard)

    monkeypatch.setattr(layer, "regroup", held)
    anna = await Socket.open(table.pk, players[0], deltas=True)  # its first frame comes while the join waits
    first = await anna.receive()
    assert joining.is_set() and not go_on.is_set()
    assert first["type"] == "state" and first["table"]["you"] == 0
    moved = await sync_to_async(_move_now)(table.pk, players)  # committed while the join is under way
    go_on.set()
    state = await anna.until(lambda f: f["type"] == "state" and f["version"] == moved)
    assert state["table"]["you"] == 0 and state["view"]["hand"]
    later = await sync_to_async(_move_now)(table.pk, players)  # on the user group now
    state = await anna.until(lambda f: f["type"] == "state" and f["version"] == later)
    assert state["table"]["you"] == 0
    mine = await sync_to_async(selectors.table_state_for)(table_id=table.pk, user=players[0])
    assert state["view"]["hand"] == mine["view"]["hand"]
    await anna.close()


async def _presence_frames(socket: Socket, seconds: float) -> list[dict]:
    """The presence frames ``socket`` gets within ``seconds``."""
    frames = []
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while loop.time() < end:
        if await socket.communicator.receive_nothing(timeout=0.05) and not socket.pending:
            continue
        frame = await socket.receive()
        if frame["type"] == "presence":
            frames.append(frame)
    return frames


@contextlib.contextmanager
def _cookies(cookies: dict):
    """Socket.open with sessions made beforehand (making one takes longer than a presence window)."""
    from tests.games import helpers

    made = helpers.session_cookie
    helpers.session_cookie = lambda user: cookies[user.pk]
    try:
        yield
    finally:
        helpers.session_cookie = made


async def test_presence_is_per_person_and_batched(players, settings):
    settings.GAMES_PRESENCE_BATCH_SECONDS = 0.5
    table = await sync_to_async(playing_gin)(players)
    cookies = {user.pk: await sync_to_async(session_cookie)(user) for user in players}  # made before the window
    ben = await Socket.open(table.pk, players[1])
    await ben.until(lambda f: f["type"] == "state")
    await _presence_frames(ben, 0.8)  # ben's own arrival
    with _cookies(cookies):
        *annas, cleo = await asyncio.gather(*(Socket.open(table.pk, user) for user in [players[0]] * 3 + [players[2]]))
    frames = await _presence_frames(ben, 1.0)
    assert frames == [{"type": "presence", "changes": [
        {"user_id": players[0].pk, "user": "anna", "online": True},
        {"user_id": players[2].pk, "user": "cleo", "online": True}]}]
    for socket in annas[:2]:
        await socket.close()
    assert await _presence_frames(ben, 0.8) == []  # anna still has a socket here
    await annas[2].close()
    assert await _presence_frames(ben, 0.8) == [
        {"type": "presence", "changes": [{"user_id": players[0].pk, "user": "anna", "online": False}]}]
    # Came and went within one window: nobody is told anything.
    with _cookies(cookies):
        flash = await Socket.open(table.pk, players[3])
    await flash.close()
    assert await _presence_frames(ben, 0.8) == []
    await cleo.close()
    await ben.close()


async def test_presence_changes_of_many_tables_in_one_window_go_out_together(settings):
    """The window's presence changes of every table go to the layer in one call (a round trip or two per Redis
    shard for all of them), a frame per table with its own changes: in a tournament's start every table's two
    players arrive within the same second."""
    from types import SimpleNamespace

    settings.GAMES_PRESENCE_BATCH_SECONDS = 0.05
    handshakes.reset()
    calls: list[list[tuple[str, dict]]] = []

    class Layer:
        async def group_send_many(self, messages):
            calls.append(messages)

    layer = Layer()
    people = [SimpleNamespace(pk=pk, get_username=lambda pk=pk: f"p{pk}") for pk in (1, 2, 3, 4)]
    for table_id, user in [(10, people[0]), (10, people[1]), (11, people[2]), (12, people[3])]:
        handshakes.presence_opened(layer, table_id, user)
    handshakes.presence_closed(layer, 12, people[3])  # came and went: table 12 has nothing to tell
    await asyncio.sleep(0.2)
    assert len(calls) == 1, calls
    sent = {group: json.loads(message["text"]) for group, message in calls[0]}
    assert sorted(sent) == [events.everyone_group(10), events.everyone_group(11)]
    assert [change["user_id"] for change in sent[events.everyone_group(10)]["changes"]] == [1, 2]
    assert sent[events.everyone_group(11)]["changes"] == [{"user_id": 3, "user": "p3", "online": True}]
    handshakes.reset()


async def _open_raw(path: str, user=None, client=None):
    from channels.testing import WebsocketCommunicator

    from ginsite.asgi import application

    headers = [(b"origin", b"http://testserver")]
    if user is not None:
        headers.append((b"cookie", f"sessionid={await sync_to_async(session_cookie)(user)}".encode()))
    communicator = WebsocketCommunicator(application, path, headers=headers)
    if client is not None:
        communicator.scope["client"] = client
    connected, _ = await communicator.connect(timeout=5)
    assert connected  # accepted first, whatever follows
    return communicator


async def _refused(communicator) -> tuple[dict, int]:
    error = json.loads((await communicator.receive_output(timeout=5))["text"])
    closed = await communicator.receive_output(timeout=5)
    assert closed["type"] == "websocket.close"
    return error, closed["code"]


async def test_sockets_over_a_persons_cap_are_told_why_and_closed(players, settings):
    settings.GAMES_SOCKETS_PER_PERSON = 3
    table = await sync_to_async(playing_gin)(players)
    held = [await _open_raw(f"/ws/table/{table.pk}/", players[0]) for _ in range(2)]
    held.append(await _open_raw("/ws/notices/", players[0]))
    for communicator in held[:2]:
        assert json.loads((await communicator.receive_output(timeout=5))["text"])["type"] == "state"
    for path in (f"/ws/table/{table.pk}/", "/ws/notices/"):
        error, code = await _refused(await _open_raw(path, players[0]))
        assert code == handshakes.CLOSE_TOO_MANY and error["code"] == "too_many_sockets"
        assert "höchstens 3" in error["message"]
    # Someone else is not affected; and a closed socket frees its place.
    other = await _open_raw(f"/ws/table/{table.pk}/", players[1])
    assert json.loads((await other.receive_output(timeout=5))["text"])["type"] == "state"
    await held[0].disconnect()
    again = await _open_raw(f"/ws/table/{table.pk}/", players[0])
    assert json.loads((await again.receive_output(timeout=5))["text"])["type"] == "state"
    for communicator in [*held[1:], other, again]:
        await communicator.disconnect()


async def test_sockets_over_an_addresss_cap_are_told_why_and_closed(players, settings, monkeypatch):
    settings.GAMES_SOCKETS_PER_ADDRESS = 2
    table = await sync_to_async(playing_gin)(players)
    address = ["203.0.113.7", 50000]
    held = [await _open_raw(f"/ws/table/{table.pk}/", None, address), await _open_raw("/ws/notices/", players[2], address)]
    assert json.loads((await held[0].receive_output(timeout=5))["text"])["type"] == "state"
    opened = handshakes.open_table

    async def no_database(*args):
        raise AssertionError("a socket over the address cap must be refused before any database work")

    monkeypatch.setattr(handshakes, "open_table", no_database)
    error, code = await _refused(await _open_raw(f"/ws/table/{table.pk}/", players[3], address))
    assert code == handshakes.CLOSE_TOO_MANY and error["code"] == "too_many_sockets" and "Adresse" in error["message"]
    monkeypatch.setattr(handshakes, "open_table", opened)
    # The machine itself (a proxy without the headers) is counted for nobody; another address is free.
    for client in (["127.0.0.1", 1], ["198.51.100.1", 2]):
        ok = await _open_raw(f"/ws/table/{table.pk}/", None, client)
        assert json.loads((await ok.receive_output(timeout=5))["text"])["type"] == "state"
        await ok.disconnect()
    for communicator in held:
        await communicator.disconnect()


async def test_a_refused_socket_still_learns_why(players, spectator):
    table = await create_table(user=players[0], game="gin", preset="schnell", options={}, private=True)
    error_or_close = await (await _open_raw(f"/ws/table/{table.pk}/", spectator)).receive_output(timeout=5)
    assert error_or_close["type"] == "websocket.close" and error_or_close["code"] == 4403
    missing = await (await _open_raw("/ws/table/987654/", spectator)).receive_output(timeout=5)
    assert missing["type"] == "websocket.close" and missing["code"] == 4404


def _opened_as_one_batch(scopes):
    """The sockets of ``scopes`` opened as one handshake batch opens them, with no table (notice sockets): in the
    database thread, their users read together (``handshakes._open_batch``)."""
    results = handshakes._open_batch([handshakes._Request(scope, None, "", None) for scope in scopes])
    assert not [result for result in results if isinstance(result, Exception)]


def test_sessions_read_together_sign_in_whom_one_at_a_time_would(players, django_user_model):
    from channels.auth import UserLazyObject
    from django.contrib.sessions.backends.db import SessionStore

    anna, ben, cleo, dora = players
    cookies = {user.username: session_cookie(user) for user in players}
    cleo.set_password("a-new-one-for-cleo")  # her old session's hash no longer matches
    cleo.save()
    dora.is_active = False
    dora.save()
    keys = [cookies["anna"], cookies["ben"], cookies["cleo"], cookies["dora"], "no-such-session-key", None]

    def scopes():
        return [{"session": SessionStore(key), "user": UserLazyObject()} for key in keys]

    one_by_one = scopes()
    for scope in one_by_one:
        handshakes.resolve_user(scope)
    together = scopes()
    with CaptureQueriesContext(connection) as queries:
        _opened_as_one_batch(together)
    expected = [anna.pk, ben.pk, None, None, None, None]
    assert [s["user"].pk if s["user"].is_authenticated else None for s in one_by_one] == expected
    assert [s["user"].pk if s["user"].is_authenticated else None for s in together] == expected
    selects = [q for q in queries if q["sql"].lstrip().upper().startswith("SELECT")]
    assert len(selects) == 2  # the sessions, then the users: not two per socket


def test_cached_sessions_read_together_take_one_cache_trip_and_the_database_only_for_those_it_lacks(
        players, settings):
    """Django's ``cached_db`` sessions (the scaled stack's, with Redis): the handshakes of a batch look their
    sessions up in the cache in one ``get_many``, read those it lacks in one statement and put them in the
    cache, for no longer than the session lives; the next batch finds them there and reads only the users.
    Whom they sign in is whom ``resolve_user`` one at a time signs in."""
    from channels.auth import UserLazyObject
    from django.contrib.sessions.backends.cached_db import SessionStore
    from django.core.cache import caches

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    anna, ben, cleo, dora = players
    cookies = {user.username: session_cookie(user) for user in players}
    caches["default"].clear()  # what signing in cached: the load test's sessions are seeded in the database only
    cleo.set_password("a-new-one-for-cleo")
    cleo.save()
    dora.is_active = False
    dora.save()
    keys = [cookies["anna"], cookies["ben"], cookies["cleo"], cookies["dora"], "no-such-session-key", None]
    expected = [anna.pk, ben.pk, None, None, None, None]

    def scopes():
        return [{"session": SessionStore(key), "user": UserLazyObject()} for key in keys]

    def signed_in(scopes):
        return [s["user"].pk if s["user"].is_authenticated else None for s in scopes]

    one_by_one = scopes()
    for scope in one_by_one:
        handshakes.resolve_user(scope)
    assert signed_in(one_by_one) == expected
    caches["default"].clear()

    cache = caches["default"]
    calls: list[str] = []  # the calls the handshakes make (locmem's get_many calls its own get: not counted)
    depth = [0]

    def counted(name, method):
        def call(*args, **kwargs):
            if not depth[0]:
                calls.append(name)
            depth[0] += 1
            try:
                return method(*args, **kwargs)
            finally:
                depth[0] -= 1
        return call

    for name in ("get", "get_many", "set", "set_many"):
        setattr(cache, name, counted(name, getattr(cache, name)))
    cold = scopes()
    with CaptureQueriesContext(connection) as queries:
        _opened_as_one_batch(cold)
    assert signed_in(cold) == expected
    selects = [q for q in queries if q["sql"].lstrip().upper().startswith("SELECT")]
    assert len(selects) == 2 and "django_session" in selects[0]["sql"]  # the sessions the cache lacked, the users
    assert calls == ["get_many", "set_many"]
    kept = cache.get(SessionStore(cookies["anna"]).cache_key)
    assert kept is not None and int(kept["_auth_user_id"]) == anna.pk
    calls.clear()
    warm = scopes()
    with CaptureQueriesContext(connection) as queries:
        _opened_as_one_batch(warm)
    assert signed_in(warm) == expected
    selects = [q for q in queries if q["sql"].lstrip().upper().startswith("SELECT")]
    # Found in the cache: no session read (the unknown key is looked for again, as load() would).
    assert calls[0] == "get_many" and "get" not in calls
    assert not any("django_session" in q["sql"] and cookies["anna"] in str(q["sql"]) for q in selects)
    assert sum("django_session" in q["sql"] for q in selects) <= 1 and len(selects) <= 2


def test_sessions_already_read_on_the_loop_still_have_their_users_read_together(players):
    """Sockets whose sessions were read before their batch (``read_cached_session``, on the event loop): the
    batch reads no session again, and the users those sessions name in its one statement of users, not one
    statement per socket (channels' ``get_user``); whom they sign in is whom one at a time would."""
    from channels.auth import UserLazyObject
    from django.contrib.sessions.backends.db import SessionStore

    anna, ben, cleo, dora = players
    cookies = [session_cookie(user) for user in players]
    cleo.set_password("a-new-one-for-cleo")  # her session's hash no longer matches
    cleo.save()
    scopes = []
    for key in cookies:
        store = SessionStore(key)
        store._session_cache = store.load()  # as read_cached_session leaves it
        scopes.append({"session": store, "user": UserLazyObject()})
    with CaptureQueriesContext(connection) as queries:
        _opened_as_one_batch(scopes)
    assert [s["user"].pk if s["user"].is_authenticated else None for s in scopes] == [anna.pk, ben.pk, None, dora.pk]
    selects = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith("SELECT")]
    # No session read again (cleo's stale one is looked up once more, to be deleted: flush(), as one at a time).
    assert [sql for sql in selects if "django_session" in sql and cookies[2] not in sql] == []
    assert sum('FROM "auth_user"' in sql for sql in selects) == 1, selects


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="the site's Redis cache needs REDIS_URL (CI's second run)")
def test_a_socket_reads_its_cached_session_on_the_loop_and_its_batch_asks_the_cache_nothing(players, settings):
    """The scaled stack (``cached_db`` sessions on the site's Redis cache): a table socket reads its session on
    the event loop while it joins its first groups (``read_cached_session``: redis.asyncio, no thread), so its
    batch has no cache round trip to make; a session the cache lacks is left to the batch, which reads it from
    the database as before. The same user either way."""
    from channels.auth import UserLazyObject
    from django.contrib.sessions.backends.cached_db import SessionStore
    from django.core.cache import caches

    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    anna, ben = players[:2]
    cached_key, uncached_key = session_cookie(anna), session_cookie(ben)
    SessionStore(cached_key).load()  # as signing in leaves it: in the cache
    caches["default"].delete(SessionStore(uncached_key).cache_key)
    scopes = [{"session": SessionStore(key), "user": UserLazyObject()} for key in (cached_key, uncached_key)]

    async def on_the_loop():
        threads_before = threading.active_count()
        for scope in scopes:
            await handshakes.read_cached_session(scope)
        return threads_before, threading.active_count()

    before, after = asyncio.run(on_the_loop())
    assert after == before  # no thread started for it (Django's own aget runs get on one)
    assert int(scopes[0]["session"]._session_cache["_auth_user_id"]) == anna.pk
    assert not hasattr(scopes[1]["session"], "_session_cache")

    cache = caches["default"]
    calls: list[str] = []
    get_many = type(cache).get_many

    def counted(self, keys, *args, **kwargs):
        calls.append(",".join(keys))
        return get_many(self, keys, *args, **kwargs)

    with mock.patch.object(type(cache), "get_many", counted), CaptureQueriesContext(connection) as queries:
        _opened_as_one_batch(scopes)
    assert [scope["user"].pk for scope in scopes] == [anna.pk, ben.pk]
    assert calls == [SessionStore(uncached_key).cache_key]  # one look-up, for the session not read on the loop
    assert any("django_session" in q["sql"] for q in queries)  # the one the cache lacked, from the database
    assert sum('FROM "auth_user"' in q["sql"] for q in queries) == 1  # both users in one statement


def test_a_session_cache_without_an_asynchronous_read_of_its_own_is_left_to_the_batch(players, settings):
    """Where the cache's ``aget`` is Django's (its ``get`` run on a thread: the local-memory or database cache),
    the socket does not read its session on the loop; its batch reads it with the others."""
    from channels.auth import UserLazyObject
    from django.contrib.sessions.backends.cached_db import SessionStore

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    key = session_cookie(players[0])
    SessionStore(key).load()
    scope = {"session": SessionStore(key), "user": UserLazyObject()}
    asyncio.run(handshakes.read_cached_session(scope))
    assert not hasattr(scope["session"], "_session_cache")
    _opened_as_one_batch([scope])
    assert scope["user"].pk == players[0].pk


async def test_a_handshake_read_does_not_wait_behind_moves_in_flight(monkeypatch):
    """Moves in flight hold the threads the database calls of moves run on (``in_thread``: the loop's pool on
    PostgreSQL, the one database thread on SQLite), more of them than the pool has: a handshake's read
    (``reading``) still runs at once, on the readers' own threads."""
    import threading

    from games.web import dbthread

    monkeypatch.setattr(dbthread, "readers_apart", lambda: True)
    release = threading.Event()
    loop = asyncio.get_running_loop()

    def slow_move():
        release.wait(10)

    moves = [asyncio.ensure_future(dbthread.in_thread(slow_move)()) for _ in range(40)]
    moves += [loop.run_in_executor(None, slow_move) for _ in range(40)]
    try:
        await asyncio.sleep(0.1)
        assert not any(move.done() for move in moves)
        name = await asyncio.wait_for(dbthread.reading(lambda: threading.current_thread().name)(), timeout=3)
        assert name.startswith("handshake-reads")
        assert not any(move.done() for move in moves)  # still in flight: the read did not wait for them
    finally:
        release.set()
        await asyncio.gather(*moves)
