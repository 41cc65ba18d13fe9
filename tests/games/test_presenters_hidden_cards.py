"""An independent review of hidden information in live play: every frame a seated player, a signed-in
spectator or an anonymous visitor receives, the table page's embedded first frame and the record download,
each checked against the true state in the database (other hands, the stock, seeds, the state JSON, the
move the server is about to play on a timeout)."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from games import registry, services
from games.models import Round, Table
from games.reads import selectors
from tests.games.helpers import Socket, choose_action, play_over_sockets, seat_held

CARD = re.compile(r'"(JK|[2-9TJQKA][CDHS])"')
SEED = "live-play-tests"  # GAMES_TEST_DEAL_SEED in tests/games/conftest.py
#: Keys of the engine's whole state (Table.state) that no view has.
STATE_ONLY_KEYS = ("hands_now", "stock_pos", "must_draw_stock", "discard_pile", "drawn_card", "round_logged")


def cards_in(thing) -> set[str]:
    return set(CARD.findall(json.dumps(thing)))


def true_hands(table: Table) -> list[list[str]]:
    round_ = table.state["round"]
    return round_["hands_now"] if table.game == "gin" else round_["hands"]


def hidden_from(table: Table, seat: int | None) -> set[str]:
    """The cards ``seat`` (None: a spectator) must not see now: the other hands and the stock, less every card
    that was shown openly this round (the upcard, the discard pile, discards, melds on the table)."""
    round_ = table.state["round"]
    # Draws from the stock carry the drawn card in the state's own log; those stay private.
    open_moves = [m for m in round_["moves"] if m.get("from") != "stock" and m.get("action") != "reshuffle"]
    if table.game == "gin":
        stock = round_["stock"][round_["stock_pos"]:]
        shown = cards_in([round_["discard"], round_["upcard"], open_moves])
    else:
        stock = round_["stock"]
        shown = cards_in([round_["discard_pile"], round_["melds"], round_["deal"]["upcard"], open_moves])
    hands = true_hands(table)
    own = set(hands[seat]) if seat is not None else set()
    others = set().union(*(set(hand) for index, hand in enumerate(hands) if index != seat))
    return (others | set(stock)) - own - shown


#: Keys that name the card a Rommé joker stands for: a rank and suit, not a card anyone holds.
VIRTUAL_CARD_KEYS = ("stands_for", "jokers")


def _without_virtual_cards(thing):
    if isinstance(thing, dict):
        return {k: _without_virtual_cards(v) for k, v in thing.items() if k not in VIRTUAL_CARD_KEYS}
    if isinstance(thing, list):
        return [_without_virtual_cards(v) for v in thing]
    return thing


def round_in_play_part(frame: dict) -> dict:
    """The frame without what the rules have revealed already (the last finished round and the result) and
    without the cards jokers stand for."""
    frame = copy.deepcopy(frame)
    frame["table"].pop("last_deal", None)
    if frame.get("view"):
        for key in ("last_round", "result"):
            frame["view"].pop(key, None)
    return _without_virtual_cards(frame)


def assert_nothing_secret(frame: dict, table: Table, *, audience: int | None, checked_against_truth: bool) -> bool:
    """Checks one ``state`` frame sent to ``audience`` (the seat of the user it went to, None: a spectator),
    which comes from where the frame was sent, never from the frame's own ``you``. With
    ``checked_against_truth`` the frame is of the database's version and the cards are compared with the true
    hands and stock. Returns whether the card check ran."""
    text = json.dumps(frame)
    assert SEED not in text
    assert not any(f'"{key}"' in text for key in STATE_ONLY_KEYS), text[:300]
    if table.invite_token:
        assert table.invite_token not in text
    view = frame["view"]
    if view is not None and checked_against_truth and view["to_act"] is not None:
        leaked = cards_in(round_in_play_part(frame)) & hidden_from(table, audience)
        if leaked:
            where = [k for k, v in round_in_play_part(frame)["view"].items() if cards_in(v) & leaked]
            raise AssertionError(f"seat {audience} was sent hidden cards {sorted(leaked)} in view{where}: "
                                 f"{ {k: round_in_play_part(frame)['view'][k] for k in where} } / truth {table.state['round']}")
    assert frame["table"]["you"] == audience, f"a frame for seat {frame['table']['you']} was sent to {audience}"
    if view is None:
        return False
    if audience is None:
        assert not {"hand", "legal_actions", *registry.get(table.game).seat_only_keys} & set(view)
    if not checked_against_truth or view["to_act"] is None:
        return False
    if audience is not None:
        assert sorted(view["hand"]) == sorted(true_hands(table)[audience])
    return True


# --- every frame of whole matches over the sockets ------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_no_frame_of_a_private_gin_match_shows_a_hidden_card(players, spectator):
    table = await sync_to_async(services.table_create)(
        user=players[0], game="gin", preset="klassisch", options={"target": 50}, private=True
    )
    anna = await Socket.open(table.pk, players[0], deltas=True)
    ben = await Socket.open(table.pk, players[1], invite=table.invite_token, deltas=True)
    sven = await Socket.open(table.pk, spectator, invite=table.invite_token, deltas=True)
    anonymous = await Socket.open(table.pk, invite=table.invite_token)
    checked = {"anna": 0, "ben": 0, "sven": 0, "anonymous": 0}
    rounds_seen = set()

    @sync_to_async
    def check(socket, frame):
        stored = Table.objects.get(pk=table.pk)
        if assert_nothing_secret(frame, stored, audience=seat_held(table.pk, socket.user),
                                 checked_against_truth=frame["version"] == stored.version):
            checked[socket.name] += 1
        if frame["table"]["round"]:
            rounds_seen.add(frame["table"]["round"]["number"])
        last = frame["table"]["last_deal"]
        if last is not None:
            # A deal is shown only once its round has ended, and it is the deal the hash promised.
            assert Round.objects.get(match_id=frame["table"]["match"]["id"], number=last["number"]).finished_at
            canonical = json.dumps(last["deal"], sort_keys=True, separators=(",", ":"), ensure_ascii=True)
            assert hashlib.sha256(canonical.encode("ascii")).hexdigest() == last["deal_hash"]

    async def check_arrived(sockets, until) -> None:
        # Checked while the seats are as they were when the frames were sent (ben watches until he joins).
        for socket in sockets:
            seen = len(socket.frames)
            await socket.until(until)
            for frame in socket.frames[seen:]:
                if frame["type"] == "state":
                    await check(socket, frame)

    await check_arrived((anna, ben, sven, anonymous), lambda f: f["type"] == "state")
    await ben.send({"type": "join", "invite": table.invite_token})
    await check_arrived((anna, ben, sven, anonymous), lambda f: f["type"] == "state" and f["table"]["status"] == "playing")
    final = await play_over_sockets({0: anna, 1: ben}, watchers=(sven, anonymous), on_state=check)
    assert final["table"]["status"] == "finished"
    assert len(rounds_seen) >= 2, "the match must reach a second round for last_deal to be tested"
    assert all(count >= 10 for count in checked.values()), checked
    # Those who asked got most changes as deltas (checked above as the states they make); ben got his while
    # watching and then seated; the anonymous socket did not ask and got whole frames only.
    assert all(len(socket.deltas) >= 10 for socket in (anna, ben, sven)) and anonymous.deltas == []
    for socket in (anna, ben, sven, anonymous):
        await socket.close()


@pytest.mark.django_db(transaction=True)
async def test_no_frame_of_a_romme_round_shows_a_hidden_card(players):
    table = await sync_to_async(services.table_create)(user=players[0], game="romme", options={"seats": 3, "rounds": 1})
    anna = await Socket.open(table.pk, players[0], deltas=True)
    anonymous = await Socket.open(table.pk, deltas=True)
    for socket in (anna, anonymous):
        await socket.until(lambda f: f["type"] == "state")
    await anna.send({"type": "bots", "level": "expert"})
    for socket in (anna, anonymous):
        await socket.until(lambda f: f["type"] == "state" and f["table"]["status"] == "playing")
    checked = {"anna": 0, "anonymous": 0}

    @sync_to_async
    def check(socket, frame):
        stored = Table.objects.get(pk=table.pk)
        if assert_nothing_secret(frame, stored, audience=seat_held(table.pk, socket.user),
                                 checked_against_truth=frame["version"] == stored.version):
            checked[socket.name] += 1

    final = await play_over_sockets({0: anna}, watchers=(anonymous,), on_state=check)
    assert final["table"]["status"] == "finished"
    assert all(count >= 5 for count in checked.values()), checked
    for socket in (anna, anonymous):
        await socket.close()


@pytest.mark.django_db
def test_the_review_catches_a_seats_frame_sent_to_a_spectator(players):
    # The audience is whom the frame went to: seat 0's frame is fine for seat 0, however it is labelled a
    # leak for anyone else.
    table = _gin_in_play(players)
    annas = selectors.table_state_for(table_id=table.pk, user=players[0])
    assert assert_nothing_secret(annas, table, audience=0, checked_against_truth=True)
    relabelled = {**annas, "table": {**annas["table"], "you": None}}
    for forged, audience in ((annas, None), (relabelled, None), (annas, 1)):
        with pytest.raises(AssertionError, match="hidden cards"):
            assert_nothing_secret(forged, table, audience=audience, checked_against_truth=True)


# --- the timeout move is not shown before it is played --------------------------------------------------


def _gin_in_play(players, *, private: bool = False) -> Table:
    table = services.table_create(user=players[0], game="gin", preset="klassisch", private=private)
    services.table_join(table_id=table.pk, user=players[1], invite_token=table.invite_token)
    return Table.objects.get(pk=table.pk)


def _play(table: Table, players, moves: int) -> Table:
    """``moves`` moves of the test players through the services (round breaks confirmed by both)."""
    for _ in range(moves):
        table = Table.objects.get(pk=table.pk)
        state = registry.get(table.game).engine.Match.from_json(table.state)
        if state.to_act is None:
            for user in players[:2]:
                services.round_ready(table_id=table.pk, user=user)
            continue
        view = registry.get(table.game).engine.view(state, state.to_act)
        services.move_apply(table_id=table.pk, user=players[state.to_act], version=table.version,
                            action=choose_action(view))
    return Table.objects.get(pk=table.pk)


@pytest.mark.django_db
def test_the_timeout_move_is_not_in_any_frame_before_it_is_played(players, spectator):
    table = _gin_in_play(players)
    for _ in range(4):  # the first-turn offer, then a draw: a discard is up, the server's choice is a hidden card
        state = registry.get("gin").engine.Match.from_json(table.state)
        if state.phase == "discard":
            break
        table = _play(table, players, 1)
    actor = state.to_act
    assert state.phase == "discard"
    planned = registry.get("gin").engine.timeout_actions(state)
    card = planned[-1]["card"]
    for user, seat in ((players[1 - actor], 1 - actor), (spectator, None), (None, None)):
        frame = selectors.table_state_for(table_id=table.pk, user=user)
        assert frame["table"]["you"] == seat
        assert card in hidden_from(table, seat)
        assert card not in cards_in(round_in_play_part(frame))
        assert "timeout" not in json.dumps(frame["view"]).replace('"timeouts"', "")
    assert services.turn_timeout(table_id=table.pk, now=table.turn_deadline + timedelta(seconds=1))
    after = selectors.table_state_for(table_id=table.pk, user=spectator)
    assert after["view"]["history"][-1]["card"] == card  # once played, it is public


# --- the table page's embedded first frame ----------------------------------------------------------------


def _page(table: Table, user, token: str = "") -> str:
    client = Client()
    if user is not None:
        client.force_login(user)
    response = client.get(reverse("games:table", kwargs={"table_id": table.pk}), {"einladung": token} if token else {})
    assert response.status_code == 200
    return response.content.decode()


def _config(html: str) -> dict:
    marker = '<script id="table-config" type="application/json">'
    start = html.index(marker) + len(marker)
    return json.loads(html[start : html.index("</script>", start)])


@pytest.mark.django_db
def test_the_table_page_embeds_no_hidden_card_of_another_seat(players, spectator):
    table = _play(_gin_in_play(players, private=True), players, 5)
    viewers = ((players[0], 0), (players[1], 1), (spectator, None), (None, None))
    for user, seat in viewers:
        html = _page(table, user, table.invite_token)
        config = _config(html)
        assert config["state"] == selectors.table_state_for(table_id=table.pk, user=user)
        assert seat_held(table.pk, user) == seat
        assert_nothing_secret(config["state"], table, audience=seat, checked_against_truth=True)
        # Round 1 is in play, so no card of it may appear anywhere in the page unless this viewer may see it.
        quoted = {card for card in hidden_from(table, seat) if f'"{card}"' in html or f">{card}<" in html}
        assert not quoted, f"{user} sees {sorted(quoted)} in the page"
        assert SEED not in html


@pytest.mark.django_db
def test_the_table_page_in_a_later_round_embeds_no_card_of_the_round_in_play(players, spectator):
    table = _gin_in_play(players)
    for _ in range(400):
        table = _play(table, players, 1)
        if table.state["round"]["number"] >= 2 and table.state["round"]["phase"] != "round_over":
            break
    assert table.state["round"]["number"] == 2
    table = _play(table, players, 3)
    for user, seat in ((players[0], 0), (players[1], 1), (spectator, None)):
        config = _config(_page(table, user))
        assert seat_held(table.pk, user) == seat
        assert config["state"]["table"]["last_deal"]["number"] == 1
        assert assert_nothing_secret(config["state"], table, audience=seat, checked_against_truth=True)


# --- the record download -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_record_download_holds_only_finished_rounds(players, spectator):
    table = _play(_gin_in_play(players), players, 4)
    url = reverse("games:record", kwargs={"table_id": table.pk})
    watcher = Client()
    watcher.force_login(spectator)
    record = json.loads(watcher.get(url).content)
    assert record["rounds"] == [] and record["game"] == "gin"
    for _ in range(400):
        table = _play(table, players, 1)
        if table.state["round"]["number"] >= 2 and table.state["round"]["phase"] != "round_over":
            break
    table = _play(table, players, 2)
    current = Round.objects.get(match=table.current_match, number=2)
    assert current.finished_at is None
    for client in (watcher, Client()):
        response = client.get(url)
        text = response.content.decode()
        record = json.loads(text)
        assert [r["number"] if "number" in r else i + 1 for i, r in enumerate(record["rounds"])] == [1]
        for hand in current.deal["hands"]:
            assert json.dumps(hand) not in text and json.dumps(hand, separators=(",", ":")) not in text
        assert json.dumps(current.deal["stock"][:5])[1:-1] not in text
        assert SEED not in text and '"hands_now"' not in text


@pytest.mark.django_db(transaction=True)
async def test_whoever_left_a_seat_never_receives_the_next_occupants_cards(players):
    anna, ben, cleo, dora = players
    table = await sync_to_async(services.table_create)(user=anna, game="romme", options={"seats": 3, "rounds": 1})
    await sync_to_async(services.table_join)(table_id=table.pk, user=ben, seat=1)
    ben_socket = await Socket.open(table.pk, ben)
    assert (await ben_socket.until(lambda f: f["type"] == "state"))["table"]["you"] == 1
    await ben_socket.send({"type": "leave"})
    await ben_socket.until(lambda f: f["type"] == "state" and f["table"]["you"] is None)
    await sync_to_async(services.table_join)(table_id=table.pk, user=cleo, seat=1)
    await sync_to_async(services.table_join)(table_id=table.pk, user=dora)
    started = await ben_socket.until(lambda f: f["type"] == "state" and f["table"]["status"] == "playing")
    await ben_socket.send({"type": "sync"})
    await ben_socket.until_version(started["version"])
    await ben_socket.drain()
    states = [f for f in ben_socket.frames if f["type"] == "state" and f["table"]["status"] == "playing"]
    assert states
    stored = await sync_to_async(Table.objects.get)(pk=table.pk)
    assert await sync_to_async(seat_held)(table.pk, ben) is None
    for frame in states:
        assert "hand" not in frame["view"]
        assert assert_nothing_secret(frame, stored, audience=None, checked_against_truth=True)
    await ben_socket.close()


@pytest.mark.django_db
@pytest.mark.parametrize(("game", "preset", "options"), [("gin", "schnell", {}), ("romme", "standard", {"seats": 2})])
def test_the_spectator_fence_strips_what_each_game_declares_seat_only(players, monkeypatch, game, preset, options):
    # A second fence: were a game's engine to hand a spectator a seat's view, the presenter still strips the
    # hand, the legal actions and every key the game's entry names as its seat's only (gin's deadwood meter,
    # Rommé's Augen and best opening).
    from games.reads import presenters

    table = services.table_create(user=players[0], game=game, preset=preset, options=options)
    services.table_join(table_id=table.pk, user=players[1])
    entry = registry.get(game)
    seat_view = entry.view
    monkeypatch.setattr(entry, "view",
                        lambda state, seat, *, points=None: seat_view(state, state.to_act, points=points))
    snapshot = selectors.table_snapshot(table=Table.objects.get(pk=table.pk))
    seat_only = {"hand", "legal_actions", *entry.seat_only_keys}
    assert seat_only <= set(presenters.game_view(snapshot, snapshot.state.to_act))
    assert seat_only & set(presenters.game_view(snapshot, None)) == set()
