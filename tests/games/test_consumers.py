"""The table and lobby sockets on the real ASGI app, with signed-in users: whole matches, spectators,
reconnect, resync after a stale version, and typed errors that leave the socket usable."""

import pytest
from asgiref.sync import sync_to_async

from games import services
from games.delivery import events
from games.models import Match, Move, Table
from tests.games.helpers import Socket, choose_action, play_over_sockets

pytestmark = pytest.mark.django_db(transaction=True)

create_table = sync_to_async(services.table_create)
join_table = sync_to_async(services.table_join)
fill_with_bots = sync_to_async(services.table_fill_with_bots)


@sync_to_async
def fetch_table(table_id: int) -> Table:
    return Table.objects.select_related("current_match").get(pk=table_id)


async def gin_sockets(players, *, preset="schnell", options=None):
    table = await create_table(user=players[0], game="gin", preset=preset, options=options or {})
    anna = await Socket.open(table.pk, players[0])
    ben = await Socket.open(table.pk, players[1])
    for socket in (anna, ben):
        await socket.until(lambda f: f["type"] == "state")
    await ben.send({"type": "join"})
    for socket in (anna, ben):
        await socket.until(lambda f: f["type"] == "state" and f["table"]["status"] == "playing")
    return table, anna, ben


async def test_two_players_play_a_gin_match_to_the_end(players):
    table, anna, ben = await gin_sockets(players, preset="klassisch", options={"target": 50})
    assert anna.state["table"]["you"] == 0 and ben.state["table"]["you"] == 1
    assert len(anna.state["view"]["hand"]) == 10 and anna.state["view"]["hand"] != ben.state["view"]["hand"]
    final = await play_over_sockets({0: anna, 1: ben})
    assert final["table"]["status"] == "finished"
    stored = await fetch_table(table.pk)
    match = stored.current_match
    assert match.status == Match.Status.FINISHED and final["table"]["match"]["result"] == match.result
    assert final["view"]["result"]["winner"] == match.winner_seat and max(match.final_scores) >= 50
    assert ben.state["version"] == anna.state["version"] == stored.version
    await anna.close()
    await ben.close()


async def test_a_romme_round_with_computer_players(players, settings):
    # A deal of the seed's choosing where a computer player starts the round, so computers move whatever
    # Anna holds: had she the first turn, a Hand-Rommé could end the round before any computer moved.
    settings.GAMES_TEST_DEAL_SEED = "a-computer-starts"
    table = await create_table(user=players[0], game="romme", preset="standard", options={"seats": 4, "rounds": 1})
    anna = await Socket.open(table.pk, players[0])
    await anna.until(lambda f: f["type"] == "state")
    await anna.send({"type": "bots", "level": "expert"})
    await anna.until(lambda f: f["type"] == "state" and f["table"]["status"] == "playing")
    assert [s["bot"] for s in anna.state["table"]["seats"]] == ["", "expert", "expert", "expert"]
    assert anna.state["view"]["to_act"] != 0, "the seed no longer lets a computer start: choose another"
    assert len(anna.state["view"]["hand"]) == 13
    final = await play_over_sockets({0: anna})
    await anna.close()
    assert final["table"]["status"] == "finished" and len(final["view"]["result"]["final"]) == 4
    log = await sync_to_async(lambda: list(Move.objects.filter(table_id=table.pk).order_by("seq").values_list(
        "seat", "by", "action")))()
    assert {by for _seat, by, _action in log} == {"bot", "player"}, log


async def test_a_spectator_sees_the_public_view_and_may_not_play(players, spectator):
    table, anna, ben = await gin_sockets(players)
    sven = await Socket.open(table.pk, spectator)
    anonymous = await Socket.open(table.pk)
    for watcher in (sven, anonymous):
        first = await watcher.until(lambda f: f["type"] == "state")
        assert first["table"]["you"] is None
        assert "hand" not in first["view"] and "legal_actions" not in first["view"]
    version = anna.state["version"]
    await sven.send({"type": "move", "version": version, "action": {"action": "pass"}})
    error = await sven.until(lambda f: f["type"] == "error")
    assert error["code"] == "not_seated" and error["version"] == version, [(f["type"], f.get("version"), f.get("table", {}).get("id")) for f in anna.frames]
    await anonymous.send({"type": "chat", "text": "hallo"})
    assert (await anonymous.until(lambda f: f["type"] == "error"))["code"] == "not_seated"
    # The watchers follow the game move by move.
    seat = anna.state["view"]["to_act"]
    mover = anna if seat == 0 else ben
    await mover.send({"type": "move", "version": version, "action": choose_action(mover.state["view"])})
    for watcher in (sven, anonymous):
        frame = await watcher.until_version(version + 1)
        assert frame["view"]["history"] and "hand" not in frame["view"]
    for socket in (anna, ben, sven, anonymous):
        await socket.close()


