"""The handshakes' reads in a helper process (games/web/handshake_process.py): a batch goes out as session keys,
table ids and invites and comes back as users, openings and the sessions' data, which the sockets' own session
stores take; each socket gets exactly its own view; a batch the helper cannot take, or one it fails, is read
on a thread instead. The helper here is a thread that pickles what crosses, as the process boundary does
(an in-memory test database exists in this process only); the real process is tested through ``make run``
(tests/live/test_handshake_helper_make_run.py)."""

from __future__ import annotations

import asyncio
import json
import pickle
import time
from importlib import import_module

import pytest
from asgiref.sync import sync_to_async
from channels.auth import UserLazyObject
from django.conf import settings as django_settings
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session

from games.delivery import events, framecache
from games.web import handshake_process, handshakes
from tests.games.helpers import Socket, assert_own_views, playing_gin, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


class PicklingHelper:
    """Stands in for the helper process: runs what it is given off the event loop, with its arguments and its
    answer pickled and unpickled on the way, as between processes. Counts the sockets it read. (On the thread
    the tests' other database calls use: their in-memory database locks whole tables against a second one.)"""

    def __init__(self, *, fail: bool = False):
        self.fail = fail
        self.sockets = 0

    def submit(self, function, payload) -> asyncio.Future:
        def across():
            if self.fail:
                raise RuntimeError("the helper fell over")
            answer = function(pickle.loads(pickle.dumps(payload)))
            self.sockets += len(payload)
            return pickle.loads(pickle.dumps(answer))

        return asyncio.ensure_future(sync_to_async(across)())

    def shutdown(self, wait=True, cancel_futures=False):
        pass


@pytest.fixture
def helper(monkeypatch):
    handshakes.reset()
    framecache.clear()
    fake = PicklingHelper()
    monkeypatch.setattr(handshake_process, "_pool", fake)
    monkeypatch.setattr(handshake_process, "_ready", True)
    yield fake
    fake.shutdown()
    handshakes.reset()
    framecache.clear()


async def test_sockets_read_by_the_helper_each_get_their_own_view(helper, players, spectator):
    table = await sync_to_async(playing_gin)(players)
    sockets = await asyncio.gather(
        Socket.open(table.pk, players[0]), Socket.open(table.pk, spectator),
        Socket.open(table.pk, players[1]), Socket.open(table.pk, None))
    states = [await s.until(lambda f: f["type"] == "state") for s in sockets]
    assert helper.sockets == 4  # all four read there, none on a thread here
    assert_own_views([states[0], states[2]], [states[1], states[3]])
    # The seated sockets act as their players: a chat line goes out under anna's name.
    await sockets[0].send({"type": "chat", "text": "Servus"})
    line = await sockets[2].until(lambda f: f["type"] == "chat")
    assert line["user"] == "anna"
    for socket in sockets:
        await socket.close()


def test_the_helpers_read_gives_each_session_and_user_as_a_read_here_would(players, spectator):
    """``handshakes.read_in_helper`` (what the helper runs): a signed-in seat, a spectator, a session whose password changed
    (dropped, as Django drops it), a key with no session, no cookie; and a table that does not exist."""
    table = playing_gin(players)
    anna, ben, cleo, _ = players
    keys = {user.username: session_cookie(user) for user in (anna, ben, cleo, spectator)}
    cleo.set_password("a-new-one-for-cleo")
    cleo.save()
    payload = [(keys["anna"], table.pk, ""), (keys["sven"], table.pk, ""), (keys["cleo"], table.pk, ""),
               ("no-such-session-key", table.pk, ""), (None, None, ""), (keys["ben"], 999_999, "")]
    read = pickle.loads(pickle.dumps(handshakes.read_in_helper(payload)))
    (anna_key, anna_data, (anna_user, (anna_state, _))), sven, cleo_read, unknown, nobody, gone = read
    assert anna_key == keys["anna"] and anna_data[SESSION_KEY] == str(anna.pk)
    # The state comes encoded (its text, version, seat and digest), as the socket sends it.
    frame = json.loads(anna_state.text)
    assert anna_user.pk == anna.pk and anna_state.you == frame["table"]["you"] == 0 and frame["view"]["hand"]
    assert anna_state.version == frame["version"] and anna_state.digest == events.text_digest(anna_state.text)
    sven_frame = json.loads(sven[2][1][0].text)
    assert sven[2][0].pk == spectator.pk and sven[2][1][0].you is None and sven_frame["table"]["you"] is None
    assert sven_frame["view"].get("hand") is None
    # cleo's session is dropped: no key, no data, nobody signed in, and the row is gone.
    assert cleo_read[0] is None and cleo_read[1] == {} and not cleo_read[2][0].is_authenticated
    assert not Session.objects.filter(session_key=keys["cleo"]).exists()
    assert unknown[0] is None and not unknown[2][0].is_authenticated
    assert nobody[0] is None and not nobody[2][0].is_authenticated and nobody[2][1] is None
    assert gone[2][0].pk == ben.pk and gone[2][1] is None  # no such table: the socket is refused (4404)


