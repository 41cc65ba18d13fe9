"""Notices on every page (games.delivery.notices): the per-person socket ``/ws/notices/`` on the real ASGI app tells
a person at once when a table is ready for them (the ranked pool, a tournament's seating), when their
tournament pauses, goes on or ends; a reconnect is told the table still waiting; anonymous sockets are
refused; a notice carries links and names, never a card. And the lobby names a tournament's table."""

from __future__ import annotations

import asyncio
import doctest
import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import transaction
from django.test import Client
from django.urls import reverse

from games.delivery import notices
from games.models import Table
from games.reads import selectors
from ratings import pool
from tests.games.helpers import session_cookie
from tournaments import selectors as tournament_selectors
from tournaments import services as tournament_services
from tournaments.models import StageTable, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

#: Every key a notice frame may have.
NOTICE_KEYS = {"type", "kind", *notices.FIELDS}


class NoticeSocket:
    """One tab's ``/ws/notices/`` on the real ASGI app."""

    def __init__(self, communicator):
        self.communicator = communicator
        self.close_code = None

    @classmethod
    async def open(cls, user=None) -> NoticeSocket:
        from ginsite.asgi import application

        headers = [(b"origin", b"http://testserver")]
        if user is not None:
            cookie = await sync_to_async(session_cookie)(user)
            headers.append((b"cookie", f"sessionid={cookie}".encode()))
        communicator = WebsocketCommunicator(application, "/ws/notices/", headers=headers)
        connected, _ = await communicator.connect(timeout=5)
        assert connected
        return cls(communicator)

    async def receive(self, timeout: float = 5) -> dict:
        output = await self.communicator.receive_output(timeout=timeout)
        if output["type"] == "websocket.close":
            self.close_code = output["code"]
            return {"type": "closed", "code": output["code"]}
        return json.loads(output["text"])

    async def silent(self, timeout: float = 0.3) -> bool:
        return await self.communicator.receive_nothing(timeout=timeout)

    async def close(self) -> None:
        await self.communicator.disconnect()


def _tournament(staff, players, **create):
    t = tournament_services.tournament_create(by=staff, **create)
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    for user in players:
        tournament_services.tournament_register(tournament_id=t.pk, user=user)
    return t


GIN_SWISS = {"game": "gin", "format": "swiss", "settings": {"rounds": 2, "check_in_minutes": 0, "break_minutes": 0},
             "options": {"target": 0}}


async def test_pool_pairing_notifies_both(players):
    anna, ben = players[:2]
    sockets = [await NoticeSocket.open(anna), await NoticeSocket.open(ben)]
    assert all([await s.silent() for s in sockets])  # nothing pending yet
    await sync_to_async(pool.pool_join)(user=anna, game="gin")
    entry = await sync_to_async(pool.pool_join)(user=ben, game="gin")
    assert entry.table_id is not None
    for socket in sockets:
        notice = await socket.receive()
        assert notice == {"type": "notice", "kind": "table_ready", "table_id": entry.table_id,
                          "url": reverse("games:table", kwargs={"table_id": entry.table_id}), "game": "gin"}
        await socket.close()


async def test_tournament_start_notifies_every_seated_player_with_their_tables_link(players, staff):
    t = await sync_to_async(_tournament)(staff, players, name="Abendturnier", **GIN_SWISS)
    sockets = {user.pk: await NoticeSocket.open(user) for user in players}
    await sync_to_async(tournament_services.tournament_start)(tournament_id=t.pk, by=staff)
    tables = await sync_to_async(lambda: {u: st.table_id for st in StageTable.objects.filter(stage__tournament=t)
                                          for u in st.users})()
    assert set(tables) == {user.pk for user in players}
    for user_id, socket in sockets.items():
        notice = await socket.receive()
        assert notice["kind"] == "table_ready" and notice["table_id"] == tables[user_id]
        assert notice["url"] == reverse("games:table", kwargs={"table_id": tables[user_id]})
        assert notice["tournament"] == "Abendturnier" and notice["stage"] == 1
        assert notice["stage_label"] == {"de": "Runde 1", "en": "Round 1"}
        assert notice["tournament_url"] == reverse("tournaments:detail", kwargs={"tournament_id": t.pk})
        # Told once: a socket whose connect-time read of the pending tables ran after the start committed
        # (on Redis the group join takes a round trip) has told this table already and drops the group's copy.
        assert await socket.silent()
        await socket.close()


