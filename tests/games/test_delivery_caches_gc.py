"""What the delivery caches keep between a table's versions costs every full collection of a serving process
(ginsite/collector.py, docs/scale.md "Garbage collection"): the parts kept per group for the next delta keep
texts and tuples, no parsed dicts or lists of the frame; and a table's kept snapshot goes once a socket of
this process sees a newer version of the table."""

from __future__ import annotations

import gc
import json
import types

import pytest
from asgiref.sync import sync_to_async

from games import services
from games.delivery import events, framecache
from games.models import Table
from games.reads import selectors
from tests.games.helpers import Socket
from tests.games.test_delta_frames import one_move, play_until_late_in_a_round


def tracked_containers(root: object) -> dict[str, int]:
    """The objects reachable from ``root`` that the garbage collector still tracks, by type."""
    seen: set[int] = set()
    found: dict[str, int] = {}
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType, types.FunctionType)):
            continue
        seen.add(id(obj))
        if gc.is_tracked(obj):
            found[type(obj).__name__] = found.get(type(obj).__name__, 0) + 1
        stack.extend(gc.get_referents(obj))
    return found


@pytest.fixture(autouse=True)
def _fresh():
    events._last_sent.clear()
    framecache.clear()
    yield
    events._last_sent.clear()
    framecache.clear()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("game", "preset", "options"), [("gin", "klassisch", {"target": 200}),
                                                         ("romme", "standard", {"seats": 2})])
def test_the_parts_kept_for_the_next_delta_hold_no_dict_or_list_of_the_frame(players, game, preset, options,
                                                                            monkeypatch):
    table = services.table_create(user=players[0], game=game, preset=preset, options=options)
    services.table_join(table_id=table.pk, user=players[1])
    play_until_late_in_a_round(table.pk, players[:2], entries=30)
    one_move(table.pk, players[:2])
    kept = list(events._last_sent.parts.values())
    assert len(kept) == 3  # two seats and the spectators
    assert all(parts.texts_of("history") for parts in kept)  # a history to follow, kept as texts
    for _ in range(6):  # each collection stops tracking one more level of the nested tuples
        gc.collect()
    found = tracked_containers(kept)
    assert "dict" not in found, found
    assert found.get("list", 0) == 1, found  # ``kept`` itself
    assert found.get("StateParts") == 3, found
    # ... and the next version still goes as deltas, each making the whole frame from the one before.
    before = {group: json.loads(parts.text()) for group, parts in events._last_sent.parts.items()}
    wired: list = []
    wire = events.wire
    monkeypatch.setattr(events, "wire", lambda messages: wired.extend(wire(messages)) or wired)
    one_move(table.pk, players[:2])
    states = [(group, message) for group, message in wired if message.get("version") is not None]
    assert len(states) == 3
    for group, message in states:
        assert message["delta"] is not None, group
        assert events.apply_delta(before[group], json.loads(message["delta"])) == json.loads(message["text"])


@pytest.mark.django_db
def test_a_kept_snapshot_goes_when_the_table_moved_past_it_and_stays_at_its_version(players):
    table = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
    services.table_join(table_id=table.pk, user=players[1])
    selectors.table_state_for(table_id=table.pk, user=players[0])
    version = Table.objects.get(pk=table.pk).version
    assert framecache.snapshot_at(Table.objects.get(pk=table.pk)) is not None
    framecache.moved(table.pk, version)
    assert framecache.snapshot_at(Table.objects.get(pk=table.pk)) is not None
    framecache.moved(table.pk, version + 1)
    assert table.pk not in framecache._entries


@pytest.mark.django_db(transaction=True)
async def test_a_socket_given_a_newer_version_drops_the_snapshot_kept_for_the_older(players):
    anna_user, ben_user = players[:2]
    table = await sync_to_async(services.table_create)(user=anna_user, game="gin", preset="klassisch", options={})
    await sync_to_async(services.table_join)(table_id=table.pk, user=ben_user)
    anna = await Socket.open(table.pk, anna_user)
    first = await anna.until(lambda f: f["type"] == "state")
    assert framecache._entries[table.pk].key[2] == first["version"]  # kept by the handshake
    await sync_to_async(one_move)(table.pk, players)
    await anna.until(lambda f: f["type"] == "state" and f["version"] == first["version"] + 1)
    assert table.pk not in framecache._entries
    await anna.close()
