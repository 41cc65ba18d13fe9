"""The table socket only translates (DESIGN.md, "One move, end to end"): it checks a message's shape and calls
one selector or service. The rules it used to run itself are behind selectors now: ``meld_preview`` (the
engine's Rommé hints) and the handshake's reads (``table_opening``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async

from games import services
from games.models import Table
from games.reads import selectors
from tests.games.helpers import Socket, state_of

CONSUMERS = Path(__file__).resolve().parents[2] / "games" / "web" / "consumers.py"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def test_the_consumer_imports_no_rules_no_models_and_no_presenter():
    imported = imported_modules(CONSUMERS)
    assert sorted(m for m in imported if m.startswith(("games.engine", "games.models", "games.reads.presenters",
                                                       "games.kinds"))) == []


# --- meld_preview ----------------------------------------------------------------------------------------


def test_a_meld_preview_gives_the_order_and_points_of_the_best_reading():
    assert selectors.meld_preview(game="romme", cards=["7H", "JK", "5H"]) == {"meld": ["5H", "JK", "7H"], "points": 18, "kind": "run"}


def test_a_meld_preview_of_a_set_puts_its_joker_last():
    answer = selectors.meld_preview(game="romme", cards=["JK", "QS", "QH"])
    assert answer["kind"] == "set" and answer["meld"][-1] == "JK" and answer["points"] == 30


def test_a_meld_preview_of_fewer_than_three_cards_is_no_meld_whatever_they_are():
    for cards in (["7H"], ["7H", "8H"], ["JK", "JK"]):
        assert selectors.meld_preview(game="romme", cards=cards) == {
            "meld": None, "points": None, "error": f"a meld needs at least 3 cards, not {len(cards)}"}


def test_a_meld_preview_of_no_meld_says_why():
    answer = selectors.meld_preview(game="romme", cards=["7H", "8C", "9H"])
    assert answer["meld"] is None and answer["points"] is None and "neither a set" in answer["error"]


@pytest.mark.django_db(transaction=True)
async def test_the_socket_answers_a_meld_preview_with_the_selectors_answer(players):
    table = await sync_to_async(services.table_create)(user=players[0], game="romme", preset="standard",
                                                       options={"seats": 3})
    for user in players[1:3]:
        await sync_to_async(services.table_join)(table_id=table.pk, user=user)
    to_act = await sync_to_async(lambda: state_of(Table.objects.get(pk=table.pk)).to_act)()
    socket = await Socket.open(table.pk, players[to_act])  # only the seat to act may ask (test_meld_preview_socket)
    await socket.until(lambda f: f["type"] == "state")
    for n, cards in enumerate((["7H", "JK", "5H"], ["JK", "JK"], ["7H", "8C", "9H"])):
        await socket.send({"type": "meld_preview", "id": n, "cards": cards})
        answer = await socket.until(lambda f: f["type"] in ("meld_preview", "error"))
        assert answer == {"type": "meld_preview", "id": n, "cards": cards, **selectors.meld_preview(game="romme", cards=cards)}
    await socket.close()


# --- the handshake ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_opening_a_table_that_does_not_exist_is_none(players):
    assert selectors.table_opening(table_id=987654, user=players[0]) is None


@pytest.mark.django_db
def test_opening_a_private_table_without_its_invitation_is_refused(players):
    table = services.table_create(user=players[0], game="gin", private=True)
    assert selectors.table_opening(table_id=table.pk, user=players[1]) is False
    state, _chat = selectors.table_opening(table_id=table.pk, user=players[1], invite_token=table.invite_token)
    assert state["table"]["you"] is None


@pytest.mark.django_db
def test_opening_a_table_gives_the_seat_its_own_view_and_the_chat(players):
    table = services.table_create(user=players[0], game="gin")
    services.table_join(table_id=table.pk, user=players[1])
    state, chat = selectors.table_opening(table_id=table.pk, user=players[1])
    assert state == selectors.table_state_for(table_id=table.pk, user=players[1])
    assert state["table"]["you"] is not None and chat == selectors.chat_recent(table_id=table.pk)
