"""Abuse limits of live play: a socket that floods the server is told ``rate_limited`` (a token bucket per
connection, ``games/delivery/limits.py``) while play at the speed of the rules is never slowed; and one person may
have at most five open or running tables of their own making (``too_many_tables``)."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.urls import reverse

from games import services
from games.delivery import limits as ratelimit
from games.models import Table
from games.services import ServiceError
from tests.games.helpers import Socket, play_over_sockets

create_table = sync_to_async(services.table_create)
join_table = sync_to_async(services.table_join)


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


# --- the bucket ------------------------------------------------------------------------------------------


def test_a_bucket_gives_its_burst_at_once_then_its_rate():
    clock = Clock()
    bucket = ratelimit.TokenBucket(rate=2, burst=3, clock=clock)
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    clock.now += 0.5  # one token back after half a second at 2 a second
    assert [bucket.take(), bucket.take()] == [True, False]
    clock.now += 60  # never more than the burst, however long it rested
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]


def test_a_token_given_back_never_exceeds_the_burst():
    clock = Clock()
    bucket = ratelimit.TokenBucket(rate=1, burst=2, clock=clock)
    bucket.give_back()
    assert [bucket.take() for _ in range(3)] == [True, True, False]


# --- table sockets ---------------------------------------------------------------------------------------


@pytest.fixture
def tight_limits(settings):
    settings.GAMES_SOCKET_BURST = 5
    settings.GAMES_SOCKET_RATE = 0.001  # no refill within a test


async def running_gin(players):
    table = await create_table(user=players[0], game="gin", preset="schnell", options={})
    await join_table(table_id=table.pk, user=players[1])
    sockets = [await Socket.open(table.pk, players[0]), await Socket.open(table.pk, players[1])]
    for socket in sockets:
        await socket.until(lambda f: f["type"] == "state")
    return table, sockets


async def answers(socket: Socket, count: int) -> list[dict]:
    """The next ``count`` answers (state or error), skipping presence frames."""
    out = []
    while len(out) < count:
        frame = await socket.receive()
        if frame["type"] in ("state", "error"):
            out.append(frame)
    return out


@pytest.mark.django_db(transaction=True)
async def test_a_flood_of_refused_moves_is_rate_limited_and_changes_nothing(players, tight_limits):
    table, (anna, ben) = await running_gin(players)
    version = anna.state["version"]
    waiter = anna if anna.state["view"]["to_act"] != 0 else ben
    for _ in range(8):
        await waiter.send({"type": "move", "version": version, "action": {"action": "draw", "from": "stock"}})
    frames = [f for f in await answers(waiter, 13) if f["type"] == "error"]  # 5 refusals (+ states), then 3 limits
    codes = [f["code"] for f in frames]
    assert codes[:5] == ["not_your_turn"] * 5 and codes[5:] == ["rate_limited"] * 3
    assert all(f["version"] == version for f in frames)
    assert (await sync_to_async(Table.objects.get)(pk=table.pk)).version == version
    await waiter.send({"type": "ping"})  # ping is free: the socket still answers
    assert (await waiter.until(lambda f: f["type"] == "pong"))["version"] == version
    await anna.close()
    await ben.close()


@pytest.mark.django_db(transaction=True)
async def test_a_flood_of_syncs_is_rate_limited(players, tight_limits):
    table, (anna, ben) = await running_gin(players)
    for _ in range(7):
        await anna.send({"type": "sync"})
    frames = await answers(anna, 7)
    assert [f["type"] for f in frames] == ["state"] * 5 + ["error"] * 2
    assert {f["code"] for f in frames[5:]} == {"rate_limited"}
    await anna.close()
    await ben.close()


@pytest.mark.django_db(transaction=True)
async def test_the_bucket_refills_with_time(players, settings, monkeypatch):
    # The sockets' clock is the test's: how long three syncs take on a loaded machine refills nothing.
    clock = Clock()
    monkeypatch.setattr(ratelimit, "bucket_for_socket", lambda: ratelimit.TokenBucket(rate=20, burst=2, clock=clock))
    table, (anna, ben) = await running_gin(players)
    for _ in range(3):
        await anna.send({"type": "sync"})
    assert [f["type"] for f in await answers(anna, 3)] == ["state", "state", "error"]
    clock.now += 0.2  # 4 tokens at 20 a second, but never more than the burst of 2
    for _ in range(3):
        await anna.send({"type": "sync"})
    assert [f["type"] for f in await answers(anna, 3)] == ["state", "state", "error"]
    await anna.close()
    await ben.close()


@pytest.mark.django_db(transaction=True)
async def test_legal_moves_cost_nothing_so_a_whole_match_plays_at_full_speed(players, settings):
    settings.GAMES_SOCKET_BURST = 2
    settings.GAMES_SOCKET_RATE = 0.001
    table, (anna, ben) = await running_gin(players)
    final = await play_over_sockets({0: anna, 1: ben})
    assert final["table"]["status"] == "finished"
    moves = [f for s in (anna, ben) for f in s.frames if f["type"] == "error"]
    assert moves == []
    await anna.close()
    await ben.close()


@pytest.mark.django_db(transaction=True)
async def test_chat_lines_that_go_through_cost_nothing_refused_ones_do(players, tight_limits):
    table, (anna, ben) = await running_gin(players)
    for n in range(12):
        await anna.send({"type": "chat", "text": f"Hallo {n}"})
    codes = []
    while len(codes) < 7:
        frame = await anna.receive()
        if frame["type"] == "error":
            codes.append(frame["code"])
    # 5 lines posted (the chat's own limit of 5 in 10 s), then 5 refusals by it, then the socket's limit.
    assert codes == ["chat_rate_limited"] * 5 + ["rate_limited"] * 2
    await anna.close()
    await ben.close()


@pytest.mark.django_db(transaction=True)
async def test_a_flood_of_lobby_syncs_is_rate_limited(tight_limits):
    from ginsite.asgi import application

    lobby = WebsocketCommunicator(application, "/ws/lobby/", headers=[(b"origin", b"http://testserver")])
    assert (await lobby.connect(timeout=5))[0]
    assert (await lobby.receive_json_from(timeout=5))["type"] == "lobby"
    for _ in range(7):
        await lobby.send_json_to({"type": "sync"})
    kinds = [(await lobby.receive_json_from(timeout=5)) for _ in range(7)]
    assert [k["type"] for k in kinds] == ["lobby"] * 5 + ["error"] * 2
    assert {k["code"] for k in kinds[5:]} == {"rate_limited"}
    await lobby.disconnect()


def test_rate_limited_is_a_documented_error_code():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    assert "`rate_limited`" in text and "`too_many_tables`" in text


# --- the cap on open tables ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_sixth_open_table_of_one_creator_is_refused(players):
    anna = players[0]
    for _ in range(5):
        services.table_create(user=anna, game="gin", preset="klassisch")
    with pytest.raises(ServiceError) as refused:
        services.table_create(user=anna, game="romme", preset="standard")
    assert refused.value.code == "too_many_tables" and refused.value.message
    assert Table.objects.filter(created_by=anna).count() == 5
    # Others are not affected by anna's tables.
    services.table_create(user=players[1], game="gin", preset="klassisch")


@pytest.mark.django_db
def test_running_tables_count_and_ended_ones_free_a_place(players):
    anna, ben = players[:2]
    tables = [services.table_create(user=anna, game="gin", preset="schnell") for _ in range(4)]
    services.table_create(user=anna, game="gin", preset="schnell", bots="simple")  # running at once
    with pytest.raises(ServiceError):
        services.table_create(user=anna, game="gin", preset="schnell", bots="simple")
    services.table_leave(table_id=tables[0].pk, user=anna)  # the last person left: the table is closed
    services.table_create(user=anna, game="gin", preset="schnell")
    with pytest.raises(ServiceError):
        services.table_create(user=anna, game="gin", preset="schnell")


@pytest.mark.django_db
def test_the_cap_is_a_setting_and_zero_means_none(players, settings):
    settings.GAMES_MAX_OPEN_TABLES = 2
    for _ in range(2):
        services.table_create(user=players[0], game="gin")
    with pytest.raises(ServiceError):
        services.table_create(user=players[0], game="gin")
    settings.GAMES_MAX_OPEN_TABLES = 0
    for _ in range(6):
        services.table_create(user=players[0], game="gin")


@pytest.mark.django_db
def test_the_create_page_and_the_quick_game_show_the_cap(client, players):
    anna = players[0]
    for _ in range(5):
        services.table_create(user=anna, game="gin")
    client.force_login(anna)
    response = client.post(reverse("games:create"), {"game": "gin", "gin-preset": "klassisch"})
    assert response.status_code == 400 and "höchstens 5" in response.content.decode()
    response = client.post(reverse("games:quick", kwargs={"game": "gin"}), follow=True)
    assert "höchstens 5" in response.content.decode()
    assert Table.objects.filter(created_by=anna).count() == 5
