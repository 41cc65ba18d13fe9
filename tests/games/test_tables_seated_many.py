"""Many tables with their seats given, at once (``services.tables_create_seated_many``, a tournament stage):
each table is what a table two people filled and started is, the statements do not grow with the number of
tables, a refused table leaves none, and each seat's frame after the commit shows only its own hand."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.delivery import events
from games.engine.cards import is_card
from games.models import Match, Round, Seat, Table
from games.services import SeatedTable, ServiceError
from tests.factories import many_users

pytestmark = pytest.mark.django_db

_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT")


def _pairs(users):
    return [SeatedTable(users=users[i:i + 2]) for i in range(0, len(users), 2)]


def _data_statements(captured) -> list[str]:
    return [q["sql"] for q in captured if not q["sql"].upper().startswith(_CONTROL)]


def test_each_table_is_the_table_two_people_filled_and_started(players, settings):
    settings.GAMES_TEST_DEAL_SEED = "seated-many"  # both ways deal the same cards: their states compare
    filled = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
    services.table_join(table_id=filled.pk, user=players[1])
    filled = Table.objects.get(pk=filled.pk)
    [many] = services.tables_create_seated_many(game="gin", tables=[SeatedTable(users=players[:2])], ranked=False)
    many = Table.objects.get(pk=many.pk)
    for name in ("status", "version", "seat_count", "options", "preset", "moves_logged", "state"):
        assert getattr(many, name) == getattr(filled, name), name
    assert many.turn_deadline is not None and many.bot_due_at is None  # the first turn's clock runs
    assert abs((many.turn_deadline - many.updated_at) - (filled.turn_deadline - filled.updated_at)).total_seconds() < 5
    match = Match.objects.get(table=many)
    assert many.current_match_id == match.pk and match.number == 1
    assert match.players == Match.objects.get(table=filled).players
    assert sorted(match.users.values_list("pk", flat=True)) == sorted(p.pk for p in players[:2])
    first = Round.objects.get(match=match)
    assert many.current_round_id == first.pk and many.last_round_id is None and first.finished_at is None
    assert first.deal == Round.objects.get(match__table=filled).deal
    assert first.deal_hash == services.deal_hash(first.deal)  # the hash players are shown covers the deal
    seats = list(Seat.objects.filter(table=many).order_by("index").values_list(
        "user_id", "bot_level", "consecutive_timeouts", "left", "ready"))
    assert seats == [(players[0].pk, "", 0, False, False), (players[1].pk, "", 0, False, False)]


def test_the_statements_do_not_grow_with_the_number_of_tables():
    users = many_users(100)
    counts = {}
    for n, chunk in ((10, users[:20]), (40, users[20:100])):
        with CaptureQueriesContext(connection) as captured:
            tables = services.tables_create_seated_many(game="gin", tables=_pairs(chunk), tournament=True)
        assert len(tables) == n and Table.objects.filter(pk__in=[t.pk for t in tables],
                                                         status=Table.Status.PLAYING).count() == n
        counts[n] = _data_statements(captured)
    # Tables, seats, matches, their players, rounds: one INSERT each; the tables' links: one UPDATE.
    assert len(counts[10]) == len(counts[40]) == 6, counts[40]


def test_tables_given_one_seed_share_their_deal_and_the_seed_stays_on_the_server(settings):
    settings.GAMES_TEST_DEAL_SEED = ""  # the OS CSPRNG for the table without a seed
    users = many_users(6)
    seed = "0123456789abcdef0123456789abcdef"
    a, b, c = services.tables_create_seated_many(game="gin", tournament=True, tables=[
        SeatedTable(users=users[0:2], deal_seed=seed, deal_group="stage-1"),
        SeatedTable(users=users[2:4], deal_seed=seed, deal_group="stage-1"),
        SeatedTable(users=users[4:6]),
    ])
    hashes = {t.pk: Round.objects.get(match__table=t).deal_hash for t in (a, b, c)}
    assert hashes[a.pk] == hashes[b.pk] != hashes[c.pk]
    assert Table.objects.get(pk=a.pk).deal_group == "stage-1" and Table.objects.get(pk=c.pk).deal_group == ""
    from games.reads import selectors

    assert seed not in json.dumps(selectors.table_state_for(table_id=a.pk, user=users[0]))
    # A running same-deals table is closed to a visitor who is neither staff nor one of its players.
    assert selectors.deal_group_open(table=Table.objects.get(pk=a.pk))


@pytest.mark.parametrize("bad", [
    SeatedTable(users=[]),
    SeatedTable(users=["not a person", "nor this"]),
    SeatedTable(users=None),  # type: ignore[arg-type]
    SeatedTable(users=["x"], options="fast"),  # type: ignore[arg-type]
    SeatedTable(users=["x"], deal_seed="short"),
])
def test_one_refused_table_leaves_none_of_them(bad):
    users = many_users(4)
    if bad.users and bad.users != ["not a person", "nor this"]:
        bad = SeatedTable(users=users[2:4], options=bad.options, deal_seed=bad.deal_seed)
    with pytest.raises((ServiceError, TypeError)) as caught:
        services.tables_create_seated_many(game="gin", tables=[SeatedTable(users=users[:2]), bad])
    if isinstance(caught.value, ServiceError):
        assert caught.value.code == "bad_options" and caught.value.message
    assert not Table.objects.exists() and not Seat.objects.exists() and not Match.objects.exists()


def test_nobody_is_seated_at_two_of_the_tables():
    users = many_users(3)
    with pytest.raises(ServiceError) as caught:
        services.tables_create_seated_many(game="gin", tables=[SeatedTable(users=users[:2]),
                                                               SeatedTable(users=[users[1], users[2]])])
    assert caught.value.code == "bad_options" and "zwei" in caught.value.message
    assert not Table.objects.exists()


def test_an_unknown_game_is_refused_and_nothing_is_written():
    users = many_users(2)
    with pytest.raises(ServiceError) as caught:
        services.tables_create_seated_many(game="canasta", tables=[SeatedTable(users=users)])
    assert caught.value.code == "bad_options" and not Table.objects.exists()


def test_each_seat_is_sent_its_own_hand_and_the_public_no_hand_after_the_commit(monkeypatch,
                                                                                  django_capture_on_commit_callbacks):
    users = many_users(8)
    sent: list[list[tuple[str, dict]]] = []
    monkeypatch.setattr(events, "_send", lambda messages: sent.append(list(messages)))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        tables = services.tables_create_seated_many(game="gin", tables=_pairs(users), tournament=True)
    assert not sent, "nothing is sent before the commit"
    for callback in callbacks:
        callback()
    assert len(sent) == 1, "every table's frames in one batch"
    by_group = {group: message for group, message in sent[0]}
    for table in tables:
        hands = [set(hand) for hand in Table.objects.get(pk=table.pk).state["round"]["hands_now"]]
        public = by_group[events.public_group(table.pk)]["frame"]
        assert public["version"] == 2
        for seat in Seat.objects.filter(table=table):
            frame = by_group[events.user_group(table.pk, seat.user_id)]["frame"]
            shown = {c for c in json.dumps(frame["view"]).replace('"', " ").split() if is_card(c)}
            assert hands[seat.index] <= shown and not (hands[1 - seat.index] & shown), "its own hand only"
        in_public = {c for c in json.dumps(public["view"]).replace('"', " ").split() if is_card(c)}
        assert not (hands[0] | hands[1]) & in_public
    assert any(group == events.LOBBY_GROUP for group, _ in sent[0])
