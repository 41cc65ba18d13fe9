"""The site's channel layers: channels' in-memory layer and channels-redis's, each with the same semantics
and cheaper bookkeeping, so that one process holds a thousand sockets.

In memory (the embedded default: one daphne process, no Redis):

channels' own ``InMemoryChannelLayer`` walks every channel and every group membership of the process on each
``receive`` and each ``group_send`` to drop expired messages, deep-copies every message once per receiving
channel and starts a task per channel of a group. With 1,000 sockets in ~2,500 groups that walk runs on every
frame of every move (a few thousand dict entries each time), and a move's frames are deep-copied per socket.
This layer is the same layer with three changes:

- expired messages and groups are swept at most once every ``sweep_seconds`` (default 1 s); a message still
  expires after ``expiry`` seconds, just up to a second later;
- a message is copied once per channel as before, but shallowly when it is flat (only strings, numbers,
  ``None`` and tuples at the top level), as the site's frames are (their JSON text is built once per move);
- ``group_send`` puts the message on each channel's queue directly instead of a task per channel.

The API and the semantics (capacity, ``ChannelFull`` dropped in groups, group expiry) are channels'.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import logging
import math
import time
from copy import deepcopy
from typing import TYPE_CHECKING, Any

import redis.asyncio
import redis.exceptions
from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer as _ChannelsInMemoryChannelLayer
from channels_redis.core import ChannelLock
from channels_redis.core import RedisChannelLayer as _ChannelsRedisChannelLayer

from ginsite.loopturns import Requests, Together

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from redis.asyncio.connection import AbstractConnection as _ConnectionBase
else:
    _ConnectionBase = object


class _SendWithoutTask(_ConnectionBase):
    """A redis-py connection (mixed into the pool's own class) whose commands are written without a Task each.

    redis-py writes a command through ``asyncio.wait_for(..., socket_timeout)``, which under Python 3.11 wraps
    the write in a new Task: a Task created, scheduled and finished per Redis command, for a write that almost
    always completes at once (a few KB into an empty socket buffer). Here the command is written, and only
    when the transport holds unsent bytes is ``drain()`` awaited under ``asyncio.timeout`` (no Task); with
    the buffer empty ``drain()`` returns at once (it still raises for a connection already lost). The errors
    are redis-py's: ``TimeoutError`` when the write waits out the socket timeout, ``ConnectionError`` for a
    socket error, and the connection dropped on either, as on any exception mid-write."""

    async def send_packed_command(self, command, check_health: bool = True) -> None:
        if not self.is_connected:
            await self.connect_check_health(check_health=False)
        if check_health:
            await self.check_health()
        try:
            if isinstance(command, str):
                command = command.encode()
            if isinstance(command, bytes):
                command = [command]
            writer = self._writer
            assert writer is not None  # connected above
            writer.writelines(command)
            if writer.transport.get_write_buffer_size():
                async with asyncio.timeout(self.socket_timeout or None):
                    await writer.drain()
            else:
                await writer.drain()
        except TimeoutError:
            await self.disconnect(nowait=True)
            raise redis.exceptions.TimeoutError("Timeout writing to socket") from None
        except OSError as error:
            await self.disconnect(nowait=True)
            raise redis.exceptions.ConnectionError(f"Error while writing to socket: {error!r}") from error
        except BaseException:
            await self.disconnect(nowait=True)
            raise


_lean_classes: dict[type, type] = {}


def _lean_connection_class(cls: type) -> type:
    """``cls`` (redis-py's TCP, Unix socket or SSL connection) with :class:`_SendWithoutTask`'s write."""
    if issubclass(cls, _SendWithoutTask):
        return cls
    lean = _lean_classes.get(cls)
    if lean is None:
        lean = _lean_classes[cls] = type(f"Lean{cls.__name__}", (_SendWithoutTask, cls), {})
    return lean


class _Script:
    """A Lua script sent by its SHA1 (``EVALSHA``): 40 bytes instead of the script's text on every call, and
    Redis looks it up instead of hashing the text again. A server that does not hold it (restarted, flushed
    scripts) gets the text once with ``EVAL``, which caches it there."""

    def __init__(self, text: str):
        self.text = text
        self.sha = hashlib.sha1(text.encode()).hexdigest()

    async def __call__(self, connection, numkeys: int, *args):
        try:
            return await connection.evalsha(self.sha, numkeys, *args)
        except redis.exceptions.NoScriptError:
            return await connection.eval(self.text, numkeys, *args)

_FLAT = (str, int, float, bool, type(None), bytes)


def _copy(message: dict) -> dict:
    for value in message.values():
        if not isinstance(value, _FLAT) and not (isinstance(value, tuple) and all(isinstance(v, _FLAT) for v in value)):
            return deepcopy(message)
    return dict(message)


class InMemoryChannelLayer(_ChannelsInMemoryChannelLayer):
    def __init__(self, sweep_seconds: float = 1.0, **kwargs):
        super().__init__(**kwargs)
        self.sweep_seconds = sweep_seconds
        self._next_sweep = 0.0

    def _clean_expired(self):
        now = time.time()
        if now < self._next_sweep:
            return
        self._next_sweep = now + self.sweep_seconds
        super()._clean_expired()

    def _put(self, channel: str, message: dict) -> None:
        queue = self.channels.get(channel)
        if queue is None:
            queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
        try:
            queue.put_nowait((time.time() + self.expiry, _copy(message)))
        except asyncio.QueueFull:
            raise ChannelFull(channel) from None

    async def send(self, channel, message):
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        assert "__asgi_channel__" not in message
        self._put(channel, message)

    async def receive(self, channel):
        self.require_valid_channel_name(channel)
        self._clean_expired()
        queue = self.channels.get(channel)
        if queue is None:
            queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
        try:
            _, message = await queue.get()
        finally:
            if queue.empty() and self.channels.get(channel) is queue:
                del self.channels[channel]
        return message

    async def group_send(self, group, message):
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        for channel in list(self.groups.get(group, ())):
            with contextlib.suppress(ChannelFull):  # as channels does: a full channel misses a group message
                self._put(channel, message)

    def heard(self, group: str) -> bool:
        """Whether a message sent to ``group`` now would reach anyone: this layer holds every socket of the site
        (one process), so a group without members here has none anywhere."""
        return bool(self.groups.get(group))

    async def group_send_many(self, messages: list[tuple[str, dict]]) -> None:
        """Each ``(group, message)`` in order (the API of :class:`RedisChannelLayer` below)."""
        for group, message in messages:
            await self.group_send(group, message)

    async def regroup(self, channel: str, *, add=(), discard=()) -> None:
        """Add ``channel`` to the groups ``add`` and take it out of ``discard`` (see RedisChannelLayer)."""
        for group in add:
            await self.group_add(group, channel)
        for group in discard:
            await self.group_discard(group, channel)


class RedisChannelLayer(_ChannelsRedisChannelLayer):
    """channels-redis's layer (``channels_redis.core``) with the same keys, messages and semantics (capacity,
    expiry, group expiry), sent in fewer round trips to Redis:

    - ``group_send`` asks for the group's members in one script (channels-redis: two round trips) and
      delivers to every member in one script that also drops expired messages (channels-redis: a pipeline
      and a script);
    - ``group_send_many`` does that for several groups at once, so a move's frames (one per seated user,
      one public) cost two round trips, not twelve;
    - ``group_add`` pipelines its two commands, and ``regroup`` joins and leaves several groups at once, with
      the regroups of every socket of the loop asked for in the same turn of the loop;
    - ``send`` is one script (channels-redis: four commands), and a message to one socket's channel goes to the
      Redis server its process receives from (channels-redis hashes the whole name there, see ``send``);
    - receiving messages that are already waiting takes one script for all of them (up to ``receive_batch``)
      instead of three commands for each, and the received messages leave their backup queue in the next
      receive's script instead of a command of their own (channels-redis: a ``ZPOPMIN`` per message, fired
      off after it);
    - scripts go by their SHA (``EVALSHA``, :class:`_Script`), and the pool's connections write a command
      without a Task of its own (:class:`_SendWithoutTask`);
    - a waiting receive waits on one Future (channels-redis: two Tasks and ``asyncio.wait``), and a group
      message for a socket of this very process is put in its buffer here, not sent round through Redis
      (``receive``, ``_hand_over``).

    Each round trip is a Redis command through redis-py's Python (its replies parsed by hiredis where it is
    installed, as ``requirements.txt`` pins it): a move cost ~20 of them.
    """

    _DELIVER = _Script("""
        local n = #KEYS
        local now = tonumber(ARGV[2 * n + 1])
        local expiry = tonumber(ARGV[2 * n + 2])
        local over_capacity = 0
        for i = 1, n do
            redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, math.floor(now) - expiry)
            if redis.call('ZCOUNT', KEYS[i], '-inf', '+inf') < tonumber(ARGV[n + i]) then
                redis.call('ZADD', KEYS[i], now, ARGV[i])
                redis.call('EXPIRE', KEYS[i], expiry)
            else
                over_capacity = over_capacity + 1
            end
        end
        return over_capacity
    """)

    # ARGV[3] == "1": the messages popped last from this channel were all handed over (``receive_single``), so
    # their copies in the backup queue go; otherwise (a receive cancelled while its pop was on the wire) they
    # are put back on the channel, as channels-redis's cleanup script does. Then up to ARGV[4] waiting
    # messages are popped, oldest first, and backed up: a flat list of message, score, message, score...
    _POP = _Script("""
        if ARGV[3] == '1' then
            redis.call('DEL', ARGV[2])
        else
            local backed_up = redis.call('ZRANGE', ARGV[2], 0, -1, 'WITHSCORES')
            for i = #backed_up, 1, -2 do
                redis.call('ZADD', ARGV[1], backed_up[i], backed_up[i - 1])
            end
            redis.call('DEL', ARGV[2])
        end
        local popped = redis.call('ZPOPMIN', ARGV[1], ARGV[4])
        for i = 1, #popped, 2 do
            redis.call('ZADD', ARGV[2], popped[i + 1], popped[i])
        end
        return popped
    """)

    # Who is in each group KEYS[i]: its members that joined after ARGV[1] (the others, expired, leave it first),
    # a list per group. One command and one reply for all of a shard's groups: redis-py's pipeline of two
    # commands per group packed and parsed each of its replies in Python (a tenth of a busy daphne's CPU).
    _MEMBERS = _Script("""
        local members = {}
        for i = 1, #KEYS do
            redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, ARGV[1])
            members[i] = redis.call('ZRANGE', KEYS[i], 0, -1)
        end
        return members
    """)

    #: The most messages one receive takes off a channel in one script (the rest wait in this process).
    receive_batch = 100

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        #: Per (shard, channel key): every message popped last was handed over (their backup copies may go).
        self._handed_over: dict[tuple[int, str], bool] = {}
        #: Per channel key: messages popped and backed up in one script, not yet handed over, oldest first.
        self._popped: dict[str, collections.deque[bytes]] = {}
        #: The receives of the event loop that receives on this layer now, or did last (``receive``).
        self._receives: _Receives | None = None
        #: The regroups asked for in one turn of the loop, sent together (``regroup``).
        self._regroups: Together[tuple[str, tuple, tuple]] = Together(self._send_regroups)

    def create_pool(self, index):
        """The pool for ``hosts[index]``, its connections writing commands without a Task each
        (:class:`_SendWithoutTask`).

        A host given by ``address`` gets a *blocking* pool of ``max_connections``: a command that finds every
        connection busy waits up to ``timeout`` seconds for one, where channels-redis's pool opens another.
        A burst of 500 handshakes on one daphne opened ~500 connections to each server (TCP, ``HELLO``, and
        per connection redis-py's ``CLIENT SETINFO`` with the library's version read from its installed
        metadata, ``importlib.metadata``: 15 % of the daphnes' samples in py-spy of the scaled burst), most
        of them used once. ``driver_info=None`` leaves out ``CLIENT SETINFO`` (a name shown by ``CLIENT LIST``
        only). Other hosts (sentinels) get channels-redis's pool."""
        host = dict(self.hosts[index])
        if "address" in host:
            address = host.pop("address")
            host.setdefault("driver_info", None)
            pool = redis.asyncio.BlockingConnectionPool.from_url(address, **host)
        else:
            pool = super().create_pool(index)
        pool.connection_class = _lean_connection_class(pool.connection_class)
        return pool

    async def send(self, channel, message):
        """Put ``message`` on ``channel``: channels-redis's checks, expiry and capacity (``ChannelFull``), in one
        script instead of four commands.

        A process-specific channel (``specific.<process>!<socket>``) lives in its process's key
        (``specific.<process>!``), and that key's Redis server is picked by a hash of it: the server the
        process's receive pops from, and the one ``group_send`` delivers to. channels-redis's own ``send``
        hashes the whole name instead, so with several Redis servers (``hosts``) a message sent to one socket
        could wait on a server its process never reads, until it expired."""
        assert isinstance(message, dict), "message is not a dict"
        assert self.require_valid_channel_name(channel), "Channel name not valid"
        assert "__asgi_channel__" not in message
        if "!" in channel:
            message = {**message, "__asgi_channel__": channel}
            name = self.non_local_name(channel)
            index = self.consistent_hash(name)
        else:
            name = channel
            index = next(self._send_index_generator)
        over = await self._DELIVER(self.connection(index), 1, self.prefix + name, self.serialize(message),
                                   self.get_capacity(channel), time.time(), int(self.expiry))
        if over:
            raise ChannelFull(channel)

    async def _brpop_with_clean(self, index, channel, timeout, handed_over=False) -> list[bytes]:
        # channels-redis: a script that puts back what a cancelled receive left in the backup queue, then a
        # blocking pop, then the popped message into the backup queue (three round trips for every message),
        # and after it a fourth that takes the message out of the backup queue. Here one script does the
        # first (or drops the backup copies of the messages handed over) and, when messages are waiting
        # (under load, mostly), pops and backs up all of them up to ``receive_batch``: one round trip for a
        # batch. Only an empty channel waits in a blocking pop (``_blocking_pop``).
        connection = self.connection(index)
        backup = self._backup_channel_name(channel)
        popped = await self._POP(connection, 0, channel, backup, "1" if handed_over else "0", self.receive_batch)
        if popped:
            return popped[::2]
        # The script left the backup queue empty: channels-redis's clean-up script has nothing to do here. Nor
        # is the message the blocking pop returns backed up (channels-redis: a ZADD after it, a round trip per
        # message on a quiet channel): a receive cancelled while the pop's reply is on the wire loses it
        # backed up or not (redis-py drops the connection with the reply), and from the reply to the hand-over
        # there is no await at which a cancellation could leave it behind.
        member = await self._blocking_pop(connection, channel, timeout)
        return [] if member is None else [member[0]]

    async def _blocking_pop(self, connection, channel: str, timeout: float) -> tuple[bytes, float] | None:
        """``BZPOPMIN channel timeout``: the oldest message and its score, or ``None`` after ``timeout`` seconds.

        redis-py reads every reply within the pool's ``socket_timeout``, and redis-py 8 made that 5 s by
        default (``redis._defaults.DEFAULT_SOCKET_TIMEOUT``): the very time channels-redis's blocking pop waits
        on Redis (``brpop_timeout``). An empty channel's reply then comes as the client gives up on it (a round
        trip after the 5 s, later still on a busy event loop), redis-py drops the
        connection and raises ``TimeoutError`` out of the consumer's receive, and a message Redis popped
        meanwhile is lost. So this one reply is read with a timeout of its own: the pop's time on Redis plus
        the pool's socket timeout. Every other command keeps the socket timeout alone, and a Redis that does
        not answer the pop is noticed too, that much later (``TimeoutError``, the connection dropped)."""
        pool = connection.connection_pool
        conn = await pool.get_connection()
        try:
            await conn.send_command("BZPOPMIN", channel, timeout)
            margin = conn.socket_timeout
            try:
                async with asyncio.timeout(timeout + margin if margin else None):
                    reply = await conn.read_response(timeout=math.inf)  # no socket timeout: the one above
            except TimeoutError:  # the read was cancelled, and redis-py dropped the connection
                raise redis.exceptions.TimeoutError(
                    f"No reply to BZPOPMIN {timeout} from {getattr(conn, 'host', 'Redis')} within {timeout + margin} s"
                ) from None
        finally:
            await pool.release(conn)
        if reply is None:
            return None
        _, member, score = reply
        return member, float(score)

    async def receive(self, channel):
        """channels-redis's ``receive``, with one Future per wait instead of two Tasks and ``asyncio.wait``.

        As there, the sockets of a process share its channel (``specific.<process>!``): one waiting receive at a
        time reads it (``receive_single``) and puts what it pops in the buffer of the socket it is for, and a
        receive returns what its socket's buffer holds. channels-redis has every waiting receive race a Task
        taking the read lock against a Task getting from its buffer, and cancel the loser: two Tasks made,
        scheduled and one cancelled per message and socket. Here a receive that finds its buffer empty reads
        if nobody reads, else it waits on a Future of its own, which the reader resolves when it puts a message
        in that buffer; a reader that ends (its message read, cancelled or failed) wakes one waiting receive
        whose buffer is still empty to read next. The semantics are channels-redis's: a receive cancelled or
        failed drops its socket's buffer, a reader's failure is raised by that reader alone (the next one tries
        again), a full buffer drops its oldest message (``BoundedQueue``).

        Who reads, who waits and on which Futures is kept per event loop (:class:`_Receives`). A loop that
        closed with receives still pending (a Task made while ``asyncio.run`` shuts its loop down is never
        cancelled) leaves them behind for good: the next loop's receives begin afresh rather than wait for
        them, and when such a receive's coroutine is collected later, on whatever thread, its clean-up touches
        only its own loop's state and resolves no Future."""
        assert self.require_valid_channel_name(channel)
        if "!" not in channel:
            return (await self.receive_single(channel))[1]
        real_channel = self.non_local_name(channel)
        assert real_channel.endswith(self.client_prefix + "!"), "Wrong client prefix"
        receives = self._receives_of(asyncio.get_running_loop())
        receives.count += 1
        self.receive_count, self.receive_event_loop = receives.count, receives.loop  # channels-redis's, as there
        receives.receiving[channel] = time.monotonic()
        try:
            while (buffer := self.receive_buffer.get(channel)) is None or buffer.empty():
                if not receives.reading:
                    receives.reading, receives.reader = True, channel
                    try:
                        message_channel, message = await self.receive_single(real_channel)
                        for name in message_channel if isinstance(message_channel, list) else (message_channel,):
                            self.receive_buffer[name].put_nowait(message)
                            receives.wake(name)
                    finally:
                        receives.reading, receives.reader = False, None
                else:
                    waiter = receives.loop.create_future()
                    receives.waiting.setdefault(channel, []).append(waiter)
                    try:
                        await waiter
                    finally:
                        waiting = receives.waiting.get(channel)
                        if waiting is not None:
                            with contextlib.suppress(ValueError):
                                waiting.remove(waiter)
                            if not waiting:
                                del receives.waiting[channel]
            message = buffer.get_nowait()
            if buffer.empty():
                del self.receive_buffer[channel]
            return message
        except BaseException:
            if receives is self._receives:
                self.receive_buffer.pop(channel, None)
            raise
        finally:
            receives.receiving[channel] = time.monotonic()
            receives.count -= 1
            if receives is self._receives:
                self.receive_count = receives.count
                if receives.count == 0:
                    self.receive_event_loop = None  # type: ignore[assignment]  # as channels-redis does
                elif not receives.reading:
                    receives.wake_a_reader()

    def _receives_of(self, loop: asyncio.AbstractEventLoop) -> _Receives:
        """The receives of ``loop`` on this layer: those of the last loop that received if that is ``loop``,
        else afresh (with channels-redis's check that two loops do not receive at once). A loop that closed
        while receives of its own were pending never ends them: they count no more, and what they held (the
        read lock of the process's channel, their sockets' buffers) is dropped with them."""
        receives = self._receives
        if receives is not None and receives.loop is loop:
            return receives
        if receives is not None and receives.count:
            if not receives.loop.is_closed():
                raise RuntimeError("Two event loops are trying to receive() on one channel layer at once!")
            for channel in receives.receiving:
                self.receive_buffer.pop(channel, None)
            # A reader left behind holds the lock of the process's channel (``receive_single``) for good.
            self.receive_clean_locks = ChannelLock()
        receives = self._receives = _Receives(loop)
        return receives

    async def receive_single(self, channel):
        """channels-redis's ``receive_single``, taking every waiting message (up to ``receive_batch``) in one
        script and handing them over one per call, and without its clean-up command per message: the backup
        copies of a batch go in the script after its last message was handed over. A receive cancelled before
        its script's answer arrived leaves the batch in the backup queue, and the next receive puts it back on
        the channel; messages of a batch not yet handed over wait in ``_popped`` (and in the backup queue)."""
        assert self.require_valid_channel_name(channel, receive=True), "Channel name invalid"
        if "!" in channel:
            assert channel.endswith("!")
            index = self.consistent_hash(channel)
        else:
            index = next(self._receive_index_generator)
        channel_key = self.prefix + channel
        locks = self.receive_clean_locks  # (a receive that a closed loop left behind releases its own)
        await locks.acquire(channel_key)
        try:
            waiting = self._popped.get(channel_key)
            if not waiting:
                handed_over = self._handed_over.pop((index, channel_key), False)
                batch: list[bytes] = []
                while not batch:
                    batch = await self._brpop_with_clean(index, channel_key, timeout=self.brpop_timeout,
                                                         handed_over=handed_over)
                    handed_over = False
                waiting = self._popped[channel_key] = collections.deque(batch)
            # No await from here to the caller: the message is handed over.
            content = waiting.popleft()
            if not waiting:
                del self._popped[channel_key]
                self._handed_over[(index, channel_key)] = True
        finally:
            locks.release(channel_key)
        message = self.deserialize(content)
        if "__asgi_channel__" in message:
            channel = message["__asgi_channel__"]
            del message["__asgi_channel__"]
        return channel, message

    async def flush(self):
        self._popped.clear()
        self._handed_over.clear()
        await super().flush()

    async def group_add(self, group, channel):
        assert self.require_valid_group_name(group), "Group name not valid"
        assert self.require_valid_channel_name(channel), "Channel name not valid"
        pipe = self.connection(self.consistent_hash(group)).pipeline(transaction=False)
        group_key = self._group_key(group)
        pipe.zadd(group_key, {channel: time.time()})
        pipe.expire(group_key, self.group_expiry)
        await pipe.execute()

    async def regroup(self, channel: str, *, add=(), discard=()) -> None:
        """Join ``add`` and leave ``discard`` (a socket's handshake): with the regroups of every other socket of
        this event loop asked for in the same turn of the loop, in one pipelined round trip per shard, the
        shards side by side. Returns once this socket's commands are done; a shard that failed fails the
        regroups that had commands on it.

        A burst of handshakes (a tournament's start: 500 sockets per daphne) asked for 500 round trips at
        once, each waiting for a connection of the pool and each answer a turn of the loop of its own; now a
        few pipelines of a few hundred commands each."""
        assert self.require_valid_channel_name(channel), "Channel name not valid"
        for group in (*add, *discard):
            assert self.require_valid_group_name(group), "Group name not valid"
        if not add and not discard:
            return
        await self._regroups.ask((channel, tuple(add), tuple(discard)))

    async def _send_regroups(self, requests: Requests[tuple[str, tuple, tuple]]) -> None:
        pipes: dict[int, Any] = {}
        shards: list[set[int]] = []
        now = time.time()
        for (channel, add, discard), _ in requests:
            used = set()
            for group in add:
                index = self.consistent_hash(group)
                pipe = pipes.setdefault(index, self.connection(index).pipeline(transaction=False))
                pipe.zadd(self._group_key(group), {channel: now})
                pipe.expire(self._group_key(group), self.group_expiry)
                used.add(index)
            for group in discard:
                index = self.consistent_hash(group)
                pipe = pipes.setdefault(index, self.connection(index).pipeline(transaction=False))
                pipe.zrem(self._group_key(group), channel)
                used.add(index)
            shards.append(used)
        outcomes = await asyncio.gather(*(pipe.execute() for pipe in pipes.values()), return_exceptions=True)
        failed = {index: outcome for index, outcome in zip(pipes, outcomes, strict=True)
                  if isinstance(outcome, BaseException)}
        for (_, future), used in zip(requests, shards, strict=True):
            if future.done():  # the socket's handshake was cancelled meanwhile
                continue
            error = next((failed[index] for index in sorted(used) if index in failed), None)
            if error is None:
                future.set_result(None)
            else:
                future.set_exception(error)

    def _hand_over(self, receives: _Receives, names: list[str], message: dict) -> list[str]:
        """Put ``message`` in the buffer of each channel of ``names`` that is a socket of this process receiving
        on this loop (a receive on it began or ended within the layer's ``expiry``), as its receive would have
        put it there after the round trip through Redis, and wake that receive; the other names, for Redis. A
        move's own socket gets its frame so, without the message packed, delivered, popped and unpacked. Not
        the socket whose receive reads the process's channel now: it waits in Redis's blocking pop and sees
        its buffer only when that returns, so its message goes through Redis. A channel that stopped receiving
        (a socket gone whose groups were not left) gets its messages through Redis, where they expire."""
        now = time.monotonic()
        receiving = receives.receiving
        if now - receives.swept > self.expiry:
            receives.swept = now
            for name in [name for name, at in receiving.items() if now - at > self.expiry]:
                del receiving[name]
        rest = []
        for name in names:
            at = receiving.get(name)
            if at is None or name == receives.reader or now - at > self.expiry:
                rest.append(name)
                continue
            self.receive_buffer[name].put_nowait(dict(message))
            receives.wake(name)
        return rest

    async def group_send(self, group, message):
        await self.group_send_many([(group, message)])

    async def group_send_many(self, messages: list[tuple[str, dict]]) -> None:
        # Who is in each group: one script per Redis shard, the shards asked side by side.
        members: list[list[str]] = [[] for _ in messages]
        by_shard: dict[int, list[int]] = {}
        for i, (group, _) in enumerate(messages):
            assert self.require_valid_group_name(group), "Group name not valid"
            by_shard.setdefault(self.consistent_hash(group), []).append(i)
        oldest = int(time.time()) - self.group_expiry

        async def look_up(index: int, positions: list[int]) -> None:
            keys = [self._group_key(messages[i][0]) for i in positions]
            results = await self._MEMBERS(self.connection(index), len(keys), *keys, oldest)
            for i, names in zip(positions, results, strict=True):
                members[i] = [name.decode("utf8") for name in names]

        await _side_by_side(look_up(index, positions) for index, positions in by_shard.items())
        await self._deliver_to(messages, members)

    async def _deliver_to(self, messages: list[tuple[str, dict]], members: list[list[str]]) -> None:
        """Each message to the channels ``members`` names for it (per message, in order): to a socket of this
        process here (``_hand_over``), to the others through Redis."""
        # Every delivery of every message, one script per shard, the shards side by side.
        deliveries: dict[int, tuple[list, list, list]] = {}
        receives = self._receives
        if receives is not None and (not receives.receiving or receives.loop is not asyncio.get_running_loop()):
            receives = None  # (a hand-over only on the loop the receives wait on: their Futures are of it)
        for (_group, message), names in zip(messages, members, strict=True):
            if names and receives is not None:
                names = self._hand_over(receives, names, message)
            if not names:
                continue
            by_connection, key_message, key_capacity = self._map_channel_keys_to_connection(names, message)
            for index, keys in by_connection.items():
                shard_keys, shard_messages, shard_capacities = deliveries.setdefault(index, ([], [], []))
                for key in keys:
                    shard_keys.append(key)
                    shard_messages.append(key_message[key])
                    shard_capacities.append(key_capacity[key])

        async def deliver(index: int, keys: list, payloads: list, capacities: list) -> None:
            over = await self._DELIVER(
                self.connection(index), len(keys), *keys, *payloads, *capacities, time.time(), int(self.expiry)
            )
            if over:
                logger.info("%s of %s channels over capacity", over, len(keys))

        await _side_by_side(deliver(index, *parts) for index, parts in deliveries.items())


class _Receives:
    """The receives of one event loop on a :class:`RedisChannelLayer` (``receive``): how many are under way,
    whether one of them reads the process's channel and for which socket, the Futures the others wait on (by
    channel), and when a receive on each socket last began or ended (``time.monotonic``; a group message for
    such a socket is handed to it in the process, ``_hand_over``). Every Future here is of ``loop``, and only
    code running on ``loop`` resolves one (``wake``, ``wake_a_reader``)."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.count = 0
        self.reading = False
        self.reader: str | None = None
        self.waiting: dict[str, list[asyncio.Future]] = {}
        self.receiving: dict[str, float] = {}
        self.swept = 0.0

    def _on_loop(self) -> bool:
        # A receive's clean-up runs off its loop when its coroutine is collected after the loop closed.
        return asyncio._get_running_loop() is self.loop

    def wake(self, channel: str) -> None:
        """Resolve the Futures of the receives waiting on ``channel``: its buffer holds a message now."""
        if not self._on_loop():
            return
        for waiter in self.waiting.pop(channel, ()):
            if not waiter.done():
                waiter.set_result(None)

    def wake_a_reader(self) -> None:
        """Nobody reads the process's channel: wake one waiting receive, which reads next."""
        if not self._on_loop():
            return
        for waiting in self.waiting.values():
            for waiter in waiting:
                if not waiter.done():
                    waiter.set_result(None)
                    return
            # (a channel whose Futures are all resolved already: its receives run next, one of them reads)


async def _side_by_side(calls) -> None:
    """Await round trips to different Redis shards together (one alone is awaited as it is); the first
    failure is raised once all have ended, as a sequence of awaits would raise it."""
    calls = list(calls)
    if len(calls) == 1:
        await calls[0]
        return
    for outcome in await asyncio.gather(*calls, return_exceptions=True):
        if isinstance(outcome, BaseException):
            raise outcome
