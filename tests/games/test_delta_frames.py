"""Delta frames (docs/protocol.md, issue 24): after a socket's first whole ``state``, each change goes as what
changed, the history once and then its new entries, built once per audience; a socket gets one only when it
follows exactly the state the socket holds, else the whole frame. Also how big the frames of an ordinary
move late in a round are, whole and as a delta."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async

from games import registry, services
from games.delivery import events
from games.models import Table
from games.reads import selectors
from tests.games.helpers import Socket, choose_action, state_of

#: What an ordinary move's delta may weigh at most: for the spectators (and a seat that does not act, which
#: gets the same changes) ...
DELTA_PUBLIC_MAX_BYTES = 800
#: ... and for the seat that just drew, whose view gains its whole meter (the deadwood of every discard) and
#: its legal actions, which a delta cannot shorten.
DELTA_MAX_BYTES = 2048


@pytest.fixture
def wired(monkeypatch):
    """Every batch of messages as it goes to the channel layer (``events.wire``'s output)."""
    batches: list[list[tuple[str, dict]]] = []
    wire = events.wire

    def recording(messages):
        out = wire(messages)
        batches.append(out)
        return out

    monkeypatch.setattr(events, "wire", recording)
    return batches


def one_move(table_id: int, users: list) -> None:
    table = Table.objects.get(pk=table_id)
    state = state_of(table)
    seat = state.to_act
    view = registry.get(table.game).engine.view(state, seat)
    services.move_apply(table_id=table_id, user=users[seat], version=table.version, action=choose_action(view))


def play_until_late_in_a_round(table_id: int, users: list, *, entries: int) -> None:
    """Moves until the round in play has ``entries`` history entries and goes on (a round that ends early
    is confirmed and the next one played)."""
    for _ in range(2000):
        table = Table.objects.get(pk=table_id)
        state = state_of(table)
        if state.to_act is None:
            for seat in table.seats.all():
                if not seat.ready:
                    services.round_ready(table_id=table_id, user=seat.user)
            continue
        history = registry.get(table.game).engine.view(state, None)["history"]
        if len(history) >= entries:
            return
        one_move(table_id, users)
    raise AssertionError("no round got that long")


def state_messages(batch: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    return [(group, message) for group, message in batch if message.get("version") is not None]


def measure_moves(table: Table, users: list, wired, *, entries: int, moves: int = 6) -> list[tuple[int, int]]:
    """Play until late in a round, then ``moves`` ordinary moves: for each state message of each move, the
    bytes of the whole frame and of its delta (which must make exactly the whole frame)."""
    play_until_late_in_a_round(table.pk, users, entries=entries)
    before = {group: json.loads(message["text"]) for group, message in state_messages(wired[-1])}
    sizes = []
    for _ in range(moves):
        wired.clear()
        one_move(table.pk, users)
        (batch,) = wired
        if state_of(Table.objects.get(pk=table.pk)).to_act is None:
            break  # the round ended: not an ordinary move any more
        for group, message in state_messages(batch):
            whole, delta = json.loads(message["text"]), json.loads(message["delta"])
            assert (delta["version"], delta["after"]) == (whole["version"], whole["version"] - 1)
            assert events.apply_delta(before[group], delta) == whole  # the delta makes exactly the whole frame
            assert len(delta["history"]["append"]) >= 1 and delta["history"]["from"] >= entries
            sizes.append((len(message["text"].encode()), len(message["delta"].encode())))
            before[group] = whole
            if group == events.public_group(table.pk):
                assert sizes[-1][1] < DELTA_PUBLIC_MAX_BYTES, message["delta"]
    wholes, deltas = [w for w, _ in sizes], [d for _, d in sizes]
    print(f"\n{table.game}, {moves} moves after {entries} history entries, {len(sizes)} frames: whole "
          f"{min(wholes)}-{max(wholes)} bytes (mean {sum(wholes) // len(wholes)}), delta {min(deltas)}-{max(deltas)} "
          f"bytes (mean {sum(deltas) // len(deltas)})")
    assert len(sizes) >= 3 * len(before)  # at least three ordinary moves measured
    assert sizes and all(delta < DELTA_MAX_BYTES for _whole, delta in sizes), sizes
    # In all, a quarter of the bytes or less (the seat to act gets its own new meter and legal actions whole).
    assert sum(deltas) * 4 < sum(wholes), sizes
    return sizes


@pytest.mark.django_db(transaction=True)
def test_an_ordinary_gin_move_late_in_a_round_goes_as_a_small_delta(players, wired):
    table = services.table_create(user=players[0], game="gin", preset="klassisch", options={"target": 200})
    services.table_join(table_id=table.pk, user=players[1])
    sizes = measure_moves(table, players[:2], wired, entries=30)
    assert len(sizes) % 3 == 0  # two seats and the spectators


@pytest.mark.django_db(transaction=True)
def test_an_ordinary_romme_move_late_in_a_round_goes_as_a_small_delta(players, wired):
    table = services.table_create(user=players[0], game="romme", preset="standard", options={"seats": 3})
    for user in players[1:3]:
        services.table_join(table_id=table.pk, user=user)
    sizes = measure_moves(table, players[:3], wired, entries=30)
    assert len(sizes) % 4 == 0


@pytest.mark.django_db
def test_a_whole_frame_built_part_by_part_is_the_same_text(players):
    table = services.table_create(user=players[0], game="romme", preset="standard", options={"seats": 2})
    frames = [selectors.table_state_for(table_id=table.pk, user=players[0])]  # open: no view yet
    services.table_join(table_id=table.pk, user=players[1])
    frames += [selectors.table_state_for(table_id=table.pk, user=user) for user in (players[0], None)]
    assert frames[0]["view"] is None and frames[1]["view"]["hand"]
    for frame in frames:
        assert events.state_parts(frame).text() == events.frame_text(frame)
        assert events.state_parts(frame).digest == events.text_digest(events.frame_text(frame))


def test_a_delta_applies_only_to_the_version_it_follows():
    state = {"type": "state", "version": 7, "table": {"id": 1, "turn_deadline": "a"},
             "view": {"history": [{"seat": 0}], "hand": ["7H"], "legal_actions": [{"action": "draw"}]}}
    delta = {"type": "delta", "version": 8, "after": 7, "table": {"turn_deadline": "b"}, "view": {"hand": []},
             "drop": {"table": [], "view": ["legal_actions"]}, "history": {"from": 1, "append": [{"seat": 1}]}}
    made = events.apply_delta(state, delta)
    assert made == {"type": "state", "version": 8, "table": {"id": 1, "turn_deadline": "b"},
                    "view": {"history": [{"seat": 0}, {"seat": 1}], "hand": []}}
    assert state["view"]["hand"] == ["7H"] and len(state["view"]["history"]) == 1  # the base is left as it was
    with pytest.raises(ValueError, match="does not follow"):
        events.apply_delta({**state, "version": 6}, delta)  # a gap: the client asks for the whole state


async def next_state(socket: Socket) -> dict:
    """The next ``state`` or ``delta`` frame as it came (presence and chat skipped)."""
    while True:
        frame = await socket.communicator.receive_json_from(timeout=5)
        if frame["type"] in ("state", "delta"):
            return frame


@pytest.mark.django_db(transaction=True)
async def test_a_socket_gets_the_whole_state_first_then_deltas_and_the_whole_state_on_sync(players):
    anna_user, ben_user = players[:2]
    table = await sync_to_async(services.table_create)(user=anna_user, game="gin", preset="klassisch", options={})
    await sync_to_async(services.table_join)(table_id=table.pk, user=ben_user)
    anna = await Socket.open(table.pk, anna_user, deltas=True)
    ben = await Socket.open(table.pk, ben_user)  # an older client: it does not ask
    first = await anna.receive()
    assert first["type"] == "state" and anna.deltas == []  # the first frame is the whole state
    await ben.until(lambda f: f["type"] == "state")
    for step in range(4):
        await sync_to_async(one_move)(table.pk, players)
        version = first["version"] + step + 1
        made = await anna.until(lambda f, v=version: f["type"] == "state" and f["version"] == v)
        raw = anna.deltas[-1]
        assert (raw["type"], raw["version"], raw["after"]) == ("delta", version, version - 1)
        assert raw["history"]["from"] == len(made["view"]["history"]) - len(raw["history"]["append"])
        assert made == await sync_to_async(selectors.table_state_for)(table_id=table.pk, user=anna_user)
        await ben.until(lambda f, v=version: f["type"] == "state" and f["version"] == v)
    assert len(anna.deltas) == 4 and ben.deltas == []
    # sync: the whole state, as it always was, the same the deltas made.
    await anna.send({"type": "sync"})
    again = await next_state(anna)
    assert again == anna.state and again["type"] == "state"
    # A change whose version before went out from another process (nothing of it here): the whole frame.
    events._last_sent.clear()
    await sync_to_async(one_move)(table.pk, players)
    whole = await next_state(anna)
    assert whole["type"] == "state" and whole["version"] == again["version"] + 1
    anna.state = whole
    # ... and the next change a delta again.
    await sync_to_async(one_move)(table.pk, players)
    await anna.until(lambda f: f["type"] == "state" and f["version"] == whole["version"] + 1)
    assert anna.deltas[-1]["after"] == whole["version"]
    for socket in (anna, ben):
        await socket.close()


@pytest.mark.django_db(transaction=True)
async def test_a_socket_whose_last_state_is_not_the_base_gets_the_whole_frame(players, monkeypatch):
    """The delta goes only to a socket whose last state is byte for byte its base: here the socket's last
    state was not the one the group was sent (its digest forged), so the next change comes whole."""
    anna_user, ben_user = players[:2]
    table = await sync_to_async(services.table_create)(user=anna_user, game="gin", preset="klassisch", options={})
    await sync_to_async(services.table_join)(table_id=table.pk, user=ben_user)
    anna = await Socket.open(table.pk, anna_user, deltas=True)
    await anna.receive()
    wire = events.wire

    def other_digests(messages):
        return [(group, {**message, "base": "not-what-the-socket-holds"} if "delta" in message else message)
                for group, message in wire(messages)]

    monkeypatch.setattr(events, "wire", other_digests)
    await sync_to_async(one_move)(table.pk, players)
    frame = await next_state(anna)
    assert frame["type"] == "state" and frame["version"] == table.version + 2
    await anna.close()


@pytest.mark.django_db(transaction=True)
async def test_a_change_built_by_another_process_still_reaches_the_socket_as_a_delta(players, monkeypatch):
    """On the scaled stack the two seats of a table sit on different daphne processes, and the referee has its
    own: a state built elsewhere arrives whole, and this process makes the delta of it (once per group) from
    the state it saw the group get before."""
    anna_user, ben_user = players[:2]
    table = await sync_to_async(services.table_create)(user=anna_user, game="gin", preset="klassisch", options={})
    await sync_to_async(services.table_join)(table_id=table.pk, user=ben_user)
    anna = await Socket.open(table.pk, anna_user, deltas=True)
    sven = await Socket.open(table.pk, None, deltas=True)
    for socket in (anna, sven):
        await socket.until(lambda f: f["type"] == "state")
    here, elsewhere = events._last_sent, events._LastSent()
    wire = events.wire

    def built_elsewhere(messages):
        # What the other process sends: built from what it sent before (nothing of this table, at first).
        monkeypatch.setattr(events, "_last_sent", elsewhere)
        try:
            out = wire(messages)
        finally:
            monkeypatch.setattr(events, "_last_sent", here)
        return out

    version = anna.state["version"]
    await sync_to_async(one_move)(table.pk, players)  # built here: the sender's delta
    monkeypatch.setattr(events, "wire", built_elsewhere)
    for _step in (2, 3):  # built elsewhere: the first with no delta of the sender's, the second with one
        await sync_to_async(one_move)(table.pk, players)
    for socket, user in ((anna, anna_user), (sven, None)):
        await socket.until(lambda f: f["type"] == "state" and f["version"] == version + 3)
        assert [(d["after"], d["version"]) for d in socket.deltas] == [(version, version + 1), (version + 1, version + 2),
                                                                       (version + 2, version + 3)]
        assert socket.state == await sync_to_async(selectors.table_state_for)(table_id=table.pk, user=user)
    for socket in (anna, sven):
        await socket.close()


@pytest.mark.django_db(transaction=True)
async def test_a_frame_overtaken_by_a_newer_one_is_not_sent_so_the_page_never_turns_back(players, monkeypatch):
    """Two changes' messages reaching the socket's consumer newest first (one handed over in this process, the
    other still on its way through Redis, ``ginsite.layers``): the newer state goes out whole (its delta follows
    a state this socket never got), the older one not at all, and the next change follows the newer one."""
    from channels.layers import get_channel_layer

    anna_user, ben_user = players[:2]
    table = await sync_to_async(services.table_create)(user=anna_user, game="gin", preset="klassisch", options={})
    await sync_to_async(services.table_join)(table_id=table.pk, user=ben_user)
    anna = await Socket.open(table.pk, anna_user, deltas=True)
    version = (await anna.receive())["version"]
    held: list[list[tuple[str, dict]]] = []
    wire = events.wire

    def holding(messages):
        held.append(wire(messages))
        return []  # nothing sent now: the test delivers them below, in the other order

    monkeypatch.setattr(events, "wire", holding)
    for _ in range(2):
        await sync_to_async(one_move)(table.pk, players)
    monkeypatch.setattr(events, "wire", wire)
    layer = get_channel_layer()
    for batch in reversed(held):
        for group, message in batch:
            await layer.group_send(group, message)
    # Anna's own presence frame may come between them on a busy machine: the states are what is looked at.
    newer = await anna.until(lambda f: f["type"] == "state")
    assert newer["version"] == version + 2
    await sync_to_async(one_move)(table.pk, players)
    after = await anna.until(lambda f: f["type"] == "state")
    assert after["version"] == version + 3, "the overtaken state went out"
    assert [f["version"] for f in anna.frames if f["type"] == "state"] == [version, version + 2, version + 3]
    assert anna.deltas[-1]["after"] == version + 2  # the next change follows the newer state, as a delta
    assert anna.state == await sync_to_async(selectors.table_state_for)(table_id=table.pk, user=anna_user)
    await anna.close()


def test_entries_sent_before_keep_their_text_and_a_changed_entry_is_written_anew():
    """``StateParts(frame, like)``: the entries ``like`` holds at the same place, equal and in the same key
    order, take their text from it; the whole text is still exactly the frame's JSON."""
    def frame(version: int, history: list[dict]) -> dict:
        return {"type": "state", "version": version, "table": {"id": 3}, "view": {"history": history, "hand": ["7H"]}}

    before = events.state_parts(frame(1, [{"seat": 0, "action": "draw"}, {"seat": 0, "action": "discard", "card": "9S"}]))
    grown = frame(2, [{"seat": 0, "action": "draw"}, {"seat": 0, "action": "discard", "card": "9S"},
                      {"seat": 1, "action": "draw"}])
    after = events.state_parts(grown, like=before)
    assert after.text() == events.frame_text(grown)
    assert after.items["history"][0] is before.items["history"][0]  # taken, not written again
    assert after.items["history"][1] is before.items["history"][1]
    # A new round: the entry at the same place differs, so its text is its own.
    new_round = frame(3, [{"seat": 1, "action": "draw"}])
    again = events.state_parts(new_round, like=after)
    assert again.text() == events.frame_text(new_round) and again.items["history"][0] != after.items["history"][0]
    # The same entry with its keys in another order (PostgreSQL's jsonb sorts them) is written as it comes.
    reordered = frame(4, [{"action": "draw", "seat": 0}, {"seat": 0, "action": "discard", "card": "9S"}])
    other = events.state_parts(reordered, like=before)
    assert other.text() == events.frame_text(reordered)
    assert other.items["history"][0] == '{"action":"draw","seat":0}'


def test_the_audiences_of_one_change_share_the_texts_of_the_very_same_entries():
    """``wire``: a history entry or a value the seats' and the public frame hold as one object is serialised
    once for all of them; an audience's own entry (a seat's hand, a card only it saw) is its own text. Every
    frame's text is still exactly its JSON."""
    common = {"seat": 0, "action": "discard", "card": "9S"}
    options = {"knock": 10, "names": ["Anna", "Sven"]}
    seat = {"type": "state", "version": 5, "table": {"id": 3, "options": options},
            "view": {"history": [common, {"seat": 1, "action": "draw", "card": "KH"}], "hand": ["7H"]}}
    public = {"type": "state", "version": 5, "table": {"id": 3, "options": options},
              "view": {"history": [common, {"seat": 1, "action": "draw"}], "hand": None}}
    shared: dict[int, str] = {}
    mine = events.StateParts(seat, shared=shared)
    theirs = events.StateParts(public, shared=shared)
    assert mine.text() == events.frame_text(seat) and theirs.text() == events.frame_text(public)
    assert theirs.items["history"][0] is mine.items["history"][0]  # one text for the shared entry
    assert theirs.table["options"] is mine.table["options"]
    assert theirs.items["history"][1] == '{"seat":1,"action":"draw"}'  # the card stays out of the public text
    # Equal but not the same object: written anew (identity is the only thing ``shared`` trusts).
    copied = {**public, "view": {**public["view"], "history": [dict(common)]}}
    assert events.StateParts(copied, shared=shared).text() == events.frame_text(copied)


def _plain_frame(version: int, history: list[dict]) -> dict:
    return {"type": "state", "version": version, "table": {"id": 3, "seats": [{"user_id": 1}, {"user_id": 2}]},
            "view": {"history": history, "hand": ["7H"], "melds": [{"cards": ["2H", "3H", "4H"]}]}}


def _sent_from(process: events._LastSent, monkeypatch, group: str, frame: dict) -> dict:
    """``frame`` wired by ``process`` for ``group``, as another process reads it from Redis (channels-redis
    packs messages with msgpack: tuples arrive as lists)."""
    import msgpack

    monkeypatch.setattr(events, "_last_sent", process)
    [(_, message)] = events.wire([(group, {"type": "table.frame", "audience": "user", "frame": frame})])
    return msgpack.unpackb(msgpack.packb(message))


def test_a_state_built_elsewhere_is_made_a_delta_here_from_the_parts_it_travels_with_not_from_its_text(monkeypatch):
    """A state another process built (a seat's own move on its daphne) comes with its parts: the process that
    receives it makes its sockets' delta from them, the very delta that parsing the text again made, without
    reading the text at all."""
    group = "table.3.user.1"
    one = [{"seat": 0, "action": "draw"}]
    two = [*one, {"seat": 0, "action": "discard", "card": "9S"}]
    here, elsewhere = events._LastSent(), events._LastSent()
    first = _sent_from(here, monkeypatch, group, _plain_frame(1, one))
    second = _sent_from(elsewhere, monkeypatch, group, _plain_frame(2, two))
    assert "delta" not in second and second["parts"]["version"] == 2  # elsewhere never sent version 1
    parsed_here = events._LastSent()  # the same process, asked without the parts: it parses the text
    parsed_here.follow(group, events.StateParts(json.loads(first["text"])))
    by_text = parsed_here.received(group, {k: v for k, v in second.items() if k != "parts"}, first["digest"])
    unreadable = {**second, "text": "not the state's text"}
    by_parts = here.received(group, unreadable, first["digest"])
    assert by_parts is not None and by_parts == by_text
    assert events.apply_delta(json.loads(first["text"]), json.loads(by_parts)) == json.loads(second["text"])
    kept = here.newest(group)
    assert kept is not None and kept.digest == second["digest"] and kept.text() == second["text"]


def test_a_process_whose_socket_took_the_senders_delta_sends_the_next_change_as_a_delta_too(monkeypatch):
    """The two seats of a table sit on two daphne processes and the turn passes between them: the process
    whose socket used the other's delta keeps that state's parts, so its own next change to the group goes
    as a delta from it (before, as the whole state)."""
    group = "table.3.user.1"
    history = [{"seat": 0, "action": "draw"}]
    a, b = events._LastSent(), events._LastSent()
    v1 = _sent_from(a, monkeypatch, group, _plain_frame(1, history))
    b.received(group, v1, None)  # b's socket got the whole first state
    history = [*history, {"seat": 0, "action": "discard", "card": "9S"}]
    v2 = _sent_from(a, monkeypatch, group, _plain_frame(2, history))
    assert v2["base"] == v1["digest"]  # the sender's delta fits b's socket ...
    monkeypatch.setattr(events, "_last_sent", b)
    events.state_noted(group, v2)  # ... which takes it, and b keeps the parts
    history = [*history, {"seat": 1, "action": "draw"}]
    v3 = _sent_from(b, monkeypatch, group, _plain_frame(3, history))
    assert v3["base"] == v2["digest"]
    assert events.apply_delta(json.loads(v2["text"]), json.loads(v3["delta"])) == json.loads(v3["text"])


@pytest.mark.parametrize("length", [0, 1, 1999, 2000, 2001, 6000, 6001])
def test_a_texts_digest_fed_in_pieces_is_the_digest_of_the_whole_text(length):
    """``text_digest`` hashes in pieces shorter than those hashlib hashes without the GIL; the digest is the
    blake2b of the whole UTF-8 text all the same (a socket's base and the sender's digest must agree)."""
    import hashlib

    text = ("é" * length)[: length // 2] + "x" * (length - length // 2)
    assert events.text_digest(text) == hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


@pytest.mark.django_db(transaction=True)
async def test_a_sockets_move_is_framed_on_the_loop_where_every_database_call_shares_one_thread(players, monkeypatch):
    """Where the database calls share one thread (SQLite), the frames of a socket's move are serialised by the
    event loop, after the call (``events.framed_on_the_loop``): the database thread goes on with the next
    move meanwhile. With a pool of database threads (PostgreSQL), by the thread that made the change."""
    import threading

    from games.web import dbthread

    anna_user, ben_user = players[:2]
    table = await sync_to_async(services.table_create)(user=anna_user, game="gin", preset="klassisch", options={})
    await sync_to_async(services.table_join)(table_id=table.pk, user=ben_user)
    sockets = [await Socket.open(table.pk, user, deltas=True) for user in (anna_user, ben_user)]
    for socket in sockets:
        await socket.until(lambda f: f["type"] == "state")
    loop_thread = threading.current_thread()
    framed_on: list[threading.Thread] = []
    wire = events.wire

    def noting(messages):
        if any("frame" in message for _, message in messages):  # not yet wired
            framed_on.append(threading.current_thread())
        return wire(messages)

    monkeypatch.setattr(events, "wire", noting)
    current = await sync_to_async(Table.objects.get)(pk=table.pk)
    state = await sync_to_async(state_of)(current)
    seat = state.to_act
    view = registry.get(current.game).engine.view(state, seat)
    await sockets[seat].send({"type": "move", "version": current.version, "action": choose_action(view)})
    for socket in sockets:
        made = await socket.until(lambda f, v=current.version + 1: f["type"] == "state" and f["version"] == v)
        assert made == await sync_to_async(selectors.table_state_for)(table_id=table.pk, user=socket.user)
    assert framed_on, "the move's frames were wired"
    on_the_loop = await sync_to_async(dbthread.parallel)() is False
    assert events.framed_on_the_loop() is on_the_loop
    assert all((thread is loop_thread) is on_the_loop for thread in framed_on), framed_on
    for socket in sockets:
        await socket.close()


@pytest.mark.django_db(transaction=True)
async def test_a_frame_for_a_group_nobody_is_in_is_not_serialised_and_a_watcher_who_comes_gets_the_next(players, monkeypatch):
    """With the in-memory layer (one process: it knows every socket), a change's frame for a group without
    members (the public one of a table nobody watches) is never wired; once a spectator watches, it is."""
    from channels.layers import get_channel_layer

    if not hasattr(get_channel_layer(), "heard"):
        pytest.skip("only a layer that knows every socket of the site (the in-memory one) can tell")
    anna_user, ben_user, sven_user = players[:3]
    table = await sync_to_async(services.table_create)(user=anna_user, game="gin", preset="klassisch", options={})
    await sync_to_async(services.table_join)(table_id=table.pk, user=ben_user)
    sockets = [await Socket.open(table.pk, user, deltas=True) for user in (anna_user, ben_user)]
    for socket in sockets:
        await socket.until(lambda f: f["type"] == "state")
    wired_for: list[str] = []
    wire = events.wire

    def noting(messages):
        wired_for.extend(group for group, message in messages if "frame" in message)
        return wire(messages)

    monkeypatch.setattr(events, "wire", noting)

    async def socket_move() -> int:
        current = await sync_to_async(Table.objects.get)(pk=table.pk)
        state = await sync_to_async(state_of)(current)
        view = registry.get(current.game).engine.view(state, state.to_act)
        await sockets[state.to_act].send({"type": "move", "version": current.version, "action": choose_action(view)})
        for socket in sockets:
            await socket.until(lambda f, v=current.version + 1: f["type"] == "state" and f["version"] == v)
        return current.version + 1

    public = events.public_group(table.pk)
    await socket_move()
    assert public not in wired_for
    assert {events.user_group(table.pk, user.pk) for user in (anna_user, ben_user)} <= set(wired_for)
    sven = await Socket.open(table.pk, sven_user, deltas=True)
    watching = await sven.until(lambda f: f["type"] == "state")
    assert watching == await sync_to_async(selectors.table_state_for)(table_id=table.pk, user=sven_user)
    wired_for.clear()
    version = await socket_move()
    assert public in wired_for
    seen = await sven.until(lambda f: f["type"] == "state" and f["version"] == version)
    assert seen == await sync_to_async(selectors.table_state_for)(table_id=table.pk, user=sven_user)
    for socket in (*sockets, sven):
        await socket.close()