async def test_a_bye_is_told_the_tournament_started(django_user_model, staff, players):
    fifth = await sync_to_async(django_user_model.objects.create_user)("emil", "emil@example.org", "pw-emilemil")
    t = await sync_to_async(_tournament)(staff, [*players, fifth], name="Fünf", **GIN_SWISS)
    sockets = {user.pk: await NoticeSocket.open(user) for user in [*players, fifth]}
    await sync_to_async(tournament_services.tournament_start)(tournament_id=t.pk, by=staff)
    kinds = {user_id: (await socket.receive())["kind"] for user_id, socket in sockets.items()}
    assert sorted(kinds.values()) == ["table_ready"] * 4 + ["tournament_started"]
    for socket in sockets.values():
        await socket.close()


async def test_a_reconnect_gets_the_pending_table(players, staff):
    t = await sync_to_async(_tournament)(staff, players, name="Nachzügler", **GIN_SWISS)
    await sync_to_async(tournament_services.tournament_start)(tournament_id=t.pk, by=staff)
    anna = players[0]
    table_id = await sync_to_async(
        lambda: next(st.table_id for st in StageTable.objects.filter(stage__tournament=t) if anna.pk in st.users)
    )()
    socket = await NoticeSocket.open(anna)  # opened after the start: the notice went out before
    notice = await socket.receive()
    assert notice["kind"] == "table_ready" and notice["pending"] is True and notice["table_id"] == table_id
    assert notice["tournament"] == "Nachzügler" and notice["stage"] == 1
    assert await socket.silent()
    await socket.close()
    again = await NoticeSocket.open(anna)  # and again on every reconnect while the match is on
    assert (await again.receive())["table_id"] == table_id
    await again.close()


async def test_a_table_told_as_pending_is_not_told_again_by_its_start(players, staff):
    # The race made certain: the start's notice reaches a socket that has already told the table as pending.
    t = await sync_to_async(_tournament)(staff, players, name="Doppelt", **GIN_SWISS)
    await sync_to_async(tournament_services.tournament_start)(tournament_id=t.pk, by=staff)
    anna = players[0]
    table = await sync_to_async(
        lambda: next(st.table for st in StageTable.objects.filter(stage__tournament=t) if anna.pk in st.users)
    )()
    socket = await NoticeSocket.open(anna)
    assert (await socket.receive())["pending"] is True
    await sync_to_async(notices.table_ready)([anna.pk], table)
    assert await socket.silent()
    await sync_to_async(notices.notify)([anna.pk], "tournament_paused", {"tournament": "Doppelt"})
    assert (await socket.receive())["kind"] == "tournament_paused"  # other notices still pass
    await socket.close()


async def test_a_table_that_is_over_is_no_longer_pending(players):
    anna, ben = players[:2]
    await sync_to_async(pool.pool_join)(user=anna, game="gin")
    entry = await sync_to_async(pool.pool_join)(user=ben, game="gin")
    await sync_to_async(Table.objects.filter(pk=entry.table_id).update)(status=Table.Status.FINISHED)
    socket = await NoticeSocket.open(anna)
    assert await socket.silent()
    await socket.close()


async def test_anonymous_is_refused():
    socket = await NoticeSocket.open(None)
    assert await socket.receive() == {"type": "closed", "code": 4403}