async def test_a_private_table_is_closed_to_strangers(players, spectator):
    table = await create_table(user=players[0], game="gin", preset="klassisch", options={}, private=True)
    stranger = await Socket.open(table.pk, spectator)
    assert stranger.close_code == 4403
    invited = await Socket.open(table.pk, players[1], invite=table.invite_token)
    assert (await invited.until(lambda f: f["type"] == "state"))["table"]["private"] is True
    await invited.send({"type": "join", "invite": table.invite_token})
    await invited.until(lambda f: f["type"] == "state" and f["table"]["you"] == 1)
    missing = await Socket.open(999999, players[0])
    assert missing.close_code == 4404
    await invited.close()


async def test_reconnecting_mid_round_gives_the_same_state(players):
    table, anna, ben = await gin_sockets(players)
    for _ in range(3):
        seat = anna.state["view"]["to_act"]
        mover = anna if seat == 0 else ben
        version = anna.state["version"]
        await mover.send({"type": "move", "version": version, "action": choose_action(mover.state["view"])})
        await anna.until_version(version + 1)
        await ben.until_version(version + 1)
    before = ben.state
    await ben.close()
    again = await Socket.open(table.pk, players[1])
    after = await again.until(lambda f: f["type"] == "state")
    assert after == before
    await again.send({"type": "sync"})
    assert await again.until(lambda f: f["type"] == "state") == before
    await anna.close()
    await again.close()


async def test_a_client_with_an_old_version_gets_an_error_and_a_resync(players):
    table, anna, ben = await gin_sockets(players)
    seat = anna.state["view"]["to_act"]
    mover, other = (anna, ben) if seat == 0 else (ben, anna)
    version = mover.state["version"]
    await mover.send({"type": "move", "version": version - 1, "action": choose_action(mover.state["view"])})
    error = await mover.until(lambda f: f["type"] != "presence")
    assert error == {"type": "error", "code": "stale_version", "message": error["message"], "version": version}
    resync = await mover.until(lambda f: f["type"] != "presence")
    assert resync["type"] == "state" and resync["version"] == version and resync["view"]["legal_actions"]
    await other.send({"type": "move", "version": version, "action": {"action": "draw", "from": "stock"}})
    assert (await other.until(lambda f: f["type"] == "error"))["code"] == "not_your_turn"
    assert (await other.until(lambda f: f["type"] != "presence"))["type"] == "state"
    stored = await fetch_table(table.pk)
    assert stored.version == version
    await anna.close()
    await ben.close()


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("not json", "bad_message"),
        ("[1, 2]", "bad_message"),
        ('{"type": "dance"}', "bad_message"),
        ('{"no": "type"}', "bad_message"),
        ('{"type": "chat", "text": "' + "x" * 5000 + '"}', "too_large"),
        ('{"type": "move", "version": 1, "action": "draw"}', "bad_message"),
    ],
)
async def test_malformed_and_oversized_messages_get_a_typed_error_and_the_socket_stays_usable(players, raw, code):
    table, anna, ben = await gin_sockets(players)
    version = anna.state["version"]
    await anna.communicator.send_to(text_data=raw)
    error = await anna.until(lambda f: f["type"] == "error")
    assert error["code"] == code and error["message"] and error["version"] == version
    await anna.send({"type": "ping"})
    assert (await anna.until(lambda f: f["type"] == "pong"))["version"] == version
    assert (await fetch_table(table.pk)).version == version
    await anna.close()
    await ben.close()


async def test_binary_frames_are_refused(players):
    table, anna, ben = await gin_sockets(players)
    await anna.communicator.send_to(bytes_data=b"\x00\x01")
    assert (await anna.until(lambda f: f["type"] == "error"))["code"] == "bad_message"
    await anna.close()
    await ben.close()


async def test_chat_reaches_players_and_spectators_as_typed(players, spectator):
    table, anna, ben = await gin_sockets(players)
    sven = await Socket.open(table.pk, spectator)
    await sven.until(lambda f: f["type"] == "state")
    await anna.send({"type": "chat", "text": "<script>alert(1)</script>"})
    for socket in (anna, ben, sven):
        line = await socket.until(lambda f: f["type"] == "chat")
        assert line["text"] == "<script>alert(1)</script>" and line["user"] == "anna" and line["seat"] == 0
    late = await Socket.open(table.pk, players[1])
    await late.until(lambda f: f["type"] == "state")
    assert (await late.until(lambda f: f["type"] == "chat"))["text"] == "<script>alert(1)</script>"
    for socket in (anna, ben, sven, late):
        await socket.close()


async def test_resign_abort_and_rematch_over_the_socket(players):
    table, anna, ben = await gin_sockets(players)
    version = anna.state["version"]
    await anna.send({"type": "abort"})
    aborted = await ben.until(lambda f: f["type"] == "state" and f["version"] > version)
    assert aborted["table"]["status"] == "aborted"
    second, cleo, dora = await gin_sockets(players[2:])
    await cleo.send({"type": "resign"})
    over = await dora.until(lambda f: f["type"] == "state" and f["table"]["status"] == "finished")
    assert over["view"]["result"]["winner"] == 1
    await dora.send({"type": "rematch"})
    assert (await dora.until(lambda f: f["type"] == "error"))["code"] == "seat_left"
    for socket in (anna, ben, cleo, dora):
        await socket.close()


