"""Hidden information: every frame one player (and one spectator) is sent during whole matches of both games
is checked against the true state at that version. None may carry another seat's cards before the rules
reveal them, the stock order, the current round's deal, or a seed."""

import json
from collections import Counter

import pytest
from asgiref.sync import sync_to_async

from games import engines, services
from games.engine.cards import gin_deck, is_card, romme_deck
from games.models import Table
from tests.games.helpers import Socket, play_over_sockets

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


def check_frame(frame: dict, table: Table) -> None:
    """Fail if ``frame`` shows anything its receiver may not see at this version of ``table``."""
    assert frame["version"] == table.version, "the check must see the state the frame was built from"
    assert SEED not in json.dumps(frame)
    engine = engines.engine(table.game)
    state = engine.Match.from_json(table.state)
    seat = frame["table"]["you"]
    view = frame["view"]
    revealed_deal = frame["table"]["last_deal"]
    # Everything but the revealed round summaries may never carry a hand, the stock or a seed.
    visible = {**view, "last_round": None}
    visible_table = {**frame["table"], "last_deal": None}
    assert not (keys_in(visible) | keys_in(visible_table)) & FORBIDDEN_KEYS
    if seat is None:
        assert "hand" not in view and "legal_actions" not in view
    else:
        assert view["hand"] == engine.view(state, seat)["hand"]
        assert ("legal_actions" in view) == (state.to_act == seat)
    if state.to_act is None:
        return  # between rounds or after the match: the rules reveal the hands
    if revealed_deal is not None:
        assert revealed_deal["number"] < state.round_number
    deal = state.current_deal()
    deck = gin_deck() if table.game == "gin" else romme_deck()
    hidden = Counter()
    for other in range(len(frame["table"]["seats"])):
        if other != seat:
            hidden.update(engine.view(state, other)["hand"])
    history = view["history"]
    if not any(move["action"] == "reshuffle" for move in history):
        drawn = len(deal["stock"]) - view["stock_size"]
        hidden.update(deal["stock"][drawn:])
    taken_from_pile = {m.get("card") for m in history if m["action"] == "draw" and m.get("from") == "discard"}
    copies = Counter(deck)
    shown = cards_in(visible) | cards_in(visible_table)
    own = set(view.get("hand", ()))
    # A card every copy of which is hidden and that was never public this round must not be shown.
    leaks = {c for c in shown - own - taken_from_pile if hidden[c] == copies[c]}
    assert not leaks, f"frame {frame['version']} to seat {seat} shows hidden cards {sorted(leaks)}"


async def watch_and_check(sockets: dict[int, Socket], watchers: list[Socket], observed: list[Socket]) -> dict:
    checked = Counter()

    async def on_state(socket, frame):
        if socket in observed:
            table = await sync_to_async(Table.objects.get)(pk=frame["table"]["id"])
            await sync_to_async(check_frame)(frame, table)
            checked[socket.name] += 1

    final = await play_over_sockets(sockets, watchers=watchers, on_state=on_state)
    return {"final": final, "checked": checked}


async def test_no_gin_frame_shows_hidden_cards(players, spectator):
    table = await sync_to_async(services.table_create)(user=players[0], game="gin", preset="klassisch",
                                                       options={"target": 50})
    anna = await Socket.open(table.pk, players[0])
    ben = await Socket.open(table.pk, players[1])
    sven = await Socket.open(table.pk, spectator)
    await ben.send({"type": "join"})
    for socket in (anna, ben, sven):
        await socket.until(lambda f: f["type"] == "state" and f["table"]["status"] == "playing")
    outcome = await watch_and_check({0: anna, 1: ben}, [sven], observed=[anna, sven])
    assert outcome["final"]["table"]["status"] == "finished"
    assert outcome["final"]["view"]["round_number"] >= 2  # a whole match of several rounds
    assert outcome["checked"]["anna"] > 20 and outcome["checked"]["sven"] > 20
    # Every frame anna was sent carries a version and only her own seat's view.
    states = [f for f in anna.frames if f["type"] == "state"]
    assert all(f["table"]["you"] == 0 for f in states)
    assert [f["version"] for f in states] == sorted(f["version"] for f in states)
    for socket in (anna, ben, sven):
        await socket.close()


async def test_no_romme_frame_shows_hidden_cards(players, spectator):
    table = await sync_to_async(services.table_create)(user=players[0], game="romme", preset="standard",
                                                       options={"seats": 3, "rounds": 3})
    anna = await Socket.open(table.pk, players[0])
    ben = await Socket.open(table.pk, players[1])
    sven = await Socket.open(table.pk, spectator)
    await ben.send({"type": "join"})
    await ben.until(lambda f: f["type"] == "state" and f["table"]["you"] == 1)
    await anna.send({"type": "bots", "level": "expert"})
    for socket in (anna, ben, sven):
        await socket.until(lambda f: f["type"] == "state" and f["table"]["status"] == "playing")
    outcome = await watch_and_check({0: anna, 1: ben}, [sven], observed=[anna, sven])
    final = outcome["final"]
    assert final["table"]["status"] == "finished" and final["view"]["over"]
    assert len(final["view"]["scores"]["rounds"]) == 3  # the whole list: every seat dealt once
    assert outcome["checked"]["anna"] > 20 and outcome["checked"]["sven"] > 20
    for socket in (anna, ben, sven):
        await socket.close()


def test_the_leak_check_catches_a_hand_in_a_frame(players):
    """The check above can fail: a frame carrying the other seat's hand is caught."""
    table = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
    services.table_join(table_id=table.pk, user=players[1])
    table = Table.objects.get(pk=table.pk)
    from games import selectors

    frame = selectors.table_state_for(table_id=table.pk, user=players[0])
    check_frame(frame, table)
    other_hand = engines.engine("gin").view(engines.engine("gin").Match.from_json(table.state), 1)["hand"]
    leaking = {**frame, "view": {**frame["view"], "opponent": other_hand}}
    with pytest.raises(AssertionError, match="hidden cards"):
        check_frame(leaking, table)
    stock_top = json.loads(json.dumps(table.state))["round"]["stock"][0]
    with pytest.raises(AssertionError, match="hidden cards"):
        check_frame({**frame, "view": {**frame["view"], "next": stock_top}}, table)
