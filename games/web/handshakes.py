"""What the sockets of this process share: their handshakes, batched; presence per person, batched; the caps on
open sockets per person and per address; and the per-person group through which a sign-out closes them.

**Handshakes.** A socket is accepted before any database work (games.web.consumers), then asks here for what it
needs. Requests that arrive together (within ``GAMES_HANDSHAKE_BATCH_SECONDS``, by default the same turn of
the event loop, and all that arrive while a batch is in the database) are read together: the sockets'
sessions (each table socket's read from a Redis session cache on the loop beforehand, ``read_cached_session``;
the rest by the batch), then in one round trip the users they name with their tables and the tables' chat, then in another
the tables' seats, rounds and versions (``selectors.table_openings_many``), every socket's view built from its
table's snapshot. A burst of
sockets after a restart or at a tournament's start is what this is for.

**Presence** is per person: ``online`` when a person's first socket at a table opens, ``offline`` when their
last one closes; the changes of one table within ``GAMES_PRESENCE_BATCH_SECONDS`` go out as one frame. Counted
in this process (with several daphne processes a person with sockets on two of them is announced by each).

**Caps.** At most ``GAMES_SOCKETS_PER_PERSON`` table and notice sockets per signed-in person and
``GAMES_SOCKETS_PER_ADDRESS`` per client address (``scope["client"]``: behind nginx the address daphne's
``--proxy-headers`` takes from X-Forwarded-For), counted per process. Addresses in
``GAMES_SOCKET_CAP_EXEMPT`` (the machine itself: a proxy without the headers, the load test) count for
nobody. A socket over a cap is accepted, told why (``error`` code ``too_many_sockets``) and closed with
**4430**.

**Sign-out.** Every table and notice socket of a signed-in person joins ``person_group(user_id)``; signing out
(allauth's and Django's ``user_logged_out``) and deleting the account send ``person.signed_out`` there, and
each socket closes with **4401**.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, cast

from channels.auth import UserLazyObject, _get_user_session_key, get_user
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, get_user_model, load_backend
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.signals import user_logged_out
from django.contrib.sessions.backends.cached_db import SessionStore as CachedDbSessionStore
from django.contrib.sessions.backends.db import SessionStore as DbSessionStore
from django.contrib.sessions.models import Session
from django.core.cache.backends.base import BaseCache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.utils.functional import empty
from django.utils.html import escape

from games.delivery import events
from games.delivery.sync_calls import call_from_sync
from games.reads import selectors
from games.reads.prepared import PreparedIn, fetch_in_together
from games.web import handshake_process
from games.web.dbthread import reader_threads, reading

logger = logging.getLogger(__name__)

#: Close code of a socket over a cap, and of one whose person signed out.
CLOSE_TOO_MANY = 4430
CLOSE_SIGNED_OUT = 4401

#: The most handshakes one trip to the database takes (the rest wait for the next trip): a batch is answered
#: all at once, so a smaller one lets the first sockets of a burst have their state sooner. The helper process
#: takes larger ones (``handshake_process.BATCH_MAX``).
BATCH_MAX = 50


def resolve_user(scope) -> None:
    """Load the user of the socket's session, inside a database call of the consumer's own: ginsite.asgi
    leaves ``scope["user"]`` unresolved, so that a handshake costs no trip to the database thread of its
    own. A user resolved already (another middleware, a test) is left as it is."""
    user = scope.get("user")
    if isinstance(user, UserLazyObject) and user._wrapped is empty:
        user._wrapped = get_user.func(scope)
    elif user is None and "session" in scope:
        scope["user"] = get_user.func(scope)


def person_group(user_id: int) -> str:
    """Every table and notice socket of one signed-in person (in any process)."""
    return f"person.{user_id}"


# --- batched handshakes ---------------------------------------------------------------------------------


@dataclass
class _Request:
    scope: dict
    table_id: int | None  # None: only the user (a notice socket)
    invite: str
    future: asyncio.Future


@dataclass
class _Batcher:
    loop: asyncio.AbstractEventLoop
    pending: list[_Request] = field(default_factory=list)
    timer: asyncio.TimerHandle | None = None
    running: int = 0


_batchers: dict[int, _Batcher] = {}


def _batcher() -> _Batcher:
    loop = asyncio.get_running_loop()
    batcher = _batchers.get(id(loop))
    if batcher is None or batcher.loop is not loop:
        _batchers.clear()  # a loop of an earlier test has gone
        batcher = _batchers[id(loop)] = _Batcher(loop)
    return batcher


async def open_table(scope: dict, table_id: int, invite: str):
    """The user of ``scope`` and what ``selectors.table_opening`` says for them, read together with the
    handshakes of other sockets that arrive at the same time."""
    return await _submit(scope, table_id, invite)


async def open_user(scope: dict):
    """The user of ``scope`` (a notice socket's handshake), batched like a table socket's."""
    user, _ = await _submit(scope, None, "")
    return user


async def _submit(scope: dict, table_id: int | None, invite: str):
    batcher = _batcher()
    future = batcher.loop.create_future()
    batcher.pending.append(_Request(scope, table_id, invite, future))
    if batcher.timer is None and batcher.running < _slots():
        batcher.timer = batcher.loop.call_later(float(settings.GAMES_HANDSHAKE_BATCH_SECONDS), _flush, batcher)
    return await future


def _flush(batcher: _Batcher) -> None:
    batcher.timer = None
    if not batcher.pending or batcher.running >= _slots():
        return
    most = handshake_process.batch_max() or BATCH_MAX
    batch, batcher.pending = batcher.pending[:most], batcher.pending[most:]
    batcher.running += 1
    batcher.loop.create_task(_run(batcher, batch))


def _slots() -> int:
    """How many batches may be read at once: by the helper process where there is one (``handshake_process``),
    else on the reader threads."""
    return handshake_process.slots() or reader_threads()


async def _run(batcher: _Batcher, batch: list[_Request]) -> None:
    try:
        results = None
        if handshake_process.takes(batch):
            try:
                results = await handshake_process.open_batch(batch, read_in_helper)
            except Exception:  # noqa: BLE001 - read here instead
                logger.exception("the handshake helper process could not read %s handshakes; reading them here",
                                 len(batch))
        if results is None:
            # Reads (sessions, users, tables), beside the moves where the database allows (dbthread.reading);
            # the one write, a session whose password changed dropped, waits for SQLite's writer lock as any would.
            results = await reading(_open_batch)(batch)
    except Exception as error:  # noqa: BLE001 - every socket of the batch hears of it
        results = [error] * len(batch)
    finally:
        batcher.running -= 1
        # Whatever arrived while this batch was in the database goes next, at once.
        if batcher.pending and batcher.timer is None:
            _flush(batcher)
    for request, result in zip(batch, results, strict=True):
        if request.future.done():  # the socket went away meanwhile
            continue
        if isinstance(result, Exception):
            request.future.set_exception(result)
        else:
            request.future.set_result(result)


#: The session store of a scope (or None).
_store = handshake_process.session_store


async def read_cached_session(scope: dict) -> None:
    """The socket's session data from the session cache, read on the event loop where the cache can
    (a cache whose ``aget`` is its own, not Django's ``get`` on a thread: ``ginsite.cache.KeptClientRedisCache``,
    the scaled stack's ``cached_db`` on Redis), so that a table
    socket reads it while it joins its first groups, and its batch (``_sessions_read``, which takes a store
    whose data is loaded as it is) has no Redis round trip of its own to make. A miss, or a cache that fails,
    leaves the store as it was: the batch reads it then, from the cache or the database."""
    found = _store(scope)
    if type(found) is not CachedDbSessionStore or not found.session_key or hasattr(found, "_session_cache"):
        return
    store: Any = found  # its private cache is what load() fills (as _sessions_read sets it)
    cache = store._cache
    if type(cache).aget is BaseCache.aget:
        return  # Django's aget would run the read on a thread: the batch's get_many is cheaper
    try:
        data = await cache.aget(store.cache_key)
    except Exception:  # noqa: BLE001 - as load(): a cache that fails is a cache that misses
        logger.exception("reading a session from the cache failed")
        return
    if data is not None and not hasattr(store, "_session_cache"):
        store._session_cache = data


def _sessions_read(scopes: list[dict]) -> list:
    """Read the sessions of many sockets in a trip or two, not one or two per socket: each database-backed
    session of ``scopes`` gets its data as ``load()`` would have read it; returns the primary keys of the users
    they name (read by the caller, ``_USERS``, in a round trip with the batch's tables). Cached sessions (Django's ``cached_db``, the scaled stack's) are looked up in their cache in one
    ``get_many``; the rest, and those the cache lacks, in one statement, and the latter put in the cache (as
    ``load()`` would, for no longer than the shortest of their lives left)."""
    # The stores' private cache is what load() fills: set here as load() would (hence Any, not SessionStore).
    # Those already loaded (``read_cached_session``, on the loop) are not read again, but name their users too.
    known: list[Any] = [store for store in map(_store, scopes)
                        if type(store) in (DbSessionStore, CachedDbSessionStore) and store.session_key]
    stores = [store for store in known if not hasattr(store, "_session_cache")]
    cached: dict[str, Any] = {}
    for store in stores:
        if type(store) is CachedDbSessionStore:
            cached[store.cache_key] = store
    found: dict[str, Any] = {}
    cache = next(iter(cached.values()))._cache if cached else None
    if cache is not None:
        try:
            found = cache.get_many(list(cached))
        except Exception:  # noqa: BLE001 - as load(): a cache that fails is a cache that misses
            logger.exception("reading %s sessions from the cache failed", len(cached))
    for key, data in found.items():
        cached[key]._session_cache = data
    unread = [store for store in stores if not hasattr(store, "_session_cache")]
    cached_ids = {id(store) for store in cached.values()}
    rows = {}
    if unread:
        rows = {key: (data, expire) for key, data, expire in Session.objects.filter(
            session_key__in=[store.session_key for store in unread], expire_date__gt=timezone.now(),
        ).values_list("session_key", "session_data", "expire_date")}
    to_cache: dict[str, Any] = {}
    ages = []
    for store in unread:
        row = rows.get(store.session_key)
        if row is None:  # as SessionStore.load: no such (live) session
            store._session_key = None
            store._session_cache = {}
            continue
        store._session_cache = store.decode(row[0])
        if id(store) in cached_ids:
            to_cache[store.cache_key] = store._session_cache
            ages.append(store.get_expiry_age(expiry=row[1]))
    if to_cache and cache is not None:
        try:
            cache.set_many(to_cache, min(ages))
        except Exception:  # noqa: BLE001 - the sessions were read; the next handshake reads them again
            logger.exception("caching %s sessions failed", len(to_cache))
    ids = set()
    for store in known:
        with contextlib.suppress(KeyError, ValidationError, ValueError):
            ids.add(_get_user_session_key(store))
    # The user ids as the primary key takes them (a session keeps them as text), for the one statement
    # compiled once (``_USERS``), as ``in_bulk`` would have filtered them.
    keys = []
    for value in ids:
        with contextlib.suppress(ValidationError, TypeError, ValueError):
            key = get_user_model()._meta.pk.to_python(value)
            if not isinstance(key, int) or -(2**63) <= key < 2**63:
                keys.append(key)
    return keys


#: Every user of a handshake batch in one statement, compiled once per process (``prepared.PreparedIn``).
_USERS = PreparedIn(lambda ids: get_user_model()._default_manager.filter(pk__in=ids))


def warm_reads() -> None:
    """In a handshake reader's thread, before the first socket (``games.web.warmup``): its database connection
    opened, and a batch's two round trips run once for no socket and no table, so that the first batch of a
    burst pays neither the connection (through PgBouncer: its authentication) nor the first statements; and
    where the sessions are cached, the cache's connection opened with one lookup."""
    from django.core.cache import caches
    from django.db import connection

    connection.ensure_connection()
    fetch_in_together((_USERS, []), *selectors.opening_reads([]))
    fetch_in_together(*selectors.snapshot_reads([], []))
    if settings.SESSION_ENGINE in ("django.contrib.sessions.backends.cached_db",
                                   "django.contrib.sessions.backends.cache"):
        caches[settings.SESSION_CACHE_ALIAS].get("games.web.warmup")


def _user_of(scope: dict, users: dict):
    """channels.auth.get_user for ``scope``, its user taken from ``users`` (read in bulk) where the session
    names a backend whose ``get_user`` is ModelBackend's (a read by pk, then ``user_can_authenticate``)."""
    session = scope["session"]
    try:
        user_id = _get_user_session_key(session)
        backend_path = session[BACKEND_SESSION_KEY]
    except KeyError:
        return AnonymousUser()
    if backend_path not in settings.AUTHENTICATION_BACKENDS:
        return AnonymousUser()
    backend = load_backend(backend_path)
    if not isinstance(backend, ModelBackend) or type(backend).get_user is not ModelBackend.get_user:
        return get_user.func(scope)
    if user_id not in users:  # a session not read in bulk (another engine), or no such user: as channels does
        return get_user.func(scope)
    user = users[user_id]
    if not backend.user_can_authenticate(user):
        return AnonymousUser()
    session_hash = session.get(HASH_SESSION_KEY)
    if not (session_hash and constant_time_compare(session_hash, user.get_session_auth_hash())):
        session.flush()
        return AnonymousUser()
    return user


def _unresolved(scopes: list[dict]) -> list[dict]:
    return [scope for scope in scopes if "session" in scope and (
        scope.get("user") is None or (isinstance(scope["user"], UserLazyObject) and scope["user"]._wrapped is empty))]


def _resolve_with(waiting: list[dict], users: dict) -> None:
    for scope in waiting:
        user = _user_of(scope, users)
        if isinstance(scope.get("user"), UserLazyObject):
            scope["user"]._wrapped = user
        else:
            scope["user"] = user


def _open_batch(batch: list[_Request]) -> list:
    """In the database thread (or the helper process): each socket's user, then each table's opening for all its
    sockets: ``(user, (state, chat))`` with the state encoded (``events.StateText``), or a refusal (None: no such
    table, False: a private table without its invitation, a text: staff only), or the exception."""
    results: list = [None] * len(batch)
    by_table: dict[int, list[int]] = {}
    # The sessions first (a Redis round trip where they are cached), then in one round trip to the database
    # the users they name with the batch's tables and their chat (``prepared.fetch_in_together``).
    read: tuple[list, list] | None = None
    try:
        waiting = _unresolved([request.scope for request in batch])
        keys = _sessions_read(waiting) if waiting else []
        table_ids = list(dict.fromkeys(r.table_id for r in batch if r.table_id is not None))
        reads = ([(_USERS, keys)] if keys else []) + (selectors.opening_reads(table_ids) if table_ids else [])
        rows = fetch_in_together(*reads) if reads else []
        users = rows.pop(0) if keys else []
        if table_ids:
            read = (rows[0], rows[1])
        if waiting:
            _resolve_with(waiting, {user.pk: user for user in users})
    except Exception:  # noqa: BLE001 - one at a time below, so that only a broken session fails
        logger.exception("reading the sessions of %s handshakes together failed", len(batch))
    for i, request in enumerate(batch):
        try:
            resolve_user(request.scope)
        except Exception as error:  # noqa: BLE001 - this socket fails, the others go on
            results[i] = error
            continue
        if request.table_id is None:
            results[i] = (request.scope.get("user"), None)
        else:
            by_table.setdefault(request.table_id, []).append(i)
    requests = {table_id: [(batch[i].scope.get("user"), batch[i].invite) for i in indices]
                for table_id, indices in by_table.items()}
    try:
        # Every table of the batch in one statement per kind of row (tables, seats, rounds, versions, chat).
        openings_by_table = selectors.table_openings_many(requests, read=read)
    except Exception:  # noqa: BLE001 - table by table below, so that only a broken table fails
        logger.exception("reading %s tables' openings together failed", len(requests))
        openings_by_table = {}
    for table_id, indices in by_table.items():
        users = [viewer for viewer, _ in requests[table_id]]
        openings: Sequence[object]
        try:
            openings = openings_by_table.get(table_id) or selectors.table_openings(
                table_id=table_id, viewers=requests[table_id])
        except Exception as error:  # noqa: BLE001 - this table's sockets fail, the others go on
            logger.exception("handshakes of table %s failed", table_id)
            openings = [error] * len(indices)
        for i, user, opening in zip(indices, users, openings, strict=True):
            if isinstance(opening, tuple):  # the state encoded here, off the event loop
                state, chat = opening
                opening = (events.StateText.of(state), chat)
            results[i] = opening if isinstance(opening, Exception) else (user, opening)
    return results


# --- in the handshakes' helper process (games.web.handshake_process) ------------------------------------


def warm_helper() -> tuple[int, float]:
    """In the helper: its database connection and the batch's statements ready (``warm_reads``); its process id
    and how long that took (ms)."""
    started = time.perf_counter()
    warm_reads()
    return os.getpid(), (time.perf_counter() - started) * 1000


def read_in_helper(payload: list[tuple[str | None, int | None, str]]) -> list[tuple[str | None, dict | None, Any]]:
    """In the helper: ``_open_batch`` for sockets given as (session key, table id or None, invite); for each,
    the session's key and data as read (the key None if there is no such session or it was dropped; the data
    None if it was never read) and what ``_open_batch`` gave (the user and the opening, or the exception)."""
    engine = import_module(settings.SESSION_ENGINE).SessionStore
    no_future = cast(asyncio.Future, None)  # nobody awaits them here: the results go back whole
    batch = [_Request({"session": engine(key), "user": UserLazyObject()}, table_id, invite, no_future)
             for key, table_id, invite in payload]
    out = []
    for request, result in zip(batch, _open_batch(batch), strict=True):
        store = request.scope["session"]
        out.append((store.session_key, getattr(store, "_session_cache", None), result))
    return out


# --- presence per person, batched ------------------------------------------------------------------------

_present: Counter[tuple[int, int]] = Counter()
#: Per table: the changes not yet sent, user id -> (name, online), and the layer they go through; one timer
#: per process sends every table's changes of the window together (``_presence_send``).
_presence_pending: dict[int, dict[int, tuple[str, bool]]] = {}
_presence_layers: dict[int, Any] = {}
_presence_timer: tuple[asyncio.AbstractEventLoop, asyncio.TimerHandle] | None = None


def presence_opened(layer, table_id: int, user) -> None:
    key = (table_id, user.pk)
    _present[key] += 1
    if _present[key] == 1:
        _presence_change(layer, table_id, user, online=True)


def presence_closed(layer, table_id: int, user) -> None:
    key = (table_id, user.pk)
    if _present[key] <= 0:
        return
    _present[key] -= 1
    if _present[key] == 0:
        del _present[key]
        _presence_change(layer, table_id, user, online=False)


def _presence_change(layer, table_id: int, user, *, online: bool) -> None:
    global _presence_timer
    pending = _presence_pending.setdefault(table_id, {})
    if user.pk in pending:
        # Came and went (or went and came back) within the window: nothing changed for the others.
        del pending[user.pk]
    else:
        pending[user.pk] = (escape(user.get_username()), online)
    _presence_layers[table_id] = layer
    loop = asyncio.get_running_loop()
    if _presence_timer is None or _presence_timer[0] is not loop:  # (a loop of a test before, gone)
        _presence_timer = (loop, loop.call_later(float(settings.GAMES_PRESENCE_BATCH_SECONDS),
                                                 lambda: loop.create_task(_presence_send())))


async def _presence_send() -> None:
    """Every table's presence changes of the window, a frame per table that has some, sent together: a
    round trip or two per Redis shard for all of them (``group_send_many``), not per table. In a tournament's
    start every table's two players arrive within the same second."""
    global _presence_timer
    _presence_timer = None
    pending, layers = dict(_presence_pending), dict(_presence_layers)
    _presence_pending.clear()
    _presence_layers.clear()
    by_layer: dict[int, tuple[Any, list]] = {}
    for table_id, changes in sorted(pending.items()):
        if not changes:
            continue
        frame = {"type": "presence", "changes": [
            {"user_id": user_id, "user": name, "online": online} for user_id, (name, online) in sorted(changes.items())]}
        layer = layers[table_id]
        by_layer.setdefault(id(layer), (layer, []))[1].append(
            (events.everyone_group(table_id), {"type": "table.frame", "audience": "all", "frame": frame}))
    for layer, messages in by_layer.values():
        await events.send_now(layer, events.wire(messages))


# --- caps on open sockets -------------------------------------------------------------------------------

_per_person: Counter[int] = Counter()
_per_address: Counter[str] = Counter()


def address_of(scope: dict) -> str | None:
    client = scope.get("client")
    host = client[0] if client else None
    if not host or host in settings.GAMES_SOCKET_CAP_EXEMPT:
        return None
    return str(host)


def take_address(consumer) -> bool:
    """Count ``consumer`` for its address; False (and not counted) if the address is at its cap."""
    address = address_of(consumer.scope)
    if address is None:
        return True
    if _per_address[address] >= settings.GAMES_SOCKETS_PER_ADDRESS:
        return False
    _per_address[address] += 1
    consumer.capped_address = address
    return True


def take_person(consumer, user_id: int) -> bool:
    """Count ``consumer`` for its person; False (and not counted) if the person is at their cap."""
    if _per_person[user_id] >= settings.GAMES_SOCKETS_PER_PERSON:
        return False
    _per_person[user_id] += 1
    consumer.capped_person = user_id
    return True


def release(consumer) -> None:
    """Uncount ``consumer`` (its disconnect; safe to call twice)."""
    address = getattr(consumer, "capped_address", None)
    if address is not None:
        consumer.capped_address = None
        _per_address[address] -= 1
        if _per_address[address] <= 0:
            del _per_address[address]
    person = getattr(consumer, "capped_person", None)
    if person is not None:
        consumer.capped_person = None
        _per_person[person] -= 1
        if _per_person[person] <= 0:
            del _per_person[person]


def too_many_message(kind: str) -> str:
    if kind == "person":
        return (f"Zu viele offene Verbindungen für dieses Konto (höchstens {settings.GAMES_SOCKETS_PER_PERSON}); "
                "bitte andere Tabs schließen.")
    return (f"Zu viele offene Verbindungen von dieser Adresse (höchstens {settings.GAMES_SOCKETS_PER_ADDRESS}); "
            "bitte andere Tabs schließen.")


def reset() -> None:
    """Forget every count (tests)."""
    global _presence_timer
    _present.clear()
    _presence_pending.clear()
    _presence_layers.clear()
    if _presence_timer is not None:
        _presence_timer[1].cancel()
        _presence_timer = None
    _per_person.clear()
    _per_address.clear()
    _batchers.clear()


# --- sign-out closes a person's sockets --------------------------------------------------------------------


def close_sockets_of(user_id: int) -> None:
    """Tell every socket of ``user_id`` (in every process) to close."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        call_from_sync(layer.group_send, person_group(user_id), {"type": "person.signed_out"})
    except Exception:  # noqa: BLE001 - the sign-out itself stands; the sockets act as nobody once the session is gone
        logger.exception("could not close the sockets of user %s", user_id)


@receiver(user_logged_out, dispatch_uid="games.web.handshakes.signed_out")
def _signed_out(sender, request, user, **kwargs) -> None:
    if user is not None and getattr(user, "pk", None) is not None:
        close_sockets_of(user.pk)


@receiver(post_delete, sender=get_user_model(), dispatch_uid="games.web.handshakes.deleted")
def _deleted(sender, instance, **kwargs) -> None:
    user_id = instance.pk
    transaction.on_commit(lambda: close_sockets_of(user_id))