async def test_the_lobby_feed_follows_public_tables(players):
    lobby = await Socket.open(0, path="/ws/lobby/")
    first = await lobby.receive()
    assert first == {"type": "lobby", "tables": []}
    table = await create_table(user=players[0], game="gin", preset="schnell", options={})
    opened = await lobby.until(lambda f: f["type"] == "lobby_table")
    assert opened["table"]["id"] == table.pk and opened["table"]["free_seats"] == 1
    await join_table(table_id=table.pk, user=players[1])
    started = await lobby.until(lambda f: f["type"] == "lobby_table")
    assert started["table"]["status"] == "playing" and started["table"]["free_seats"] == 0
    await create_table(user=players[2], game="gin", preset="schnell", options={}, private=True)
    await lobby.send({"type": "sync"})
    listed = await lobby.until(lambda f: f["type"] == "lobby")
    assert [t["id"] for t in listed["tables"]] == [table.pk]
    await lobby.close()


async def test_a_socket_whose_player_leaves_the_seat_becomes_a_spectator(players):
    table = await create_table(user=players[0], game="romme", preset="standard", options={"seats": 3})
    ben = await Socket.open(table.pk, players[1])
    await ben.until(lambda f: f["type"] == "state")
    await ben.send({"type": "join", "seat": 1})
    assert (await ben.until(lambda f: f["type"] == "state" and f["table"]["you"] == 1))["view"] is None
    await ben.send({"type": "leave"})
    left = await ben.until(lambda f: f["type"] == "state" and f["table"]["you"] is None)
    assert left["table"]["seats"][1]["taken"] is False
    # Cleo takes the seat ben held and the table starts: ben's socket only ever sees the public view.
    await join_table(table_id=table.pk, user=players[2], seat=1)
    await fill_with_bots(table_id=table.pk, user=players[0])
    started = await ben.until(lambda f: f["type"] == "state" and f["table"]["status"] == "playing")
    assert started["table"]["you"] is None and "hand" not in started["view"]
    await ben.drain()
    assert all("hand" not in f["view"] for f in ben.frames if f["type"] == "state" and f["view"])
    await ben.close()


async def test_a_change_made_elsewhere_reaches_the_socket_by_polling(players, settings, monkeypatch):
    """With the in-memory layer the referee's process cannot reach the sockets: they look for themselves."""
    settings.GAMES_STATE_POLL_SECONDS = 0.1
    table, anna, ben = await gin_sockets(players)
    version = anna.state["version"]
    monkeypatch.setattr(events, "_send", lambda messages: None)  # as if sent in another process

    @sync_to_async
    def time_out():
        stored = Table.objects.get(pk=table.pk)
        return services.turn_timeout(table_id=table.pk, now=stored.turn_deadline)

    assert await time_out()
    frame = await anna.until_version(version + 1)
    assert frame["version"] == version + 1 and frame["table"]["you"] == 0
    await anna.close()
    await ben.close()


async def test_a_server_fault_is_reported_and_the_socket_stays_usable(players, monkeypatch):
    table, anna, ben = await gin_sockets(players)

    def broken(**kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(services, "match_resign", broken)
    await anna.send({"type": "resign"})
    assert (await anna.until(lambda f: f["type"] == "error"))["code"] == "server_error"
    await anna.send({"type": "ping"})
    assert (await anna.until(lambda f: f["type"] == "pong"))["version"] == anna.state["version"]
    await anna.close()
    await ben.close()


async def test_an_invitation_of_any_text_is_compared_safely(players, spectator):
    table = await create_table(user=players[0], game="gin", preset="klassisch", options={}, private=True)
    for invite in ("%C3%BC", "x" * 100, "%00"):
        stranger = await Socket.open(table.pk, spectator, invite=invite)
        assert stranger.close_code == 4403
    watcher = await Socket.open(table.pk, spectator, invite=table.invite_token)
    await watcher.send({"type": "join", "invite": {"token": table.invite_token}})
    assert (await watcher.until(lambda f: f["type"] == "error"))["code"] == "not_invited"
    await watcher.send({"type": "join", "invite": "ü"})
    assert (await watcher.until(lambda f: f["type"] == "error"))["code"] == "not_invited"
    await watcher.send({"type": "bots", "level": 0})
    assert (await watcher.until(lambda f: f["type"] == "error"))["code"] == "bad_message"
    await watcher.communicator.send_to(text_data="[" * 2000 + "]" * 2000)  # under 4 KB, too deep to parse
    assert (await watcher.until(lambda f: f["type"] == "error"))["code"] == "bad_message"
    await watcher.send({"type": "ping"})
    assert (await watcher.until(lambda f: f["type"] == "pong"))["type"] == "pong"
    await watcher.close()