async def test_the_notices_carry_no_cards(players, staff):
    t = await sync_to_async(_tournament)(staff, players, name="Ohne Karten", **GIN_SWISS)
    sockets = [await NoticeSocket.open(user) for user in players]
    await sync_to_async(tournament_services.tournament_start)(tournament_id=t.pk, by=staff)
    late = await NoticeSocket.open(players[0])
    frames = [await s.receive() for s in [*sockets, late]]
    # Every card each player holds now, as their own seat's view shows it.
    hands = await sync_to_async(lambda: [
        card for frame in frames for user in players
        for card in (selectors.table_state_for(table_id=frame["table_id"], user=user)["view"] or {}).get("hand", [])
    ])()
    assert len(hands) >= 4 * 10
    for frame in frames:
        assert set(frame) <= NOTICE_KEYS
        labels = frame.pop("stage_label", {})  # the stage's words, one per language
        assert all(isinstance(value, str | int | bool) for value in frame.values())
        assert labels and all(isinstance(value, str) for value in labels.values())
    text = json.dumps(frames)
    assert not [card for card in set(hands) if f'"{card}"' in text]
    assert "hand" not in text and "stock" not in text and "deal" not in text
    for socket in [*sockets, late]:
        await socket.close()


async def test_pause_resume_and_finish_are_told_to_the_entrants(players, staff):
    from tests.tournaments.helpers import play_tournament

    t = await sync_to_async(_tournament)(staff, players[:2], name="Kurzturnier", game="gin", format="swiss",
                                         settings={"rounds": 1, "check_in_minutes": 0, "break_minutes": 0},
                                         options={"target": 0})
    await sync_to_async(tournament_services.tournament_start)(tournament_id=t.pk, by=staff)
    socket = await NoticeSocket.open(players[0])
    assert (await socket.receive())["pending"] is True
    await sync_to_async(tournament_services.tournament_pause)(tournament_id=t.pk, by=staff)
    assert (await socket.receive())["kind"] == "tournament_paused"
    await sync_to_async(tournament_services.tournament_resume)(tournament_id=t.pk, by=staff)
    assert (await socket.receive())["kind"] == "tournament_resumed"
    await sync_to_async(play_tournament)(t.pk)
    assert (await sync_to_async(Tournament.objects.get)(pk=t.pk)).status == Tournament.Status.FINISHED
    # The match's end withdraws the table's banner first (no words: only the table), then the tournament ends.
    (row,) = await sync_to_async(tournament_selectors.tournament_tables)(tournament_id=t.pk)
    withdrawn = await socket.receive()
    assert withdrawn == {"type": "notice", "kind": "table_finished", "table_id": row["table"]}
    finished = await socket.receive()
    assert finished["kind"] == "tournament_finished" and finished["tournament"] == "Kurzturnier"
    await socket.close()


async def test_a_notice_of_a_rolled_back_change_is_never_sent(players):
    socket = await NoticeSocket.open(players[0])

    def seat_and_roll_back():
        with pytest.raises(RuntimeError), transaction.atomic():
            notices.notify([players[0].pk], "tournament_paused", {"tournament": "Nie"})
            raise RuntimeError("rolled back")

    await sync_to_async(seat_and_roll_back)()
    await asyncio.sleep(0.05)
    assert await socket.silent()
    await socket.close()


def test_a_notice_refuses_an_unknown_kind_or_field():
    with pytest.raises(ValueError, match="unknown notice kind"):
        notices.notify([1], "your_hand", {})
    with pytest.raises(ValueError, match="carries no 'hand'"):
        notices.notify([1], "table_ready", {"hand": ["AS", "KD"]})


def test_the_examples_in_the_docstring_hold():
    failed, attempted = doctest.testmod(notices, report=True)
    assert attempted > 0 and failed == 0


def test_pending_is_read_in_one_selector_from_the_database(players, staff, django_assert_max_num_queries):
    t = _tournament(staff, players, name="Zählung", **GIN_SWISS)
    tournament_services.tournament_start(tournament_id=t.pk, by=staff)
    with django_assert_max_num_queries(2):  # the seats, and the tables' tournament
        pending = selectors.notices_pending(user_id=players[0].pk)
    assert [frame["kind"] for frame in pending] == ["table_ready"]


def test_a_romme_series_tells_its_stage_as_a_serie_in_every_language(players, staff):
    # The banner's words are the page's: "Dein Tisch ist bereit: „Rommé-Abend“, {stage}", the stage in its
    # format's own words in the page's language (a Rommé series never says "Runde").
    t = _tournament(staff, players, name="Rommé-Abend", game="romme", format="series",
                    settings={"check_in_minutes": 0, "break_minutes": 0}, options={})
    tournament_services.tournament_start(tournament_id=t.pk, by=staff)
    (pending,) = selectors.notices_pending(user_id=players[0].pk)
    assert pending["stage_label"] == {"de": "Serie 1", "en": "Series 1"}


