"""After-commit fan-out: every committed change to a table reaches each seated player as their own view,
spectators as the public one, and the lobby as a table summary, through the channel layer.

Frames are built inside the transaction (from the state just written) and sent only after it commits, so a
client never hears of a change that was rolled back.

What travels through the channel layer is each frame's JSON text, serialised once however many sockets get
it (:func:`wire`), with the two facts a socket routes it by: the version, and which users are seated.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass

from channels.layers import BaseChannelLayer, get_channel_layer
from django.db import transaction

from games.delivery.sync_calls import call_from_sync
from games.reads import presenters
from games.web.dbthread import in_thread, parallel

logger = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"


def public_group(table_id: int) -> str:
    """Spectators (and anonymous visitors) of a table."""
    return f"table.{table_id}.public"


def everyone_group(table_id: int) -> str:
    """Every socket of a table, for chat and presence."""
    return f"table.{table_id}.all"


def user_group(table_id: int, user_id: int) -> str:
    """Every socket of one user at one table. Keyed by user, not seat, so that a socket whose user leaves a
    seat can never receive the next occupant's cards."""
    return f"table.{table_id}.user.{user_id}"


def frame_text(frame: dict) -> str:
    """A frame as the socket sends it (compact JSON, UTF-8 as is)."""
    return json.dumps(frame, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class StateText:
    """A ``state`` frame encoded where it was read, not on the event loop (a handshake's state: on the reader
    thread, or in the handshakes' helper process, whence a text crosses more cheaply than the frame itself): its
    text, version, the seat it is for (None: the public view) and digest (``text_digest``: the state a delta
    frame may follow)."""

    text: str
    version: int
    you: int | None
    digest: str

    @classmethod
    def of(cls, frame: dict) -> StateText:
        text = frame_text(frame)
        return cls(text, frame["version"], frame["table"]["you"], text_digest(text))


def wire(messages: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """The messages as they go through the channel layer: ``frame`` replaced by its ``text`` (one
    ``json.dumps`` per frame, shared by every group and socket that gets it), plus for a ``state`` frame its
    ``version``, the ``seated`` user ids (a seated socket ignores the public copy of its table), its
    ``digest``, and where this process sent the same group the version before: the ``delta`` text (what
    changed since, :func:`state_parts`) with the ``base`` digest it follows. A socket whose last state is
    that base sends the delta, any other the whole ``text``."""
    texts: dict[int, tuple[str, dict]] = {}
    # The texts of the parts the audiences' frames share (the same history entries, the same options and
    # scores), by the objects' identity: made for one audience, taken as they are by the others. The frames
    # are alive for the whole call, so an id names one object here.
    shared: dict[int, str] = {}
    out = []
    for group, message in messages:
        frame = message.get("frame")
        if frame is None:
            out.append((group, message))
            continue
        is_state = frame.get("type") == "state"
        if id(frame) not in texts:
            facts: dict = {}
            if is_state:
                parts = StateParts(frame, like=_last_sent.newest(group), shared=shared)
                text = parts.text()
                facts["table"] = frame["table"]["id"]
                facts["version"] = frame["version"]
                facts["seated"] = tuple(s["user_id"] for s in frame["table"]["seats"] if s["user_id"] is not None)
                facts["digest"] = parts.digest
                facts["parts"] = parts
            else:
                text = frame_text(frame)
            texts[id(frame)] = (text, facts)
        text, facts = texts[id(frame)]
        sent = {key: value for key, value in message.items() if key != "frame"}
        sent["text"] = text
        if is_state:
            parts = facts["parts"]
            sent.update({key: value for key, value in facts.items() if key not in ("parts", "wired")})
            base = _last_sent.follow(group, parts)
            if base is not None:
                sent["delta"], sent["base"] = parts.delta_text(base), base.digest
            # The parts themselves travel too, so that a process receiving the state keeps them as the group's
            # newest (for its own next change's delta) and makes its sockets' deltas without parsing the text
            # (``_LastSent.received``).
            if "wired" not in facts:
                facts["wired"] = parts.wired()
            sent["parts"] = facts["wired"]
        else:
            sent.update(facts)
        out.append((group, sent))
    for _text, facts in texts.values():
        if "parts" in facts:
            facts["parts"].release()
    return out


# --- what changed: the state frame in parts ---------------------------------------------------------------
# A table's frame is ~6 KB, most of it the round's history, and a move changes a few small parts of it. So
# the frame is serialised part by part (each key of ``table`` and ``view``, and the history entry by entry
# as one text), which gives the very same text as ``frame_text`` and, against the parts this process sent
# the same group one version before, the ``delta`` frame: the parts that changed, the history's new entries.


#: One encoder for every part (``json.dumps`` with arguments builds a new one per call: most of the cost
#: for the many small parts of a frame). The same text as ``frame_text``.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def _dumps(value: object) -> str:
    return _ENCODER.encode(value)


def _object_text(items: Iterable[tuple[str, str]]) -> str:
    return "{" + ",".join(f"{_dumps(key)}:{text}" for key, text in items) + "}"


def _same_item(old: str, new: str) -> bool:
    """Whether two entries' texts say the same: the same text, or the same object with its keys in another
    order (an entry read back from PostgreSQL's jsonb comes with its keys sorted its way)."""
    return old == new or json.loads(old) == json.loads(new)


class StateParts:
    """One ``state`` frame serialised part by part: ``text()`` is ``frame_text(frame)``, byte for byte. A
    view's list of objects (the history, Rommé's melds on the table) is kept entry by entry."""

    __slots__ = ("version", "table", "view", "lists", "digest", "_text", "previous", "delta_from")

    def __init__(self, frame: dict, like: StateParts | None = None, shared: dict[int, str] | None = None):
        """``like``: the parts of a state of the same audience sent before (the version before, mostly). An
        entry of a list it holds at the same place, equal and with its keys in the same order, takes its
        text from there instead of being serialised again: a round's history grows by a move or two per
        version, and serialising it entry by entry for every audience was most of a move's frame cost.
        ``shared``: texts by ``id`` of the list entries and the dict and list values already serialised for
        another audience's frame of the same change (``wire``), which holds the very same objects; its
        caller keeps those objects alive while it is used."""
        self.version: int = frame["version"]
        self.table: dict[str, str] = {key: _part_text(value, shared) for key, value in frame["table"].items()}
        view = frame["view"]
        self.view: dict[str, str] | None = None
        # Each list of objects of the view: its key, its entries' texts and the entries themselves where the
        # garbage collector does not track them (``_flat``), for the next version's ``like``. Kept until the
        # group's next version, so in tuples, not in the frame's lists and dicts: those would stay tracked, be
        # promoted and start full collections (ginsite/collector.py).
        lists: list[tuple[str, tuple[str, ...], tuple[dict | None, ...]]] = []
        if isinstance(view, dict):
            self.view = {}
            for key, value in view.items():
                if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
                    items, flat = _entry_texts(value, like, key, shared)
                    lists.append((key, tuple(items), flat))
                    self.view[key] = "[" + ",".join(items) + "]"  # what json.dumps makes of the list
                else:
                    self.view[key] = _part_text(value, shared)
        self.lists: tuple[tuple[str, tuple[str, ...], tuple[dict | None, ...]], ...] = tuple(lists)
        self._text: str | None = None
        self.digest = text_digest(self.text())
        self.previous: StateParts | None = None  # received: the group's state before, for delta_from
        self.delta_from: tuple[str, str] | None = None  # received: (base digest, delta text), made once

    def wired(self) -> dict:
        """The parts as they travel through the channel layer with the state's text (msgpack: lists, dicts,
        strings), for ``from_wired`` in the process that receives them: the texts only, each once (a list
        of objects as its entries' texts, not also as its whole text; not the entries themselves)."""
        listed = {key for key, _texts, _entries in self.lists}
        view = None if self.view is None else {key: ("" if key in listed else text) for key, text in self.view.items()}
        return {"version": self.version, "digest": self.digest, "table": self.table, "view": view,
                "lists": [[key, list(texts)] for key, texts, _entries in self.lists]}

    @classmethod
    def from_wired(cls, wired: object) -> StateParts | None:
        """The parts ``wired`` made, without parsing the state's text again; None if ``wired`` is not that."""
        try:
            assert isinstance(wired, dict)
            version, digest, table, view = wired["version"], wired["digest"], wired["table"], wired["view"]
            # The entries are not sent: a later state built here from these parts (``like``) writes its
            # entries' texts anew (a few microseconds each) instead of taking them from here.
            lists = tuple((key, tuple(texts), (None,) * len(texts)) for key, texts in wired["lists"])
            if not (isinstance(version, int) and isinstance(digest, str) and isinstance(table, dict)
                    and (view is None or isinstance(view, dict))):
                return None
            if view is not None:
                view = dict(view)
                for key, texts, _entries in lists:
                    view[key] = "[" + ",".join(texts) + "]"  # what json.dumps makes of the list
        except (AssertionError, KeyError, TypeError, ValueError):
            return None
        parts = cls.__new__(cls)
        parts.version, parts.digest, parts.table, parts.view, parts.lists = version, digest, table, view, lists
        parts._text, parts.previous, parts.delta_from = None, None, None
        return parts

    @property
    def items(self) -> dict[str, tuple[str, ...]]:
        """The texts of the entries of each list of objects of the view, by key (made when asked)."""
        return {key: texts for key, texts, _entries in self.lists}

    def texts_of(self, key: str) -> tuple[str, ...] | None:
        """The texts of the entries of the view's list ``key``, or None if it is no list of objects."""
        for name, texts, _entries in self.lists:
            if name == key:
                return texts
        return None

    def entries_of(self, key: str) -> tuple[dict | None, ...] | None:
        """The entries of the view's list ``key`` as ``_flat`` keeps them (None for one holding containers), or
        None if it is no list of objects."""
        for name, _texts, entries in self.lists:
            if name == key:
                return entries
        return None

    def text(self) -> str:
        if self._text is None:
            view = "null" if self.view is None else _object_text(self.view.items())
            self._text = (
                f'{{"type":"state","version":{self.version},"table":{_object_text(self.table.items())},"view":{view}}}'
            )
        return self._text

    def release(self) -> None:
        """Let go of the whole text (it is on its way); the parts stay, for the next version's delta."""
        self._text = None

    def delta_text(self, base: StateParts) -> str:
        """The ``delta`` frame from ``base`` (the same audience's state one version before) to this one
        (docs/protocol.md): the keys of ``table`` and ``view`` whose value changed (whole), the keys gone,
        the history from the first entry ``base`` does not hold, and of other lists of objects (melds) the
        entries that changed where that is shorter."""
        assert self.view is not None and base.view is not None
        table = [(key, text) for key, text in self.table.items() if base.table.get(key) != text]
        view, lists = [], []
        for key, text in self.view.items():
            if key == "history" or base.view.get(key) == text:
                continue
            new, old = self.texts_of(key), base.texts_of(key)
            if new is not None and old is not None:
                changed = [(str(index), item) for index, item in enumerate(new)
                           if index >= len(old) or not _same_item(old[index], item)]
                if len(changed) < len(new):
                    lists.append((key, f'{{"length":{len(new)},"set":{_object_text(changed)}}}'))
                    continue
            view.append((key, text))
        drop_table = [key for key in base.table if key not in self.table]
        drop_view = [key for key in base.view if key not in self.view]
        out = [f'{{"type":"delta","version":{self.version},"after":{base.version}']
        if table:
            out.append(f',"table":{_object_text(table)}')
        if view:
            out.append(f',"view":{_object_text(view)}')
        if lists:
            out.append(f',"lists":{_object_text(lists)}')
        if drop_table or drop_view:
            out.append(f',"drop":{_dumps({"table": drop_table, "view": drop_view})}')
        history = self.view.get("history")
        if history is not None and history != base.view.get("history"):
            new, old = self.texts_of("history") or (), base.texts_of("history") or ()
            if old and len(new) > len(old) and all(map(_same_item, old, new)):
                out.append(f',"history":{{"from":{len(old)},"append":[{",".join(new[len(old):])}]}}')
            else:  # a new round: the history starts again
                out.append(f',"history":{{"from":0,"append":{history}}}')
        out.append("}")
        return "".join(out)


def _flat(entry: dict) -> dict | None:
    """An entry as kept for the next version to compare with: the entry itself if it holds no container (a
    gin history entry: Python does not track such a dict, so keeping it costs collections nothing); else None
    (a Rommé meld and its cards), and the next version serialises its counterpart again, a few microseconds,
    instead of keeping tracked objects until then."""
    return None if gc.is_tracked(entry) else entry


def _part_text(value: object, shared: dict[int, str] | None) -> str:
    """A part's text; a dict or list another audience's frame of the same change holds too is serialised once."""
    if shared is None or not isinstance(value, (dict, list)):
        return _dumps(value)
    text = shared.get(id(value))
    if text is None:
        text = shared[id(value)] = _dumps(value)
    return text


def _entry_texts(entries: list[dict], like: StateParts | None, key: str,
                 shared: dict[int, str] | None = None) -> tuple[list[str], tuple[dict | None, ...]]:
    """The text of each entry: the one made for another audience's frame of the same change if that frame
    holds this very entry (``shared``), else taken from ``like`` where it holds the same entry (equal, keys in
    the same order, so the text is the very one ``json.dumps`` would make) at the same place, else serialised.
    And each entry as ``_flat`` keeps it."""
    if shared is None:
        shared = {}
    old = like.entries_of(key) if like is not None else None
    old_texts = (like.texts_of(key) or ()) if like is not None and old else ()
    texts = []
    flats = []
    for index, entry in enumerate(entries):
        flat = _flat(entry)
        flats.append(flat)
        text = shared.get(id(entry))
        if text is None:
            before = old[index] if flat is not None and old is not None and index < len(old) else None
            if before is not None and (before is entry or (before == entry and list(before) == list(entry))):
                text = old_texts[index]
            else:
                text = _dumps(entry)
            shared[id(entry)] = text
        texts.append(text)
    return texts, tuple(flats)


def state_parts(frame: dict, like: StateParts | None = None) -> StateParts:
    return StateParts(frame, like)


class _LastSent:
    """Per group, the parts of the newest state this process sent it or received for it, so that the next
    version can go as a delta; bounded (least recently sent out first). Only a help: a socket whose last
    state is not exactly a delta's base gets the whole frame."""

    def __init__(self, size: int = 5000):
        self.size = size
        self.parts: OrderedDict[str, StateParts] = OrderedDict()
        self.lock = threading.Lock()

    def follow(self, group: str, parts: StateParts) -> StateParts | None:
        """Remember ``parts`` as the group's newest; the parts of its version just before, if this process
        sent that (and a delta can say the change: both have a view)."""
        with self.lock:
            last = self.parts.get(group)
            if last is not None and last.version > parts.version:
                return None  # an older frame overtaken by a newer one: the newer stays the base
            self.parts[group] = parts
            self.parts.move_to_end(group)
            while len(self.parts) > self.size:
                self.parts.popitem(last=False)
        if last is None or last.version != parts.version - 1 or last.view is None or parts.view is None:
            return None
        return last

    def newest(self, group: str) -> StateParts | None:
        """The parts of the newest state this process sent ``group`` or received for it."""
        with self.lock:
            return self.parts.get(group)

    def received(self, group: str, message: dict, base: str | None) -> str | None:
        """A socket of this process got ``message`` (a state for ``group``) with no delta it could use: it
        was built by another process (a move made through another daphne, the referee's process). The delta
        from the socket's last state (digest ``base``) to it, if that is the state this process saw the group
        get just before; made once per group and version, however many sockets here need it. The parts are
        kept either way, so that the next change can go as a delta, whichever process builds it."""
        version, digest = message.get("version"), message.get("digest")
        if not isinstance(version, int) or digest is None:
            return None
        with self.lock:
            last = self.parts.get(group)
        if last is not None and last.version == version and last.digest == digest:
            current = last
        else:
            if last is not None and last.version > version:
                return None  # overtaken: a newer state of the group is here already
            wired = StateParts.from_wired(message.get("parts"))
            if wired is not None and wired.version == version and wired.digest == digest:
                current = wired
            else:
                # A sender that did not send the parts (an older one): the text parsed and cut up again.
                try:
                    current = StateParts(json.loads(message["text"]), like=last)
                except (ValueError, KeyError, TypeError):
                    return None
                current.release()
                if current.digest != digest:
                    return None
            if last is not None:
                last.previous = None  # one step back is all a delta needs
            current.previous = last
            with self.lock:
                newest = self.parts.get(group)
                if newest is None or newest.version <= version:
                    self.parts[group] = current
                    self.parts.move_to_end(group)
                    while len(self.parts) > self.size:
                        self.parts.popitem(last=False)
        before = current.previous
        if (base is None or before is None or before.digest != base or before.version != current.version - 1
                or before.view is None or current.view is None):
            return None
        if current.delta_from is None or current.delta_from[0] != base:
            current.delta_from = (base, current.delta_text(before))
        return current.delta_from[1]

    def clear(self) -> None:
        with self.lock:
            self.parts.clear()


_last_sent = _LastSent()


def apply_delta(state: dict, delta: dict) -> dict:
    """The ``state`` frame a ``delta`` frame makes of the ``state`` at its ``after`` version (a new dict;
    ``state`` is left as it was). What a client does with a delta, in Python (tests, the load test's
    players); ``table.js`` does the same."""
    if delta.get("type") != "delta" or state.get("version") != delta.get("after"):
        raise ValueError(f"delta {delta.get('after')}→{delta.get('version')} does not follow version {state.get('version')}")
    drop = delta.get("drop") or {}
    table = {**state["table"], **delta.get("table", {})}
    for key in drop.get("table", ()):
        table.pop(key, None)
    view = {**state["view"], **delta.get("view", {})}
    for key in drop.get("view", ()):
        view.pop(key, None)
    for key, change in delta.get("lists", {}).items():
        items = list(state["view"][key][: change["length"]])
        for index, item in sorted(((int(index), item) for index, item in change["set"].items())):
            if index < len(items):
                items[index] = item
            else:
                items.append(item)
        view[key] = items
    history = delta.get("history")
    if history is not None:
        view["history"] = list(state["view"].get("history", [])[: history["from"]]) + history["append"]
    return {"type": "state", "version": delta["version"], "table": table, "view": view}


def delta_received(group: str, message: dict, base: str | None) -> str | None:
    """The delta a socket on ``group`` whose last state has the digest ``base`` can be sent instead of the
    whole state in ``message``, when the sender's own (``message["delta"]``) does not fit (see
    ``_LastSent.received``); None: send the whole state."""
    return _last_sent.received(group, message, base)


def state_noted(group: str, message: dict) -> None:
    """A socket of this process got ``message`` (a state for ``group``) and could use the sender's delta: the
    state's parts (sent with it) are kept as the group's newest, so that this process's next change to the
    group goes as a delta too, however many processes the table's changes come from."""
    if message.get("parts") is not None:
        _last_sent.received(group, message, None)


#: Bytes hashed per call: hashlib lets go of the GIL for a longer piece (2,048 bytes and more), and a thread
#: that lets go of it on a busy process waits to get it back (up to the switch interval, 5 ms) behind the
#: event loop or another database call. A state's text is ~6 KB: hashed in pieces, the thread keeps the GIL
#: for the few microseconds it takes.
_DIGEST_PIECE = 2000


def text_digest(text: str) -> str:
    """The digest ``wire`` gives a state frame's text: a socket that sent that text may be sent a delta.
    blake2b of the UTF-8 text (fed in pieces: the very digest of the whole, see ``_DIGEST_PIECE``)."""
    data = memoryview(text.encode())
    digest = hashlib.blake2b(digest_size=12)
    for start in range(0, len(data), _DIGEST_PIECE):
        digest.update(data[start:start + _DIGEST_PIECE])
    return digest.hexdigest()


def _send(messages: list[tuple[str, dict]]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    messages = wire(messages)
    if hasattr(layer, "group_send_many"):  # ginsite.layers: all groups in a few round trips
        try:
            call_from_sync(layer.group_send_many, messages)
        except Exception:  # a full or unreachable layer must not undo a committed move; clients resync
            logger.exception("could not send to %s", ", ".join(group for group, _ in messages))
        return
    for group, message in messages:
        try:
            call_from_sync(layer.group_send, group, message)
        except Exception:  # a full or unreachable layer must not undo a committed move; clients resync
            logger.exception("could not send to %s", group)


#: Set by a socket around the service call it makes: the frames are then handed back to it and sent from the
#: event loop, so the one database thread of the process is not held up waiting on the channel layer.
OUTBOX: ContextVar[list | None] = ContextVar("games_outbox", default=None)


def framed_on_the_loop() -> bool:
    """Whether a socket's frames are serialised (``wire``) on the event loop, by ``send_now``, rather than on the
    database thread that made the change: yes where every database call of the process shares one thread
    (SQLite, or ``GAMES_DB_PARALLEL = False``). That thread is the serial path of every move of the process,
    and serialising a change's frames was over a third of its Python time (py-spy ``--gil`` of the embedded
    ceiling), while the loop had most of its time to spare; the frames of a change are serialised on the loop
    while the database thread already applies the next move. With a pool of database threads (PostgreSQL) they
    stay on the thread that made the change: the loop is the serial path there."""
    return not parallel()


def send_after_commit(messages: list[tuple[str, dict]]) -> None:
    outbox = OUTBOX.get()
    if outbox is not None:
        if framed_on_the_loop():
            transaction.on_commit(lambda: outbox.extend(messages))  # send_now wires them, in the same order
        else:
            transaction.on_commit(lambda: outbox.extend(wire(messages)))
    else:
        def send() -> None:
            _send(messages)
            _after_run(_after_taken())

        transaction.on_commit(send)


# --- after the fan-out -------------------------------------------------------------------------------------
# Work that must wait until a change's frames are out: the end of a match's announcement (its listeners
# rate the match and may start a tournament's next stage; the players must not wait for that to see the
# last card fall). With an OUTBOX (a socket's call, the in-process referee) the work rides in the outbox
# behind the frames, and ``send_now`` starts it once it has handed them to the channel layer, in a task of
# its own, so the socket that made the move is free to deliver its own frame meanwhile. Without one (a
# management command, a view, the admin) the frames go out from their own on-commit callback, and that
# callback runs the work queued before it; every change that ends a match also sends its frames.


#: An outbox entry that is not a frame, shaped like one (group, message) so that whoever reads an outbox can
#: treat every entry alike: its message carries the ``callback`` to run once the frames before it are out.
#: It never reaches the channel layer.
AFTER = "games.after_fanout"


def _after_entry(callback: Callable[[], object]) -> tuple[str, dict]:
    return ("", {"type": AFTER, "callback": callback})


_after_queue = threading.local()


def _after_pending() -> list:
    if not hasattr(_after_queue, "callbacks"):
        _after_queue.callbacks = []
    return _after_queue.callbacks


def _after_taken() -> list[Callable[[], object]]:
    pending = _after_pending()
    taken = list(pending)
    pending.clear()
    return taken


def after_fanout(callback: Callable[[], object]) -> None:
    """Run ``callback`` once the current transaction has committed **and** the frames it scheduled are
    sent; never if it rolls back. Call it before scheduling the frames (``table_changed``)."""
    outbox = OUTBOX.get()
    if outbox is not None:
        transaction.on_commit(lambda: outbox.append(_after_entry(callback)))
    else:
        transaction.on_commit(lambda: _after_pending().append(callback))


def _after_run(callbacks: list[Callable[[], object]]) -> None:
    for callback in callbacks:
        try:
            callback()
        except Exception:  # noqa: BLE001 - the change is committed; the clock's catch-up retries
            logger.exception("work after the fan-out failed: %r", callback)


_after_tasks: set[asyncio.Task] = set()


async def _after_run_async(callbacks: list[Callable[[], object]]) -> None:
    for callback in callbacks:
        outbox: list = []
        token = OUTBOX.set(outbox)
        try:
            await in_thread(callback)()
        except Exception:  # noqa: BLE001 - see _after_run
            logger.exception("work after the fan-out failed: %r", callback)
        finally:
            OUTBOX.reset(token)
        if outbox:  # what the work changed (a tournament's next stage) goes out the same way
            layer = get_channel_layer()
            if layer is not None:
                await send_now(layer, outbox)


async def after_fanout_settled() -> None:
    """Wait until the work started after this process's fan-outs has finished (tests, a clean shutdown)."""
    while _after_tasks:
        await asyncio.gather(*list(_after_tasks), return_exceptions=True)


#: Called with every batch of wired messages this process sends from the event loop (the in-process referee,
#: ``games.web.timekeeper``, notes which versions went out). Registered by whoever listens; events imports none.
on_sent: list = []


async def send_now(layer: BaseChannelLayer, messages: list[tuple[str, dict]]) -> None:
    """Send the wired messages a socket (or the in-process referee) collected in its OUTBOX, from the event
    loop, in order. A failure is logged, not raised: the change is committed, and clients resync. Work the
    outbox holds for after the fan-out (``after_fanout``) starts once every frame is handed over. Frames not wired
    yet (``framed_on_the_loop``) are wired here, before the first ``await``: in the order the changes committed,
    as the database thread's answers come back in that order."""
    heard = getattr(layer, "heard", None)
    if heard is not None:
        # A frame for a group nobody is in (a table nobody watches, a seat whose player has no socket open) is
        # not serialised at all: the layer says so where it knows every socket (the in-memory layer, one process).
        # Any socket joining later reads the state after this change, and that group's next frame goes whole.
        messages = [(group, message) for group, message in messages if "frame" not in message or heard(group)]
    messages = wire(messages)  # what is wired already passes through as it is
    after = [message["callback"] for _, message in messages if message.get("type") == AFTER]
    if after:
        messages = [(group, message) for group, message in messages if message.get("type") != AFTER]
    await _send_frames(layer, messages)
    if after:
        task = asyncio.get_running_loop().create_task(_after_run_async(after))
        _after_tasks.add(task)
        task.add_done_callback(_after_tasks.discard)


async def _send_frames(layer: BaseChannelLayer, messages: list[tuple[str, dict]]) -> None:
    if not messages:
        return
    for hook in on_sent:
        hook(messages)
    if hasattr(layer, "group_send_many"):  # ginsite.layers: all groups in a few round trips
        try:
            await layer.group_send_many(messages)
        except Exception as error:  # noqa: BLE001 - see _send
            logger.error("could not send to %s: %r", ", ".join(group for group, _ in messages), error)
        return
    for group, message in messages:
        try:
            await layer.group_send(group, message)
        except Exception as error:  # noqa: BLE001 - see _send
            logger.error("could not send to %s: %r", group, error)


def table_frames(snapshot: presenters.TableSnapshot, *, also_users: Iterable[int] = ()) -> list[tuple[str, dict]]:
    """One ``state`` frame per seated user and one public frame; ``also_users`` (e.g. who just left a seat)
    get the public view on their own group, so their sockets learn they are spectators now."""
    table_id = snapshot.table.pk
    messages: list[tuple[str, dict]] = []
    seated = set()
    for seat in snapshot.seats:
        if seat.user_id is not None:
            seated.add(seat.user_id)
            frame = presenters.table_state(snapshot, seat.index)
            messages.append((user_group(table_id, seat.user_id), {"type": "table.frame", "audience": "user", "frame": frame}))
    public = presenters.table_state(snapshot, None)
    for user_id in set(also_users) - seated:
        messages.append((user_group(table_id, user_id), {"type": "table.frame", "audience": "user", "frame": public}))
    messages.append((public_group(table_id), {"type": "table.frame", "audience": "public", "frame": public}))
    return messages


def lobby_frame(snapshot: presenters.TableSnapshot) -> list[tuple[str, dict]]:
    table = snapshot.table
    if table.private:
        return []
    frame = {"type": "lobby_table", "table": presenters.table_summary(table, snapshot.seats)}
    return [(LOBBY_GROUP, {"type": "lobby.frame", "frame": frame})]


def table_changed(snapshot: presenters.TableSnapshot, *, lobby: bool = False, also_users: Iterable[int] = ()) -> None:
    """Schedule the fan-out of a change for after the commit."""
    messages = table_frames(snapshot, also_users=also_users)
    if lobby:
        messages += lobby_frame(snapshot)
    send_after_commit(messages)


def chat_posted(table_id: int, frame: dict) -> None:
    send_after_commit([(everyone_group(table_id), {"type": "table.frame", "audience": "all", "frame": frame})])
