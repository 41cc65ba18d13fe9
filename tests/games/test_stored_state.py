"""The table row's state without the finished rounds' records (issue 24): the site stores what the game's entry
keeps (``GameEntry.stored_state``), reads the record of the round a change ends alone (``round_record``) and puts
a Round row's record back into the state for a change that adds to it (``with_round_record``).
Each match here is played twice with the same deals and players: once storing the whole state (the base hooks, as
before), once the compact one; what players see and what the site records must not differ."""

from __future__ import annotations

import copy
import random
from datetime import UTC, datetime
from unittest import mock

import pytest

from games import registry, services
from games.kinds.base import GameEntry
from games.models import Match, Round, Table
from games.reads.records import record_export
from games.services import _course
from tests.factories import PLAYERS, users
from tests.games import helpers
from tests.play import rows_kept_for_the_scope

#: The moment the compared records are signed at.
SIGNED_AT = datetime(2026, 12, 6, 10, 0, 0, tzinfo=UTC)

pytestmark = pytest.mark.django_db


def create(game: str, players) -> Table:
    if game == "gin":
        table = services.table_create(user=players[0], game="gin", preset="klassisch", options={"target": 150})
        services.table_join(table_id=table.pk, user=players[1])
    else:
        table = services.table_create(user=players[0], game="romme", preset="standard",
                                      options={"seats": 3, "rounds": 5})
        services.table_join(table_id=table.pk, user=players[1])
        services.table_fill_with_bots(table_id=table.pk, user=players[0], level="simple")
    return Table.objects.get(pk=table.pk)


def play(game: str, players, monkeypatch, *, whole: bool) -> tuple[Table, list[dict]]:
    """Play a match to its end through the services; every state the table row stored, in order."""
    stored: list[dict] = []
    finish = _course.Play.finish

    def recorded_finish(play):
        snapshot = finish(play)
        stored.append(copy.deepcopy(play.table.state))
        return snapshot

    with monkeypatch.context() as patch:
        patch.setattr(_course.Play, "finish", recorded_finish)
        patch.setattr(helpers, "_RNG", random.Random(5))  # the test players choose the same in both plays
        if whole:  # the site as it was: the whole state in the row, a round's record from record()
            entry_class = type(registry.get(game))
            patch.setattr(entry_class, "stored_state", GameEntry.stored_state)
            patch.setattr(entry_class, "round_record", GameEntry.round_record)
        table = create(game, players)
        people = [players[0], players[1]] + [None] * (table.seat_count - 2)
        finished = helpers.play_out(table.pk, people)
    assert finished.status == Table.Status.FINISHED
    return finished, stored


def records_in(game: str, data: dict) -> list:
    return [rec for rec, _ in data["finished"]] if game == "gin" else data["finished"]


@pytest.fixture(scope="module")
def _both_played(request, django_db_setup, django_db_blocker):
    """The game's match played both ways, once for the module's tests of that game, which only read it (what a
    test writes is rolled back after it: tests/play.py): the game, the tables' ids and the states each stored."""
    game = request.param

    def make():
        players = users(*PLAYERS)
        with pytest.MonkeyPatch.context() as monkeypatch:
            whole_table, whole_states = play(game, players, monkeypatch, whole=True)
            compact_table, compact_states = play(game, players, monkeypatch, whole=False)
        return game, (whole_table.pk, whole_states), (compact_table.pk, compact_states)

    yield from rows_kept_for_the_scope(django_db_blocker, make, seed="issue-24")


@pytest.fixture
def both(_both_played):
    """The game, and each way's table (read afresh) with the states it stored (a copy for each test)."""
    game, (whole_id, whole_states), (compact_id, compact_states) = _both_played
    return (game, (Table.objects.get(pk=whole_id), copy.deepcopy(whole_states)),
            (Table.objects.get(pk=compact_id), copy.deepcopy(compact_states)))


