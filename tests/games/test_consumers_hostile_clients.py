"""An independent review of the table socket as a hostile or clumsy client drives it: every message type of
docs/protocol.md with wrong fields, wrong senders and wrong moments must come back as a typed ``error``,
leave the socket usable and leave the database exactly as it was."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async

from games import registry, services
from games.models import ChatMessage, Match, Move, Round, Seat, Table
from games.web import consumers
from tests.games.helpers import Socket, choose_action, play_out, state_of

pytestmark = pytest.mark.django_db(transaction=True)

create_table = sync_to_async(services.table_create)
join_table = sync_to_async(services.table_join)

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


@sync_to_async
def database_picture(table_id: int) -> dict:
    """Everything a refused message must leave untouched."""
    table = Table.objects.get(pk=table_id)
    return {
        "version": table.version,
        "status": table.status,
        "state": table.state,
        "deadline": table.turn_deadline,
        "moves": list(Move.objects.filter(table_id=table_id).values_list("seq", "action", "by")),
        "chat": list(ChatMessage.objects.filter(table_id=table_id).values_list("user_id", "text")),
        "seats": list(
            Seat.objects.filter(table_id=table_id)
            .order_by("index")
            .values_list("user_id", "bot_level", "left", "ready", "consecutive_timeouts")
        ),
        "matches": list(Match.objects.filter(table_id=table_id).values_list("number", "status")),
        "rounds": Round.objects.filter(match__table_id=table_id).count(),
    }


def is_state(frame: dict) -> bool:
    return frame["type"] == "state"


async def open_table(players, spectator):
    """A casual gin table with anna seated and waiting; ben (signed in) and an anonymous visitor watch."""
    table = await create_table(user=players[0], game="gin", preset="schnell", options={})
    anna = await Socket.open(table.pk, players[0])
    ben = await Socket.open(table.pk, players[1])
    anonymous = await Socket.open(table.pk)
    for socket in (anna, ben, anonymous):
        await socket.until(is_state)
    return table, {"anna": anna, "ben": ben, "anonymous": anonymous}


async def running_table(players, spectator, *, preset="schnell", options=None):
    """A gin match in its first turn: ``actor`` is to act, ``waiter`` the other seated player, ``sven`` a
    signed-in spectator, ``anonymous`` a visitor without an account."""
    table = await create_table(user=players[0], game="gin", preset=preset, options=options or {})
    await join_table(table_id=table.pk, user=players[1])
    anna = await Socket.open(table.pk, players[0])
    ben = await Socket.open(table.pk, players[1])
    sven = await Socket.open(table.pk, spectator)
    anonymous = await Socket.open(table.pk)
    for socket in (anna, ben, sven, anonymous):
        await socket.until(is_state)
    to_act = anna.state["view"]["to_act"]
    actor, waiter = (anna, ben) if to_act == 0 else (ben, anna)
    return table, {"actor": actor, "waiter": waiter, "sven": sven, "anonymous": anonymous}


async def close_all(sockets: dict) -> None:
    for socket in sockets.values():
        await socket.close()


async def send_raw(socket: Socket, message) -> None:
    text = message if isinstance(message, str) else json.dumps(message)
    # send_input, not send_to: the test client refuses to send an empty text frame, a browser does not.
    await socket.communicator.send_input({"type": "websocket.receive", "text": text})


async def refused(socket: Socket, message, code: str, table_id: int, before: dict) -> dict:
    """Send ``message``; expect one typed error ``code`` with a German reason and the current version, a socket
    that still answers, and a database that did not change."""
    case = f"{socket.name} sent {str(message)[:120]!r}"
    await send_raw(socket, message)
    error = await socket.until(lambda f: f["type"] == "error")
    assert error["code"] == code, (case, error)
    assert isinstance(error["message"], str) and len(error["message"]) > 5, case
    assert error["version"] == before["version"], (case, error)
    await socket.send({"type": "ping"})
    assert (await socket.until(lambda f: f["type"] == "pong"))["version"] == before["version"], case
    assert await database_picture(table_id) == before, case
    return error


async def first_legal_move_works(socket: Socket, table_id: int) -> None:
    """The socket is still good for play: the first legal action goes through and bumps the version."""
    await socket.send({"type": "sync"})
    state = await socket.until(is_state)
    version = state["version"]
    await socket.send({"type": "move", "version": version, "action": state["view"]["legal_actions"][0]})
    await socket.until_version(version + 1)
    assert (await database_picture(table_id))["version"] == version + 1


# --- not a message at all -------------------------------------------------------------------------------

GARBAGE = [
    "not json",
    "{",
    "",
    "null",
    "42",
    '"move"',
    "[]",
    '[{"type": "sync"}]',
    "NaN",
    "{}",
    '{"type": null}',
    '{"type": 5}',
    '{"type": ["move"]}',
    '{"type": {"type": "move"}}',
    '{"type": "dance"}',
    '{"type": "MOVE"}',
    '{"type": "on_move"}',
    '{"type": "__init__"}',
    '{"type": "HANDLERS"}',
]


async def test_a_message_that_is_not_a_known_json_object_is_a_bad_message(players, spectator):
    table, sockets = await running_table(players, spectator)
    before = await database_picture(table.pk)
    for raw in GARBAGE:
        for who in ("actor", "anonymous"):
            await refused(sockets[who], raw, "bad_message", table.pk, before)
    await first_legal_move_works(sockets["actor"], table.pk)
    await close_all(sockets)


async def test_a_binary_frame_is_a_bad_message_and_the_socket_plays_on(players, spectator):
    table, sockets = await running_table(players, spectator)
    before = await database_picture(table.pk)
    await sockets["actor"].communicator.send_to(bytes_data=json.dumps({"type": "sync"}).encode())
    error = await sockets["actor"].until(lambda f: f["type"] == "error")
    assert error["code"] == "bad_message" and error["version"] == before["version"]
    assert await database_picture(table.pk) == before
    await first_legal_move_works(sockets["actor"], table.pk)
    await close_all(sockets)


async def test_a_message_over_4096_bytes_is_too_large(players, spectator):
    table, sockets = await running_table(players, spectator)
    before = await database_picture(table.pk)
    for message in (
        {"type": "chat", "text": "x" * 5000},
        {"type": "sync", "padding": "ü" * 2100},  # 4200 bytes of UTF-8 in 2100 characters
        {"type": "move", "version": before["version"], "action": {"action": "draw", "from": "stock", "x": "y" * 4100}},
        "x" * 100_000,
    ):
        await refused(sockets["actor"], message, "too_large", table.pk, before)
    await first_legal_move_works(sockets["actor"], table.pk)
    await close_all(sockets)


async def test_deeply_nested_json_under_the_size_limit_is_a_bad_message(players, spectator):
    table, sockets = await running_table(players, spectator)
    before = await database_picture(table.pk)
    raw = "[" * 2000 + "]" * 2000  # 4000 bytes: under the limit, but 2000 levels deep
    await refused(sockets["actor"], raw, "bad_message", table.pk, before)
    await close_all(sockets)


async def test_a_deeply_nested_action_is_refused_with_a_typed_error(players, spectator):
    table, sockets = await running_table(players, spectator)
    before = await database_picture(table.pk)
    version = before["version"]
    nested = "[" * 300 + "]" * 300
    raw = f'{{"type": "move", "version": {version}, "action": {{"action": "draw", "from": {nested}}}}}'
    error = await refused(sockets["actor"], raw, "illegal_action", table.pk, before)
    assert "stock" in error["message"]
    await first_legal_move_works(sockets["actor"], table.pk)
    await close_all(sockets)


# --- move ----------------------------------------------------------------------------------------------


def _move(version, action) -> dict:
    return {"type": "move", "version": version, "action": action}


DRAW = {"action": "draw", "from": "stock"}
VERSION = object()  # stands for the table's current version

BAD_MOVES = [
    ("no version", {"type": "move", "action": DRAW}, "bad_message"),
    ("version null", _move(None, DRAW), "bad_message"),
    ("version text", _move("VERSION", DRAW), "bad_message"),
    ("version list", _move([VERSION], DRAW), "bad_message"),
    ("version object", _move({"v": VERSION}, DRAW), "bad_message"),
    ("version true", _move(True, DRAW), "bad_message"),
    ("version float", _move(1.5, DRAW), "bad_message"),
    ("version huge", _move(10**40, DRAW), "stale_version"),
    ("version negative", _move(-1, DRAW), "stale_version"),
    ("version old", _move(0, DRAW), "stale_version"),
    ("no action", {"type": "move", "version": VERSION}, "bad_message"),
    ("action null", _move(VERSION, None), "bad_message"),
    ("action text", _move(VERSION, "draw"), "bad_message"),
    ("action list", _move(VERSION, [DRAW]), "bad_message"),
    ("action number", _move(VERSION, 7), "bad_message"),
    ("action empty", _move(VERSION, {}), "bad_message"),
    ("action kind number", _move(VERSION, {"action": 1}), "bad_message"),
    ("action kind null", _move(VERSION, {"action": None, "from": "stock"}), "bad_message"),
    ("unknown action", _move(VERSION, {"action": "cheat"}), "illegal_action"),
    ("draw without from", _move(VERSION, {"action": "draw"}), "illegal_action"),
    ("draw from a list", _move(VERSION, {"action": "draw", "from": ["stock"]}), "illegal_action"),
    ("draw from null", _move(VERSION, {"action": "draw", "from": None}), "illegal_action"),
    ("draw from nowhere", _move(VERSION, {"action": "draw", "from": "hand"}), "illegal_action"),
    ("draw with a forged seat", _move(VERSION, {"action": "draw", "from": "stock", "seat": 1}), "illegal_action"),
    ("discard before drawing", _move(VERSION, {"action": "discard", "card": "KS"}), "illegal_action"),
    ("knock before drawing", _move(VERSION, {"action": "knock", "card": "KS"}), "illegal_action"),
    ("big gin unasked", _move(VERSION, {"action": "big_gin"}), "illegal_action"),
    ("pass in a free first turn", _move(VERSION, {"action": "pass"}), "illegal_action"),
    ("a Rommé lay-out at a gin table", _move(VERSION, {"action": "lay_out", "melds": [["7H", "8H", "9H"]]}),
     "illegal_action"),
    ("a Rommé lay-off at a gin table", _move(VERSION, {"action": "lay_off", "card": "7H", "meld": 0}),
     "illegal_action"),
    ("an action over 2048 bytes", _move(VERSION, {"action": "draw", "from": "stock", "x": "y" * 2100}), "too_large"),
]


def _fill_version(value, version):
    if value is VERSION or value == "VERSION":
        return version if value is VERSION else str(version)
    if isinstance(value, dict):
        return {k: _fill_version(v, version) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill_version(v, version) for v in value]
    return value


async def test_a_malformed_or_illegal_move_of_the_seat_to_act_changes_nothing(players, spectator):
    table, sockets = await running_table(players, spectator)
    before = await database_picture(table.pk)
    for _case, message, code in BAD_MOVES:
        await refused(sockets["actor"], _fill_version(message, before["version"]), code, table.pk, before)
    await first_legal_move_works(sockets["actor"], table.pk)
    await close_all(sockets)


async def test_a_stale_version_gets_the_error_then_the_whole_current_state(players, spectator):
    table, sockets = await running_table(players, spectator)
    actor = sockets["actor"]
    before = await database_picture(table.pk)
    await actor.send(_move(before["version"] - 1, DRAW))
    error = await actor.until(lambda f: f["type"] != "presence")
    assert error["code"] == "stale_version" and str(before["version"]) in error["message"]
    state = await actor.until(lambda f: f["type"] != "presence")
    assert state["type"] == "state" and state["version"] == before["version"] and state["view"]["legal_actions"]
    assert await database_picture(table.pk) == before
    await first_legal_move_works(actor, table.pk)
    await close_all(sockets)


@pytest.mark.parametrize(
    ("who", "code"), [("waiter", "not_your_turn"), ("sven", "not_seated"), ("anonymous", "not_seated")]
)
async def test_a_move_by_anyone_but_the_seat_to_act_is_refused(players, spectator, who, code):
    table, sockets = await running_table(players, spectator)
    before = await database_picture(table.pk)
    # The move the seat to act could make, copied by someone else with the right version.
    action = sockets["actor"].state["view"]["legal_actions"][0]
    await refused(sockets[who], _move(before["version"], action), code, table.pk, before)
    await first_legal_move_works(sockets["actor"], table.pk)
    await close_all(sockets)


async def test_a_seat_out_of_turn_is_sent_the_current_state_after_the_error(players, spectator):
    table, sockets = await running_table(players, spectator)
    waiter = sockets["waiter"]
    version = waiter.state["version"]
    await waiter.send(_move(version, DRAW))
    assert (await waiter.until(lambda f: f["type"] != "presence"))["code"] == "not_your_turn"
    state = await waiter.until(lambda f: f["type"] != "presence")
    assert state["type"] == "state" and state["version"] == version and "legal_actions" not in state["view"]
    await close_all(sockets)


async def test_a_card_not_held_cannot_be_discarded(players, spectator):
    table, sockets = await running_table(players, spectator)
    actor = sockets["actor"]
    await first_legal_move_works(actor, table.pk)  # draws
    state = actor.state
    assert state["view"]["phase"] == "discard"
    hand = list(state["view"]["hand"])
    other_hand = set(sockets["waiter"].state["view"]["hand"])
    before = await database_picture(table.pk)
    for card in (sorted(other_hand)[0], "XX", "", "ks", "10S", ["KS"], 5, None):
        assert card not in hand
        for kind in ("discard", "knock"):
            error = await refused(actor, _move(before["version"], {"action": kind, "card": card}), "illegal_action",
                                  table.pk, before)
            assert error["message"].startswith("Dieser Zug geht nicht")
    await first_legal_move_works(actor, table.pk)
    await close_all(sockets)


# --- the other message types on a running table ---------------------------------------------------------

RUNNING_REFUSALS = [
    ("actor", {"type": "ready"}, "not_between_rounds"),
    ("actor", {"type": "ready", "version": "x"}, "bad_message"),
    ("actor", {"type": "ready", "version": [1]}, "bad_message"),
    ("actor", {"type": "ready", "version": -5}, "stale_version"),
    ("sven", {"type": "ready"}, "not_seated"),
    ("anonymous", {"type": "ready"}, "not_seated"),
    ("actor", {"type": "join"}, "not_open"),
    ("sven", {"type": "join"}, "not_open"),
    ("sven", {"type": "join", "seat": 0}, "not_open"),
    ("anonymous", {"type": "join"}, "not_signed_in"),
    ("actor", {"type": "leave"}, "match_running"),
    ("sven", {"type": "leave"}, "not_seated"),
    ("actor", {"type": "bots", "level": "expert"}, "not_open"),
    ("actor", {"type": "bots", "level": "godlike"}, "bad_message"),
    ("actor", {"type": "bots", "level": ["expert"]}, "bad_message"),
    ("actor", {"type": "start"}, "not_open"),
    ("anonymous", {"type": "start"}, "not_open"),
    ("actor", {"type": "rematch"}, "not_finished"),
    ("sven", {"type": "resign"}, "not_seated"),
    ("anonymous", {"type": "resign"}, "not_seated"),
    ("sven", {"type": "abort"}, "not_seated"),
    ("anonymous", {"type": "abort"}, "not_seated"),
    ("actor", {"type": "chat"}, "bad_message"),
    ("actor", {"type": "chat", "text": ""}, "bad_message"),
    ("actor", {"type": "chat", "text": "   \n\t "}, "bad_message"),
    ("actor", {"type": "chat", "text": None}, "bad_message"),
    ("actor", {"type": "chat", "text": ["hallo"]}, "bad_message"),
    ("actor", {"type": "chat", "text": {"text": "hallo"}}, "bad_message"),
    ("actor", {"type": "chat", "text": 42}, "bad_message"),
    ("actor", {"type": "chat", "text": "x" * 301}, "chat_too_long"),
    ("sven", {"type": "chat", "text": "hallo"}, "not_seated"),
    ("anonymous", {"type": "chat", "text": "hallo"}, "not_seated"),
]


async def test_a_message_out_of_place_at_a_running_table_changes_nothing(players, spectator):
    table, sockets = await running_table(players, spectator)
    before = await database_picture(table.pk)
    for who, message, code in RUNNING_REFUSALS:
        await refused(sockets[who], message, code, table.pk, before)
    await first_legal_move_works(sockets["actor"], table.pk)
    await close_all(sockets)


OPEN_REFUSALS = [
    ("anna", {"type": "join"}, "already_seated"),
    ("ben", {"type": "join", "seat": 0}, "seat_taken"),
    ("ben", {"type": "join", "seat": 2}, "bad_message"),
    ("ben", {"type": "join", "seat": -1}, "bad_message"),
    ("ben", {"type": "join", "seat": 10**30}, "bad_message"),
    ("ben", {"type": "join", "seat": "1"}, "bad_message"),
    ("ben", {"type": "join", "seat": 1.0}, "bad_message"),
    ("ben", {"type": "join", "seat": True}, "bad_message"),
    ("ben", {"type": "join", "seat": [1]}, "bad_message"),
    ("ben", {"type": "join", "seat": {"index": 1}}, "bad_message"),
    ("anonymous", {"type": "join", "seat": 1}, "not_signed_in"),
    ("ben", {"type": "leave"}, "not_seated"),
    ("anonymous", {"type": "leave"}, "not_seated"),
    ("ben", {"type": "bots", "level": "simple"}, "not_seated"),
    ("anonymous", {"type": "bots"}, "not_seated"),
    ("anna", {"type": "bots", "level": "godlike"}, "bad_message"),
    ("anna", {"type": "start"}, "seats_free"),
    ("ben", {"type": "start"}, "not_seated"),
    ("anna", {"type": "move", "version": 1, "action": DRAW}, "not_playing"),
    ("anna", {"type": "ready"}, "not_playing"),
    ("anna", {"type": "resign"}, "not_playing"),
    ("anna", {"type": "abort"}, "not_playing"),
    ("anna", {"type": "rematch"}, "not_finished"),
]


async def test_a_message_out_of_place_at_an_open_table_changes_nothing(players, spectator):
    table, sockets = await open_table(players, spectator)
    before = await database_picture(table.pk)
    for who, message, code in OPEN_REFUSALS:
        await refused(sockets[who], message, code, table.pk, before)
    # Still usable: ben takes the free seat and the match starts.
    await sockets["ben"].send({"type": "join", "seat": 1})
    started = await sockets["ben"].until(lambda f: is_state(f) and f["table"]["status"] == "playing")
    assert started["table"]["you"] == 1
    await close_all(sockets)


async def test_a_bots_level_of_the_wrong_type_is_a_bad_message(players, spectator):
    table, sockets = await open_table(players, spectator)
    before = await database_picture(table.pk)
    for level in ({}, 0, False, [], None, "", "Simple"):
        await refused(sockets["anna"], {"type": "bots", "level": level}, "bad_message", table.pk, before)
    await close_all(sockets)


# --- resign, abort, chat ---------------------------------------------------------------------------------


async def test_resigning_twice_is_refused_the_second_time(players, spectator):
    table, sockets = await running_table(players, spectator)
    waiter = sockets["waiter"]
    await waiter.send({"type": "resign"})
    finished = await waiter.until(lambda f: is_state(f) and f["table"]["status"] == "finished")
    assert finished["table"]["match"]["result"]["winner"] == sockets["actor"].state["table"]["you"]
    before = await database_picture(table.pk)
    await refused(waiter, {"type": "resign"}, "not_playing", table.pk, before)
    await refused(sockets["actor"], {"type": "resign"}, "not_playing", table.pk, before)
    await refused(waiter, {"type": "abort"}, "not_playing", table.pk, before)
    # A rematch needs everyone: the one who resigned left the match.
    await refused(sockets["actor"], {"type": "rematch"}, "seat_left", table.pk, before)
    await refused(sockets["sven"], {"type": "rematch"}, "not_seated", table.pk, before)
    await close_all(sockets)


async def test_abort_after_the_first_move_is_refused(players, spectator):
    table, sockets = await running_table(players, spectator)
    await first_legal_move_works(sockets["actor"], table.pk)
    before = await database_picture(table.pk)
    for who in ("actor", "waiter"):
        await refused(sockets[who], {"type": "abort"}, "match_started", table.pk, before)
    await first_legal_move_works(sockets["actor"], table.pk)  # still the actor: a draw, then the discard
    await close_all(sockets)


async def test_abort_before_the_first_move_calls_the_match_off(players, spectator):
    table, sockets = await running_table(players, spectator)
    await sockets["waiter"].send({"type": "abort"})
    frame = await sockets["sven"].until(lambda f: is_state(f) and f["table"]["status"] == "aborted")
    assert frame["table"]["match"]["status"] == "aborted" and frame["table"]["match"]["result"] is None
    before = await database_picture(table.pk)
    await refused(sockets["actor"], _move(before["version"], DRAW), "not_playing", table.pk, before)
    await close_all(sockets)


async def test_chat_html_comes_back_as_plain_text_to_everyone(players, spectator):
    # The protocol carries text, not markup: the client renders it with textContent, the server never
    # escapes it (an escaped line would show "&lt;" to anyone who types "<").
    table, sockets = await running_table(players, spectator)
    text = '<script>alert("x")</script><img src=x onerror=alert(1)> &amp; 3 < 4'
    await sockets["actor"].send({"type": "chat", "text": text})
    for socket in sockets.values():
        line = await socket.until(lambda f: f["type"] == "chat")
        assert line["text"] == text
    stored = await sync_to_async(lambda: list(ChatMessage.objects.values_list("text", flat=True)))()
    assert stored == [text]  # kept as typed; escaped where it is shown
    await close_all(sockets)


async def _chat_is_posted_or_refused(players, spectator, texts) -> None:
    table, sockets = await running_table(players, spectator)
    actor = sockets["actor"]
    for text in texts:
        before = await database_picture(table.pk)
        await actor.send({"type": "chat", "text": text})
        reply = await actor.until(lambda f: f["type"] in ("chat", "error"))
        assert reply["type"] == "chat" or reply["code"] == "bad_message", (text, reply)
        if reply["type"] == "error":
            assert await database_picture(table.pk) == before
    await first_legal_move_works(actor, table.pk)
    await close_all(sockets)


async def test_chat_with_unusual_characters_is_posted_or_refused_but_never_a_server_error(players, spectator):
    await _chat_is_posted_or_refused(players, spectator, ("\u200b", "\ud83c\udccf Joker", "a\u202eb", "\t\x07"))


async def test_chat_with_a_nul_character_is_posted_or_refused_but_never_a_server_error(players, spectator):
    await _chat_is_posted_or_refused(players, spectator, ("a\x00b", "\x00"))


async def test_a_chat_line_of_exactly_300_characters_is_posted(players, spectator):
    table, sockets = await running_table(players, spectator)
    await sockets["actor"].send({"type": "chat", "text": "ä" * 300})
    line = await sockets["sven"].until(lambda f: f["type"] == "chat")
    assert line["text"] == "ä" * 300
    await close_all(sockets)


async def test_chat_flooding_is_rate_limited_after_five_lines(players, spectator):
    table, sockets = await running_table(players, spectator)
    actor = sockets["actor"]
    for n in range(5):
        await actor.send({"type": "chat", "text": f"Zeile {n}"})
        assert (await actor.until(lambda f: f["type"] in ("chat", "error")))["type"] == "chat"
    before = await database_picture(table.pk)
    for _ in range(3):
        await refused(actor, {"type": "chat", "text": "noch eine"}, "chat_rate_limited", table.pk, before)
    # The limit is per person: the other player may still talk, and the flooder may still play.
    await sockets["waiter"].send({"type": "chat", "text": "ruhig"})
    reply = await sockets["waiter"].until(lambda f: f["type"] == "error" or f.get("text") == "ruhig")
    assert reply["type"] == "chat"
    await first_legal_move_works(actor, table.pk)
    await close_all(sockets)


async def test_chat_is_off_at_a_tournament_table(players, spectator):
    table = await create_table(user=players[0], game="romme", preset="turnier", options={"seats": 2})
    await join_table(table_id=table.pk, user=players[1])
    anna = await Socket.open(table.pk, players[0])
    state = await anna.until(is_state)
    assert state["table"]["chat"] is False
    before = await database_picture(table.pk)
    await refused(anna, {"type": "chat", "text": "Hallo"}, "chat_off", table.pk, before)
    await anna.close()


async def test_gin_actions_at_a_romme_table_are_illegal(players):
    table = await create_table(user=players[0], game="romme", options={"seats": 2})
    await join_table(table_id=table.pk, user=players[1])
    sockets = {"anna": await Socket.open(table.pk, players[0]), "ben": await Socket.open(table.pk, players[1])}
    for socket in sockets.values():
        await socket.until(is_state)
    actor = sockets["anna"] if sockets["anna"].state["view"]["to_act"] == 0 else sockets["ben"]
    before = await database_picture(table.pk)
    version = before["version"]
    for action in ({"action": "pass"}, {"action": "big_gin"}, {"action": "knock", "card": "KS"},
                   {"action": "lay_out", "melds": "alle"}, {"action": "lay_out", "melds": [[None]]}):
        await refused(actor, _move(version, action), "illegal_action", table.pk, before)
    await first_legal_move_works(actor, table.pk)
    await close_all(sockets)


@sync_to_async
def play_to_the_round_break(table_id: int, users: list) -> None:
    for _ in range(500):
        table = Table.objects.get(pk=table_id)
        state = state_of(table)
        if state.to_act is None:
            return
        view = registry.get(table.game).engine.view(state, state.to_act)
        services.move_apply(table_id=table_id, user=users[state.to_act], version=table.version,
                            action=choose_action(view))
    raise AssertionError("the round did not end")


async def test_a_second_ready_changes_nothing(players, spectator):
    table, sockets = await running_table(players, spectator, preset="klassisch")
    await play_to_the_round_break(table.pk, players[:2])
    actor = sockets["actor"]
    await actor.send({"type": "sync"})
    state = await actor.until(lambda f: is_state(f) and f["view"]["to_act"] is None)
    await actor.send({"type": "ready"})
    await actor.until_version(state["version"] + 1)
    before = await database_picture(table.pk)
    await actor.send({"type": "ready"})
    await actor.send({"type": "ping"})
    await actor.until(lambda f: f["type"] == "pong")
    assert await database_picture(table.pk) == before
    await close_all(sockets)


async def test_a_second_rematch_request_changes_nothing(players, spectator):
    table, sockets = await running_table(players, spectator)
    await sync_to_async(play_out)(table.pk, players[:2])
    actor = sockets["actor"]
    await actor.send({"type": "rematch"})
    await actor.until(lambda f: is_state(f) and f["table"]["status"] == "finished"
                      and any(seat["ready"] for seat in f["table"]["seats"]))
    before = await database_picture(table.pk)
    # The spectator's copy of that change travels apart from the actor's (on Redis, possibly later): the
    # refusal is checked on a socket that holds it, so its pong's version is the table's.
    await sockets["sven"].until_version(before["version"])
    await refused(sockets["sven"], {"type": "rematch"}, "not_seated", table.pk, before)
    await actor.send({"type": "rematch"})
    await actor.send({"type": "ping"})
    await actor.until(lambda f: f["type"] == "pong")
    assert await database_picture(table.pk) == before
    await close_all(sockets)


# --- sockets that may not open -----------------------------------------------------------------------------


@pytest.mark.parametrize("table_id", [999999, 0, 10**18, 10**25])
async def test_a_socket_to_a_table_that_does_not_exist_is_closed_with_4404(players, table_id):
    socket = await Socket.open(table_id, players[0])
    assert socket.close_code == 4404


async def test_a_socket_from_a_foreign_origin_is_refused(players):
    from channels.testing import WebsocketCommunicator

    from ginsite.asgi import application

    table = await create_table(user=players[0], game="gin", preset="klassisch", options={})
    for headers in ([(b"origin", b"http://evil.example")], []):
        communicator = WebsocketCommunicator(application, f"/ws/table/{table.pk}/", headers=headers)
        connected, _ = await communicator.connect(timeout=5)
        assert not connected
        await communicator.disconnect()


async def test_a_socket_to_a_private_table_needs_the_invitation(players, spectator):
    table = await create_table(user=players[0], game="gin", preset="klassisch", options={}, private=True)
    for user, invite in ((spectator, ""), (None, ""), (spectator, "wrong"), (None, table.invite_token[:-1]),
                         (spectator, "%C3%BC"), (spectator, "%00"), (None, "ü")):
        socket = await Socket.open(table.pk, user, invite=invite)
        assert socket.close_code == 4403
    before = await database_picture(table.pk)
    invited = await Socket.open(table.pk, players[1], invite=table.invite_token)
    await invited.until(is_state)
    await refused(invited, {"type": "join"}, "not_invited", table.pk, before)
    await refused(invited, {"type": "join", "invite": "wrong"}, "not_invited", table.pk, before)
    for invite in ([table.invite_token], "ü", "\x00", {"token": table.invite_token}, 7):
        await refused(invited, {"type": "join", "invite": invite}, "not_invited", table.pk, before)
    await invited.send({"type": "join", "invite": table.invite_token})
    assert (await invited.until(lambda f: is_state(f) and f["table"]["status"] == "playing"))["table"]["you"] == 1
    await invited.close()


# --- the protocol document covers what the consumer speaks -------------------------------------------------


def _documented_types() -> set[str]:
    return set(re.findall(r'"type":\s*"([a-z_]+)"', PROTOCOL.read_text(encoding="utf-8")))


def test_every_client_message_type_is_in_the_protocol_table():
    text = PROTOCOL.read_text(encoding="utf-8")
    missing_rows = sorted(kind for kind in consumers.TableConsumer.HANDLERS if f"`{kind}`" not in text)
    assert missing_rows == []


def test_every_client_message_type_is_documented_with_an_example():
    documented = _documented_types()
    missing_examples = sorted(kind for kind in consumers.TableConsumer.HANDLERS if kind not in documented)
    assert missing_examples == [], f"no JSON example in docs/protocol.md for: {missing_examples}"


async def test_every_frame_type_the_server_sends_is_documented(players, spectator):
    # Drive every kind of frame and error code a client can meet, and collect what comes back.
    table, sockets = await running_table(players, spectator)
    actor = sockets["actor"]
    await actor.send({"type": "ping"})
    await actor.send({"type": "chat", "text": "hi"})
    await actor.send({"type": "dance"})
    while not {"pong", "chat", "error"} <= {f["type"] for f in actor.frames}:
        await actor.receive()  # the chat line comes through the channel layer, maybe after the error
    # Presence goes out per person, batched (GAMES_PRESENCE_BATCH_SECONDS): the first player's socket hears of
    # those who came after it.
    for name in ("actor", "waiter"):
        if "presence" in {f["type"] for s in sockets.values() for f in s.frames}:
            break
        with contextlib.suppress(TimeoutError, asyncio.TimeoutError):
            await sockets[name].until(lambda f: f["type"] == "presence", timeout=3)
    lobby = Socket(None, "lobby")
    from channels.testing import WebsocketCommunicator

    from ginsite.asgi import application

    lobby.communicator = WebsocketCommunicator(application, "/ws/lobby/", headers=[(b"origin", b"http://testserver")])
    assert (await lobby.communicator.connect(timeout=5))[0]
    await lobby.receive()
    await create_table(user=players[2], game="gin", preset="klassisch", options={})
    await lobby.until(lambda f: f["type"] == "lobby_table")
    frames = [f for s in sockets.values() for f in s.frames] + lobby.frames
    sent_types = {f["type"] for f in frames}
    codes = {f["code"] for f in frames if f["type"] == "error"}
    text = PROTOCOL.read_text(encoding="utf-8")
    assert {"state", "chat", "presence", "pong", "error", "lobby", "lobby_table"} <= sent_types
    assert sent_types <= _documented_types()
    assert all(f"`{code}`" in text for code in codes)
    await lobby.communicator.disconnect()
    await close_all(sockets)


def test_every_error_code_the_services_raise_is_in_the_protocol_table():
    games = Path(__file__).resolve().parents[2] / "games"
    source = "\n".join(
        path.read_text(encoding="utf-8") for path in [*sorted((games / "services").glob("*.py")), games / "web" / "consumers.py"]
    )
    raised = set(re.findall(r'ServiceError\(\s*"([a-z_]+)"', source))
    raised |= set(re.findall(r'send_error\(\s*"([a-z_]+)"', source))
    text = PROTOCOL.read_text(encoding="utf-8")
    undocumented = sorted(code for code in raised if f"`{code}`" not in text)
    assert undocumented == []


async def test_the_lobby_socket_answers_garbage_with_an_error_and_stays_open(players):
    from channels.testing import WebsocketCommunicator

    from ginsite.asgi import application

    lobby = WebsocketCommunicator(application, "/ws/lobby/", headers=[(b"origin", b"http://testserver")])
    assert (await lobby.connect(timeout=5))[0]
    assert (await lobby.receive_json_from(timeout=5))["type"] == "lobby"
    for raw in ("not json", "[" * 2000 + "]" * 2000, '{"type": "move"}', '{"type": "sync", "x": "' + "y" * 5000 + '"}',
                '{"type": ["sync"]}', "null"):
        await lobby.send_input({"type": "websocket.receive", "text": raw})
        error = await lobby.receive_json_from(timeout=5)
        assert error["type"] == "error" and error["code"] == "bad_message", raw[:40]
    await lobby.send_input({"type": "websocket.receive", "bytes": b'{"type": "sync"}'})
    assert (await lobby.receive_json_from(timeout=5))["type"] == "error"
    await lobby.send_json_to({"type": "sync"})
    assert (await lobby.receive_json_from(timeout=5))["type"] == "lobby"
    await lobby.disconnect()


@pytest.mark.django_db
def test_a_move_after_the_turn_time_ran_out_is_not_the_players_any_more(players):
    from datetime import timedelta

    from django.utils import timezone

    table = services.table_create(user=players[0], game="gin", preset="schnell")
    services.table_join(table_id=table.pk, user=players[1])
    table = Table.objects.get(pk=table.pk)
    state = state_of(table)
    Table.objects.filter(pk=table.pk).update(turn_deadline=timezone.now() - timedelta(seconds=5))
    with pytest.raises(services.ServiceError) as refused:
        services.move_apply(table_id=table.pk, user=players[state.to_act], version=table.version,
                            action={"action": "draw", "from": "stock"})
    assert refused.value.code == "turn_over" and refused.value.message
    assert Table.objects.get(pk=table.pk).version == table.version
    assert not Move.objects.filter(table_id=table.pk).exists()
