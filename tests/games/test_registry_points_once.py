"""The score sheet is computed once per move: every audience's view of one state (each seat, the spectators)
shares the points the game's registry entry computed for that state, instead of scoring the facts again."""

from __future__ import annotations

import pytest

from games import registry, services
from games.delivery import events
from games.kinds.romme import points as romme_points
from games.models import Table
from tests import points as outcomes
from tests.games.helpers import choose_action, state_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def romme_table_of_four(players):
    table = services.table_create(user=players[0], game="romme", preset="standard", options={"seats": 4})
    for user in players[1:]:
        services.table_join(table_id=table.pk, user=user)
    table = Table.objects.get(pk=table.pk)
    assert table.status == Table.Status.PLAYING
    return table


@pytest.fixture
def counted(monkeypatch):
    """How often the Rommé points functions run, and the messages each change fans out."""
    calls = {"score_sheet": 0, "outcome": 0}
    sent: list[list] = []
    for name, key in (("score_sheet", "score_sheet"), ("outcome", "outcome")):
        original = getattr(romme_points, name)

        def counting(facts, _original=original, _key=key):
            calls[_key] += 1
            return _original(facts)

        monkeypatch.setattr(romme_points, name, counting)
    send = events.send_after_commit

    def recording(messages):
        sent.append(messages)
        send(messages)

    monkeypatch.setattr(events, "send_after_commit", recording)
    return calls, sent


def play_one_move(table: Table, players) -> None:
    state = state_of(table)
    seat = state.to_act
    view = registry.get("romme").engine.view(state, seat)
    services.move_apply(table_id=table.pk, user=players[seat], version=table.version, action=choose_action(view))


def test_a_move_at_a_four_seat_romme_table_scores_the_sheet_once_for_all_five_audiences(
        romme_table_of_four, players, counted):
    calls, sent = counted
    play_one_move(romme_table_of_four, players)
    (messages,) = sent
    frames = [m["frame"] for _group, m in messages if m.get("type") == "table.frame"]
    assert len(frames) == 5  # four seats and the public view
    # The list runs on: no result to score yet, and the score sheet once for all five.
    assert calls == {"score_sheet": 1, "outcome": 0}


def test_every_audience_gets_the_same_score_sheet_the_facts_give(romme_table_of_four, players, counted):
    _calls, sent = counted
    play_one_move(romme_table_of_four, players)
    state = state_of(Table.objects.get(pk=romme_table_of_four.pk))
    expected = outcomes.score_sheet(state.facts())
    (messages,) = sent
    views = [m["frame"]["view"] for _group, m in messages if m.get("type") == "table.frame"]
    assert all(view["scores"] == expected and view["result"] is None for view in views)
    assert sorted(view.get("seat") for view in views if view.get("seat") is not None) == [0, 1, 2, 3]


def test_a_view_built_alone_still_carries_its_points(romme_table_of_four):
    state = state_of(romme_table_of_four)
    view = registry.get("romme").view(state, 0)
    assert view["scores"] == outcomes.score_sheet(state.facts()) and view["result"] is None