async def test_the_sessions_read_there_are_the_sockets_own_here(helper, players):
    """The socket's session store takes the key and data the helper read: a dropped session is dropped here too,
    and nothing reads it again."""
    anna, _, cleo, _ = players
    table = await sync_to_async(playing_gin)(players)
    anna_key, cleo_key = await sync_to_async(session_cookie)(anna), await sync_to_async(session_cookie)(cleo)
    cleo.set_password("a-new-one-for-cleo")
    await sync_to_async(cleo.save)()
    loop = asyncio.get_running_loop()
    engine = import_module(django_settings.SESSION_ENGINE).SessionStore  # the database's, or cached_db with Redis
    batch = [handshakes._Request({"session": engine(key), "user": UserLazyObject()}, table.pk, "",
                                 loop.create_future()) for key in (anna_key, cleo_key)]
    assert handshake_process.takes(batch)
    results = await handshake_process.open_batch(batch, handshakes.read_in_helper)
    anna_scope, cleo_scope = (request.scope for request in batch)
    assert anna_scope["session"]._session_cache[SESSION_KEY] == str(anna.pk)
    assert anna_scope["user"].pk == anna.pk and results[0][0].pk == anna.pk
    assert cleo_scope["session"].session_key is None and cleo_scope["session"]._session_cache == {}
    assert not cleo_scope["user"].is_authenticated
    assert results[0][1][0].you == 0 and results[1][1][0].you is None


async def test_a_batch_the_helper_cannot_take_is_read_here(helper, players):
    """A socket whose user is resolved already (another middleware, a test) or that has no session store: the
    helper does not take its batch (``takes``), and ``_run`` reads such a batch on the thread; a plain socket's
    batch beside them is the helper's. (That the thread's read gives the helper's answer is the thread path's own
    tests, tests/games/test_handshakes.py.)"""
    table = await sync_to_async(playing_gin)(players)
    loop = asyncio.get_running_loop()
    resolved = handshakes._Request({"session": SessionStore(None), "user": players[0]}, table.pk, "",
                                   loop.create_future())
    assert not handshake_process.takes([resolved])
    assert not handshake_process.takes([handshakes._Request({"user": UserLazyObject()}, table.pk, "",
                                                            loop.create_future())])
    socket = await Socket.open(table.pk, players[0])
    state = await socket.until(lambda f: f["type"] == "state")
    assert state["table"]["you"] == 0 and helper.sockets == 1
    await socket.close()


async def test_a_batch_the_helper_fails_is_read_here(helper, players, caplog):
    helper.fail = True
    table = await sync_to_async(playing_gin)(players)
    sockets = await asyncio.gather(Socket.open(table.pk, players[0]), Socket.open(table.pk, players[1]))
    states = [await s.until(lambda f: f["type"] == "state") for s in sockets]
    assert [s["table"]["you"] for s in states] == [0, 1] and helper.sockets == 0
    assert "could not read" in caplog.text
    for socket in sockets:
        await socket.close()


def test_a_helper_only_where_the_site_is_one_process_on_a_database_file(settings, monkeypatch):
    """``auto``: an SQLite file (readers apart from the writer) and the in-memory layer, i.e. ``make run``; not on
    PostgreSQL with Redis (several daphne processes), not on an in-memory database. ``1`` wherever the database
    can be read apart; ``0`` never."""
    import channels.layers

    from games.web import dbthread

    in_memory_layer = channels.layers.InMemoryChannelLayer()
    redis_layer = object()  # any layer that is not the in-memory one
    cases = [  # (setting, database readable apart, vendor, layer) -> wanted
        (("auto", True, "sqlite", in_memory_layer), True),
        (("auto", True, "sqlite", redis_layer), False),
        (("auto", True, "postgresql", redis_layer), False),
        (("auto", False, "sqlite", in_memory_layer), False),
        (("1", True, "postgresql", redis_layer), True),
        (("1", False, "sqlite", in_memory_layer), False),
        (("0", True, "sqlite", in_memory_layer), False),
    ]
    from django.db import connections

    database = connections["default"]  # the wrapper itself (``connection`` is a proxy of it)
    for (value, apart, vendor, layer), wanted in cases:
        settings.GAMES_HANDSHAKE_PROCESS = value
        monkeypatch.setattr(dbthread, "readers_apart", lambda apart=apart: apart)
        monkeypatch.setattr(database, "vendor", vendor, raising=False)
        monkeypatch.setattr(channels.layers, "get_channel_layer", lambda layer=layer: layer)
        assert handshake_process.wanted() is wanted, (value, apart, vendor)
    settings.GAMES_HANDSHAKE_PROCESS = "0"
    assert handshake_process.start(handshakes.warm_helper) is None


def test_a_helper_that_cannot_set_itself_up_is_let_go_and_the_handshakes_are_read_here(monkeypatch, tmp_path, caplog):
    """A helper set up wrong (here: pointed at an empty database file) fails its warm-up: it is shut down, not
    used, and not started again (another would be set up the same); ``slots`` and ``takes`` say no helper."""
    empty_database = {"ENGINE": "django.db.backends.sqlite3", "NAME": str(tmp_path / "empty.sqlite3")}
    inherited = {**handshake_process._inherited(),
                 "DATABASES": {**django_settings.DATABASES, "default": empty_database}}
    monkeypatch.setattr(handshake_process, "wanted", lambda: True)
    monkeypatch.setattr(handshake_process, "_inherited", lambda: inherited)
    try:
        warming = handshake_process.start(handshakes.warm_helper)
        assert warming is not None
        with pytest.raises(Exception, match="no such table"):
            warming.result(timeout=60)
        deadline = time.monotonic() + 10
        while handshake_process._pool is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert handshake_process._pool is None and not handshake_process._ready
        assert handshake_process.slots() == 0 and handshake_process.batch_max() is None
        assert not handshake_process.takes([handshakes._Request({"session": SessionStore(None),
                                                                   "user": UserLazyObject()}, 1, "", None)])
        assert "did not start" in caplog.text
    finally:
        handshake_process.stop()