def test_the_lobby_names_the_tournament(players, staff):
    t = _tournament(staff, players, name="Rommé-Abend", game="romme", format="series",
                    settings={"check_in_minutes": 0, "break_minutes": 0}, options={})
    tournament_services.tournament_start(tournament_id=t.pk, by=staff)
    html = Client().get(reverse("games:lobby_tables")).content.decode()
    assert "Turnier: Rommé-Abend · Serie 1, Tisch 1" in html
    assert "Turnier (Wertungspunkte)" not in html


def test_every_page_of_a_signed_in_person_loads_the_notices(players):
    client = Client()
    client.force_login(players[0])
    for name in ("home", "games:lobby", "tournaments:list", "leaderboard"):
        html = client.get(reverse(name)).content.decode()
        assert 'id="site-notices"' in html and "games/notices.js" in html, name
    anonymous = Client().get(reverse("home")).content.decode()
    assert "games/notices.js" not in anonymous


def test_the_banner_words_are_german_first_and_english_second(players):
    from django.utils import translation

    from games.templatetags.notice_tags import notice_strings

    with translation.override("de"):
        german = notice_strings()
    with translation.override("en"):
        english = notice_strings()
    assert german["table_ready"] == "Dein Tisch ist bereit" and german["to_table"] == "Zum Tisch"
    assert english["table_ready"] == "Your table is ready" and english["to_table"] == "To the table"
    assert set(german) == set(english)
    assert not [key for key in german if german[key] == english[key]]  # every text translated
    assert english["table_ready_tournament"].count("{tournament}") == english["table_ready_tournament"].count("{stage}") == 1


def test_the_lobby_names_the_tournament_in_english_too(players, staff):
    t = _tournament(staff, players, name="Gin-Abend", **GIN_SWISS)
    tournament_services.tournament_start(tournament_id=t.pk, by=staff)
    client = Client(headers={"accept-language": "en"})
    client.cookies["django_language"] = "en"
    html = client.get(reverse("games:lobby_tables")).content.decode()
    assert "Tournament: Gin-Abend · Round 1, table 1" in html


async def test_a_notice_socket_joins_and_leaves_its_two_groups_in_one_regroup(players, monkeypatch):
    """Its notices' group and its person's group (a sign-out closes it) in one call to the layer's ``regroup``,
    one round trip on Redis with the other sockets' joins of that turn of the loop (ginsite.layers); left the
    same way when it closes. It hears both."""
    from channels.layers import get_channel_layer

    from games.web import handshakes

    layer = get_channel_layer()
    calls: list[tuple[tuple, tuple]] = []
    original = layer.regroup

    done = asyncio.Event()

    async def recorded(channel, *, add=(), discard=()):
        await original(channel, add=add, discard=discard)
        calls.append((tuple(add), tuple(discard)))
        done.set()

    monkeypatch.setattr(layer, "regroup", recorded)
    user = players[0]
    ws = await NoticeSocket.open(user)  # accepted before it joins its groups
    await asyncio.wait_for(done.wait(), 5)
    groups = (notices.user_group(user.pk), handshakes.person_group(user.pk))
    assert calls == [(groups, ())]
    text = json.dumps({"type": "notice", "kind": "tournament_paused"})
    await layer.group_send(groups[0], {"type": "notice.frame", "text": text})
    assert await ws.receive() == json.loads(text)
    await layer.group_send(groups[1], {"type": "person.signed_out"})  # signing out closes it, its groups left
    assert (await ws.receive())["code"] == "signed_out"
    assert await ws.receive() == {"type": "closed", "code": handshakes.CLOSE_SIGNED_OUT}
    assert calls == [(groups, ()), ((), groups)]
    await ws.close()
    assert calls == [(groups, ()), ((), groups)]  # nothing left to leave