@pytest.mark.parametrize("_both_played", ["gin", "romme"], indirect=True)
def test_the_stored_state_has_no_finished_rounds_record_and_the_same_summaries_scores_and_views(both):
    game, (_, whole_states), (compact_table, compact_states) = both
    entry = registry.get(game)
    assert len(compact_states) == len(whole_states)
    several = 0
    for whole, compact in zip(whole_states, compact_states, strict=True):
        assert None not in records_in(game, whole)
        records = records_in(game, compact)
        assert all(rec is None for rec in records)
        assert len(records) == len(records_in(game, whole))
        several += len(records) >= 3
        read_whole, read_compact = entry.engine.Match.from_json(whole), entry.engine.Match.from_json(compact)
        assert read_compact.facts() == read_whole.facts()
        assert entry.points(read_compact) == entry.points(read_whole)
        for seat in [None, *range(compact_table.seat_count)]:
            assert entry.view(read_compact, seat) == entry.view(read_whole, seat)
        # Nothing but the records is left out.
        assert entry.stored_state(read_whole) == compact
    assert several > 0  # the match had states after three finished rounds or more


@pytest.mark.parametrize("_both_played", ["gin", "romme"], indirect=True)
def test_a_match_played_to_its_end_stores_the_same_round_records_and_match_record_as_with_the_whole_state(both):
    game, (whole_table, _), (compact_table, _) = both
    whole_match, compact_match = Match.objects.get(table=whole_table), Match.objects.get(table=compact_table)
    assert compact_match.status == whole_match.status == Match.Status.FINISHED
    assert (compact_match.result, compact_match.final_scores, compact_match.winner_seat) == (
        whole_match.result, whole_match.final_scores, whole_match.winner_seat)

    def rounds(match: Match) -> list[tuple]:
        return list(Round.objects.filter(match=match).order_by("number").values_list(
            "number", "deal_hash", "record", "result"))

    assert rounds(compact_match) == rounds(whole_match)
    assert len(rounds(compact_match)) >= 3
    assert all(record for _, _, record, _ in rounds(compact_match))

    def exported(match: Match) -> dict:
        # At one moment for both: the signature covers the signing time (in seconds), and two exports on either
        # side of a second's turn would differ in it.
        with mock.patch("games.reads.records.timezone.now", return_value=SIGNED_AT):
            return record_export(match=match)

    assert exported(compact_match) == exported(whole_match)
    # The whole record the site exports is the one the whole state itself gave.
    whole_state = registry.get(game).engine.Match.from_json(whole_table.state)
    assert [{k: v for k, v in r.items() if k != "deal_hash"} for r in exported(compact_match)["rounds"]] == (
        whole_state.record()["rounds"])


def test_a_romme_seat_resigning_between_rounds_is_in_the_exported_record_and_its_replay_gives_the_sites_result(
        monkeypatch):
    """records-romme.md: a ``resign`` may stand after a round's last move (a seat leaving between rounds). The
    stored state holds no record of the round just ended, so the change puts the Round row's back, and the
    Round row gets the resignation: the exported record replays to the result the site gave (who left)."""
    players = users("emil", "frieda", "gustav")  # not the module's players: their rows are kept for its matches
    monkeypatch.setattr(helpers, "_RNG", random.Random(5))
    table = services.table_create(user=players[0], game="romme", options={"seats": 3, "rounds": 2})
    for user in players[1:3]:
        services.table_join(table_id=table.pk, user=user)
    while helpers.state_of(Table.objects.get(pk=table.pk)).to_act is not None:  # to the end of round 1
        helpers.one_move(table.pk, players[:3])
    stored = Table.objects.get(pk=table.pk).state
    assert stored["finished"] == [None]  # the row holds no record; round 1's Round row does
    services.match_resign(table_id=table.pk, user=players[2])
    first = Round.objects.get(match__table=table, number=1)
    assert first.record["moves"][-1] == {"seat": 2, "action": "resign"}
    assert Table.objects.get(pk=table.pk).state["finished"] == [None]

    finished = helpers.play_out(table.pk, [players[0], players[1], None])
    match = Match.objects.get(table=finished)
    assert match.status == Match.Status.FINISHED and match.result["left"] == [False, False, True]
    record = record_export(match=match)
    assert record["rounds"][0]["moves"][-1] == {"seat": 2, "action": "resign"}
    assert [m for m in record["rounds"][1]["moves"] if m["action"] == "resign"] == []
    replayed = registry.get("romme").replay_summary(record)
    assert replayed["left"] == match.result["left"]
    assert replayed["final"] == match.result["final"] and replayed["places"] == match.result["places"]
