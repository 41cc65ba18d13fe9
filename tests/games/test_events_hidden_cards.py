"""Hidden information: every frame one player (and one spectator) is sent during whole matches of both games
is checked against the true state at that version. None may carry another seat's cards before the rules
reveal them, the stock order, the current round's deal, or a seed."""

import json
from collections import Counter

import pytest
from asgiref.sync import sync_to_async

from games import registry, services
from games.engine.cards import gin_deck, is_card, romme_deck
from games.models import Table
from games.reads import selectors
from tests.games.helpers import SentFrames, Socket, play_over_sockets, seat_held

pytestmark = pytest.mark.django_db(transaction=True)

SEED = "live-play-tests"
#: Keys that would carry a whole hand, the stock or the randomness; allowed only in a revealed deal.
FORBIDDEN_KEYS = {"seed", "rng", "stock", "hands", "hands_now", "deal_hands", "deal", "state"}


#: Where a meld on the table says which card a joker stands for: a meaning, not a card shown.
JOKER_MEANINGS = {"stands_for", "jokers"}


def cards_in(value) -> set[str]:
    """Every card code in ``value``, except what a joker on the table stands for (that card is not shown)."""
    if isinstance(value, str):
        return {value} if is_card(value, allow_joker=True) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for k, v in value.items() if k not in JOKER_MEANINGS)) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def keys_in(value) -> set[str]:
    if isinstance(value, dict):
        return set(value).union(*(keys_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(keys_in(v) for v in value)) if value else set()
    return set()


def check_frame(frame: dict, table: Table, *, audience: int | None) -> None:
    """Fail if ``frame`` shows anything its receiver may not see at this version of ``table``.

    ``audience`` is whom the frame was sent to (a seat index, or None: a spectator), known from the group or
    socket it went to, never from the frame itself: a spectator sent a seat's frame must fail."""
    assert frame["version"] == table.version, "the check must see the state the frame was built from"
    assert SEED not in json.dumps(frame)
    engine = registry.get(table.game).engine
    state = engine.Match.from_json(table.state)
    view = frame["view"]
    revealed_deal = frame["table"]["last_deal"]
    # Everything but the revealed round summaries may never carry a hand, the stock or a seed.
    visible = {**view, "last_round": None}
    visible_table = {**frame["table"], "last_deal": None}
    assert not (keys_in(visible) | keys_in(visible_table)) & FORBIDDEN_KEYS
    own = engine.view(state, audience)["hand"] if audience is not None else []
    if state.to_act is not None:  # a round in play (between rounds and after the match the hands are shown)
        if revealed_deal is not None:
            assert revealed_deal["number"] < state.round_number
        deal = state.current_deal()
        deck = gin_deck() if table.game == "gin" else romme_deck()
        hidden = Counter()
        for other in range(len(frame["table"]["seats"])):
            if other != audience:
                hidden.update(engine.view(state, other)["hand"])
        history = view["history"]
        if not any(move["action"] == "reshuffle" for move in history):
            drawn = len(deal["stock"]) - view["stock_size"]
            hidden.update(deal["stock"][drawn:])
        taken_from_pile = {m.get("card") for m in history if m["action"] == "draw" and m.get("from") == "discard"}
        copies = Counter(deck)
        shown = cards_in(visible) | cards_in(visible_table)
        # A card every copy of which is hidden and that was never public this round must not be shown.
        leaks = {c for c in shown - set(own) - taken_from_pile if hidden[c] == copies[c]}
        assert not leaks, f"frame {frame['version']} sent to seat {audience} shows hidden cards {sorted(leaks)}"
    assert frame["table"]["you"] == audience, f"a frame for seat {frame['table']['you']} was sent to {audience}"
    if audience is None:
        assert "hand" not in view and "legal_actions" not in view
    else:
        assert view["hand"] == own
        assert ("legal_actions" in view) == (state.to_act == audience)


async def watch_and_check(sockets: dict[int, Socket], watchers: list[Socket], observed: list[Socket],
                          sent: SentFrames) -> dict:
    """Play the table out; check every state frame the ``observed`` sockets receive (their audience: the
    seat their user holds) and every state frame ``games.delivery.events`` sends to any group (its audience: the
    seat of the group's user, or none for the public group)."""
    checked = Counter()
    sent.take()  # what was sent while the table filled is not part of the match

    @sync_to_async
    def check(socket, frame):
        table = Table.objects.get(pk=frame["table"]["id"])
        if socket in observed:
            check_frame(frame, table, audience=seat_held(table.pk, socket.user))
            checked[socket.name] += 1
        for group, sent_frame in sent.take():
            audience = sent.audience(group, table.pk)
            check_frame(sent_frame, table, audience=audience)
            checked[f"sent to seat {audience}"] += 1

    final = await play_over_sockets(sockets, watchers=watchers, on_state=check)
    return {"final": final, "checked": checked}


async def test_no_gin_frame_shows_hidden_cards(players, spectator, monkeypatch):
    sent = SentFrames(monkeypatch)
    table = await sync_to_async(services.table_create)(user=players[0], game="gin", preset="klassisch",
                                                       options={"target": 50})
    anna = await Socket.open(table.pk, players[0], deltas=True)
    ben = await Socket.open(table.pk, players[1])
    sven = await Socket.open(table.pk, spectator, deltas=True)
    await ben.send({"type": "join"})
    for socket in (anna, ben, sven):
        await socket.until(lambda f: f["type"] == "state" and f["table"]["status"] == "playing")
    outcome = await watch_and_check({0: anna, 1: ben}, [sven], observed=[anna, sven], sent=sent)
    assert outcome["final"]["table"]["status"] == "finished"
    assert outcome["final"]["view"]["round_number"] >= 2  # a whole match of several rounds
    assert outcome["checked"]["anna"] > 20 and outcome["checked"]["sven"] > 20
    assert all(outcome["checked"][f"sent to seat {seat}"] > 20 for seat in (0, 1, None)), outcome["checked"]
    # Most changes went as deltas (checked above as the states they make), to the seats and the spectators.
    assert {group for group, _ in sent.deltas} >= {f"table.{table.pk}.public"}
    assert len(sent.deltas) > 40 and len(anna.deltas) > 20 and len(sven.deltas) > 20
    assert ben.deltas == []  # a client that did not ask (?frames=delta) gets whole frames, as before
    # Every frame anna was sent carries a version and only her own seat's view.
    states = [f for f in anna.frames if f["type"] == "state"]
    assert all(f["table"]["you"] == 0 for f in states)
    assert [f["version"] for f in states] == sorted(f["version"] for f in states)
    for socket in (anna, ben, sven):
        await socket.close()


async def test_no_romme_frame_shows_hidden_cards(players, spectator, monkeypatch):
    sent = SentFrames(monkeypatch)
    table = await sync_to_async(services.table_create)(user=players[0], game="romme", preset="standard",
                                                       options={"seats": 3, "rounds": 3})
    anna = await Socket.open(table.pk, players[0], deltas=True)
    ben = await Socket.open(table.pk, players[1])
    sven = await Socket.open(table.pk, spectator, deltas=True)
    await ben.send({"type": "join"})
    await ben.until(lambda f: f["type"] == "state" and f["table"]["you"] == 1)
    await anna.send({"type": "bots", "level": "expert"})
    for socket in (anna, ben, sven):
        await socket.until(lambda f: f["type"] == "state" and f["table"]["status"] == "playing")
    outcome = await watch_and_check({0: anna, 1: ben}, [sven], observed=[anna, sven], sent=sent)
    final = outcome["final"]
    assert final["table"]["status"] == "finished" and final["view"]["over"]
    assert len(final["view"]["scores"]["rounds"]) == 3  # the whole list: every seat dealt once
    assert outcome["checked"]["anna"] > 20 and outcome["checked"]["sven"] > 20
    # The computer player's seat has no user group: nothing is sent for seat 2.
    assert all(outcome["checked"][f"sent to seat {seat}"] > 20 for seat in (0, 1, None)), outcome["checked"]
    assert len(sent.deltas) > 40 and len(anna.deltas) > 20 and len(sven.deltas) > 20
    for socket in (anna, ben, sven):
        await socket.close()


def test_the_leak_check_catches_a_hand_in_a_frame(players):
    """The check above can fail: a frame carrying the other seat's hand is caught."""
    table = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
    services.table_join(table_id=table.pk, user=players[1])
    table = Table.objects.get(pk=table.pk)

    frame = selectors.table_state_for(table_id=table.pk, user=players[0])
    check_frame(frame, table, audience=0)
    other_hand = registry.get("gin").engine.view(registry.get("gin").engine.Match.from_json(table.state), 1)["hand"]
    leaking = {**frame, "view": {**frame["view"], "opponent": other_hand}}
    with pytest.raises(AssertionError, match="hidden cards"):
        check_frame(leaking, table, audience=0)
    stock_top = json.loads(json.dumps(table.state))["round"]["stock"][0]
    with pytest.raises(AssertionError, match="hidden cards"):
        check_frame({**frame, "view": {**frame["view"], "next": stock_top}}, table, audience=0)


def test_the_leak_check_catches_a_seats_frame_sent_to_a_spectator(players):
    """The audience is whom a frame went to, not what the frame says: seat 0's own frame is fine for seat 0,
    a leak for a spectator or for seat 1, however it is labelled."""
    table = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
    services.table_join(table_id=table.pk, user=players[1])
    table = Table.objects.get(pk=table.pk)
    annas = selectors.table_state_for(table_id=table.pk, user=players[0])
    check_frame(annas, table, audience=0)
    check_frame(selectors.table_state_for(table_id=table.pk, user=None), table, audience=None)

    relabelled = {**annas, "table": {**annas["table"], "you": None}}  # forged to look public
    for forged, audience in ((annas, None), (relabelled, None), (annas, 1)):
        with pytest.raises(AssertionError, match="hidden cards"):
            check_frame(forged, table, audience=audience)
