"""What one move costs the database: the statements ``services.move_apply`` runs, counted and named.

A plain move (one that does not end a round) is four statements on SQLite and three on PostgreSQL, as the
bare stack's row-locked update is two: the table row locked and read with its match and rounds, its seats,
the move logged and the row saved with only the columns that changed (on PostgreSQL one statement: the log
row inserted in a ``WITH`` clause of the row's ``UPDATE``; before: also the rounds and the log's
``max(seq)``, six). Transaction
control (BEGIN and COMMIT, which Django logs too; SAVEPOINTs inside a test's transaction) is not counted:
it is listed apart, and the move runs as the outermost transaction here, as it does in production, so it
is exactly one BEGIN and one COMMIT. Run with ``-s`` to see the statements. A count, not a timing: a regression fails it on any
machine.

The rounds and the move count the locked read takes from the table row (``Table.current_round``,
``last_round``, ``moves_logged``) must stay what the rounds and the move log say; the last tests hold them
to that through whole matches and through the migration that fills them for stored tables.
"""

from __future__ import annotations

import re
import threading
from datetime import timedelta

import pytest
from django.db import connection, connections, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import registry, services
from games.delivery import events
from games.models import Move, Round, Table
from games.services import _common
from tests.games.helpers import choose_action, state_of

#: A plain move's statements: lock and read the table (with match and rounds), read the seats, log, save; on
#: PostgreSQL the log row and the save are one statement (``games.services._writes``).
PLAIN_MOVE = {
    "sqlite": [("SELECT", "games_table"), ("SELECT", "games_seat"), ("INSERT", "games_move"), ("UPDATE", "games_table")],
    "postgresql": [("SELECT", "games_table"), ("SELECT", "games_seat"), ("UPDATE", "games_table")],
}

_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT")


def _table(players, game: str) -> Table:
    if game == "gin":
        table = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
    else:
        table = services.table_create(user=players[0], game="romme", preset="standard", options={"seats": 2})
    services.table_join(table_id=table.pk, user=players[1])
    return Table.objects.get(pk=table.pk)


def _statements(captured: list[dict]) -> tuple[list[tuple[str, str, str]], list[str]]:
    """(verb, table it names first, SQL) of each data statement, and the transaction control apart."""
    data, control = [], []
    for query in captured:
        sql = query["sql"]
        if sql.upper().startswith(_CONTROL):
            control.append(sql)
            continue
        verb = sql.split(None, 1)[0].upper()
        if verb == "WITH":  # WITH logged AS (INSERT ...) UPDATE x ...: the statement's own verb is after the clause
            verb, target = "UPDATE", sql.rsplit(") UPDATE ", 1)[1].split()[0]
        elif verb == "SELECT":
            target = sql.split(" FROM ", 1)[1].split()[0]
        elif verb == "INSERT":
            target = sql.split()[2]
        else:  # UPDATE x / DELETE FROM x
            target = sql.split()[1] if verb == "UPDATE" else sql.split()[2]
        data.append((verb, target.strip('"`'), sql))
    return data, control


def _move(table: Table, user) -> tuple[list[tuple[str, str, str]], list[str], dict]:
    state = state_of(table)
    action = choose_action(registry.get(table.game).engine.view(state, state.to_act))
    with CaptureQueriesContext(connection) as ctx:
        services.move_apply(table_id=table.pk, user=user, version=table.version, action=action)
    data, control = _statements(ctx.captured_queries)
    print(f"\n{table.game} {action}: {len(data)} statements (+ {len(control)} transaction control: {control})")
    for verb, target, sql in data:
        print(f"  {verb} {target}: {sql[:160]}")
    return data, control, action


@pytest.mark.django_db(transaction=True)  # the move's own transaction is the outermost, as in production
@pytest.mark.parametrize("game", ["gin", "romme"])
def test_a_plain_move_is_four_statements_or_three_on_postgresql(players, game):
    table = _table(players, game)
    for _ in range(6):
        table = Table.objects.get(pk=table.pk)
        seat = state_of(table).to_act
        data, control, _ = _move(table, players[seat])
        assert state_of(Table.objects.get(pk=table.pk)).to_act is not None  # the round goes on: a plain move
        assert [(verb, target) for verb, target, _ in data] == PLAIN_MOVE[connection.vendor]
        lock, update = data[0][2], data[-1][2]
        if connection.vendor == "postgresql":
            assert 'FOR UPDATE OF "games_table"' in lock and control == ["BEGIN", "COMMIT"]
            assert update.startswith('WITH logged AS (INSERT INTO "games_move"')
            update = update.rsplit(") UPDATE ", 1)[1]
        else:
            assert "FOR UPDATE" not in lock  # SQLite: BEGIN IMMEDIATE takes the write lock instead
            assert [sql.split()[0].upper() for sql in control] == ["BEGIN", "COMMIT"]
            assert "IMMEDIATE" in control[0].upper()
        # The rounds come with the locked row, without the JSON the move does not read.
        selected = re.findall(r'"?(\w+)"?\."(\w+)"', lock.split(" FROM ", 1)[0])
        rounds = [column for alias, column in selected if alias not in ("games_table", "games_match")]
        assert sorted(rounds) == sorted(2 * ["id", "match_id", "number", "deal_hash", "deal", "started_at",
                                             "finished_at"])  # no record, no result
        assert ("games_table", "state") in selected and ("games_match", "result") in selected
        # The seats come with their users' id and name only: no password hash, e-mail or dates.
        users = re.findall(r'"auth_user"\."(\w+)"', data[1][2].split(" FROM ", 1)[0])
        assert users == ["id", "username"]
        # Only what a move changes is written (the turn's deadline moves on with every move).
        written = set(re.findall(r'"(\w+)" = ', update.split(" WHERE ", 1)[0]))
        assert written == {"version", "state", "turn_deadline", "moves_logged", "updated_at"}


#: The other changes a playing table's players make, whose seats come read with the row (``_common._SEATS``:
#: the users' id and name only), so a read of any other user field would cost a query per seat. Each is the
#: same on SQLite and PostgreSQL: the log is written before the round's or the match's end (which read it),
#: and a change that logs nothing has nothing to join to the row's update.
ROUND_END = [("SELECT", "games_table"), ("SELECT", "games_seat"), ("INSERT", "games_move"), ("UPDATE", "games_round"),
             ("UPDATE", "games_table")]
MATCH_END = [("SELECT", "games_table"), ("SELECT", "games_seat"), ("INSERT", "games_move"), ("UPDATE", "games_round"),
             ("UPDATE", "games_match"), ("UPDATE", "games_table")]
#: A "ready" between rounds: the seat's flag; the last one deals the next round and clears every seat's flag,
#: all seats in one statement.
READY = [("SELECT", "games_table"), ("SELECT", "games_seat"), ("UPDATE", "games_table"), ("UPDATE", "games_seat")]
DEAL = [("SELECT", "games_table"), ("SELECT", "games_seat"), ("INSERT", "games_round"), ("UPDATE", "games_table"),
        ("UPDATE", "games_seat")]


def _captured(service, **kwargs) -> list[tuple[str, str, str]]:
    """The data statements of ``service(**kwargs)``, run as a socket's call runs it: its frames and the work after
    them (a match's announcement: ratings, tournaments) go to the outbox, not into the change."""
    token = events.OUTBOX.set([])
    try:
        with CaptureQueriesContext(connection) as ctx:
            service(**kwargs)
    finally:
        events.OUTBOX.reset(token)
    data, control = _statements(ctx.captured_queries)
    assert len(control) == 2  # one BEGIN, one COMMIT: the change is the outermost transaction
    return data


def _changes(table: Table, users: list):
    """Play ``table`` out through the services, yielding (kind, statements) of every change: "move",
    "round_end", "match_end", "ready", "deal"."""
    for _ in range(3000):
        table = Table.objects.get(pk=table.pk)
        if table.status != Table.Status.PLAYING:
            return
        state = state_of(table)
        if state.to_act is None:
            waiting = list(table.seats.filter(ready=False, left=False, user__isnull=False).select_related("user"))
            data = _captured(services.round_ready, table_id=table.pk, user=waiting[0].user)
            yield ("deal" if len(waiting) == 1 else "ready"), data
            continue
        action = choose_action(registry.get(table.game).engine.view(state, state.to_act))
        data = _captured(services.move_apply, table_id=table.pk, user=users[state.to_act], version=table.version,
                         action=action)
        after = state_of(Table.objects.get(pk=table.pk))
        yield ("match_end" if after.over else "round_end" if after.to_act is None else "move"), data
    raise AssertionError("the table did not finish")


def _assert_seats_read_with_id_and_name_only(data: list[tuple[str, str, str]]) -> None:
    """The seats' read takes their users' id and name; no other statement reads the users (a user field read
    later than that would be a query of ``auth_user`` of its own, one per seat)."""
    seats = [sql for verb, target, sql in data if (verb, target) == ("SELECT", "games_seat")]
    assert len(seats) == 1
    assert re.findall(r'"auth_user"\."(\w+)"', seats[0].split(" FROM ", 1)[0]) == ["id", "username"]
    assert not [sql for verb, target, sql in data if target != "games_seat" and "auth_user" in sql]


def _first_changes(players, game: str) -> dict[str, list[tuple[str, str, str]]]:
    """The statements of the first change of each kind in a match of two rounds or more."""
    if game == "gin":
        table = services.table_create(user=players[0], game="gin", preset="klassisch", options={"target": 50})
    else:
        table = services.table_create(user=players[0], game="romme", preset="standard",
                                      options={"seats": 2, "rounds": 2})
    services.table_join(table_id=table.pk, user=players[1])
    first: dict[str, list[tuple[str, str, str]]] = {}
    for kind, data in _changes(table, players):
        first.setdefault(kind, data)
    return first


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", ["gin", "romme"])
def test_a_round_end_a_match_end_and_the_deal_between_read_no_user_field_per_seat(players, game):
    first = _first_changes(players, game)
    assert set(first) == {"move", "round_end", "ready", "deal", "match_end"}
    expected = {"round_end": ROUND_END, "match_end": MATCH_END, "ready": READY, "deal": DEAL}
    for kind, statements in expected.items():
        assert [(verb, target) for verb, target, _ in first[kind]] == statements, kind
        _assert_seats_read_with_id_and_name_only(first[kind])


#: A player leaving the match (``match_resign``): at gin it ends the match (the round is closed unscored);
#: at a Rommé table of three the others play on, and the log row joins the row's update as a move's does.
RESIGN = {
    "gin": [("SELECT", "games_table"), ("SELECT", "games_seat"), ("INSERT", "games_move"), ("UPDATE", "games_round"),
            ("UPDATE", "games_match"), ("UPDATE", "games_table"), ("UPDATE", "games_seat")],
    "romme": {
        "sqlite": [("SELECT", "games_table"), ("SELECT", "games_seat"), ("INSERT", "games_move"),
                   ("UPDATE", "games_table"), ("UPDATE", "games_seat")],
        "postgresql": [("SELECT", "games_table"), ("SELECT", "games_seat"), ("UPDATE", "games_table"),
                       ("UPDATE", "games_seat")],
    },
}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", ["gin", "romme"])
def test_leaving_the_match_reads_no_user_field_per_seat(players, game):
    if game == "gin":
        table = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
        expected = RESIGN["gin"]
    else:
        table = services.table_create(user=players[0], game="romme", preset="standard", options={"seats": 3})
        services.table_join(table_id=table.pk, user=players[2])
        expected = RESIGN["romme"][connection.vendor]
    services.table_join(table_id=table.pk, user=players[1])
    data = _captured(services.match_resign, table_id=table.pk, user=players[1])
    table = Table.objects.get(pk=table.pk)
    assert table.status == (Table.Status.FINISHED if game == "gin" else Table.Status.PLAYING)
    assert [(verb, target) for verb, target, _ in data] == expected
    _assert_seats_read_with_id_and_name_only(data)


@pytest.mark.django_db(transaction=True)
def test_the_referees_timeout_and_staff_taking_a_player_off_read_no_user_field_per_seat(players, staff):
    table = services.table_create(user=players[0], game="romme", preset="standard", options={"seats": 3})
    for player in players[1:3]:
        services.table_join(table_id=table.pk, user=player)
    Table.objects.filter(pk=table.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    version = Table.objects.get(pk=table.pk).version
    data = _captured(services.turn_timeout, table_id=table.pk)
    assert Table.objects.get(pk=table.pk).version == version + 1  # the timeout was played
    _assert_seats_read_with_id_and_name_only(data)
    data = _captured(services.seat_remove, table_id=table.pk, seat=1, by=staff)
    assert Table.objects.get(pk=table.pk).seats.get(index=1).left
    _assert_seats_read_with_id_and_name_only(data)


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["gin", "romme"])
def test_the_row_keeps_rounds_and_move_count_as_the_log_has_them(players, game):
    """Through rounds ending, the next ones dealt and the match's end, the row's rounds are the latest ones
    and the move log runs 0..n-1 with no gap; a stale version changes nothing of it."""
    table = _table(players, game)
    rounds_seen = set()
    for _ in range(3000):
        table = Table.objects.select_related("current_match").get(pk=table.pk)
        match = table.current_match
        rounds = list(match.rounds.order_by("-number")[:2])
        assert table.current_round_id == rounds[0].pk
        assert table.last_round_id == next((r.pk for r in rounds if r.finished_at), None)
        seqs = list(match.moves.order_by("seq").values_list("seq", flat=True))
        assert seqs == list(range(len(seqs))) and table.moves_logged == len(seqs)
        rounds_seen.add(rounds[0].number)
        if table.status != Table.Status.PLAYING or len(rounds_seen) > 3:
            break
        state = state_of(table)
        if state.to_act is None:
            for seat in table.seats.filter(ready=False, left=False, user__isnull=False):
                services.round_ready(table_id=table.pk, user=seat.user)
            continue
        action = choose_action(registry.get(game).engine.view(state, state.to_act))
        with pytest.raises(services.ServiceError) as stale:
            services.move_apply(table_id=table.pk, user=players[state.to_act], version=table.version - 1,
                                action=action)
        assert stale.value.code == "stale_version"
        services.move_apply(table_id=table.pk, user=players[state.to_act], version=table.version, action=action)
    assert len(rounds_seen) > 1  # rounds ended and were dealt on the way


@pytest.mark.django_db(transaction=True)
def test_stored_tables_get_their_rounds_and_move_count(players):
    executor = MigrationExecutor(connection)
    before = [("games", "0007_bot_level_advanced")]
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    OldTable, OldMatch = old.get_model("games", "Table"), old.get_model("games", "Match")
    OldRound, OldMove = old.get_model("games", "Round"), old.get_model("games", "Move")
    playing = OldTable.objects.create(game="gin", options={}, seat_count=2, status="playing")
    match = OldMatch.objects.create(table=playing, number=1, game="gin")
    first = OldRound.objects.create(match=match, number=1, deal_hash="a" * 64, finished_at="2026-12-01T10:00Z")
    second = OldRound.objects.create(match=match, number=2, deal_hash="b" * 64)
    for seq in range(5):
        OldMove.objects.create(table=playing, match=match, round_number=1 + seq // 3, seq=seq, action={"action": "x"},
                               version=seq + 3)
    OldTable.objects.filter(pk=playing.pk).update(current_match=match)
    waiting = OldTable.objects.create(game="gin", options={}, seat_count=2)

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    stored = Table.objects.get(pk=playing.pk)
    assert (stored.current_round_id, stored.last_round_id, stored.moves_logged) == (second.pk, first.pk, 5)
    assert Round.objects.filter(match_id=match.pk).count() == 2 and Move.objects.filter(match_id=match.pk).count() == 5
    fresh = Table.objects.get(pk=waiting.pk)
    assert (fresh.current_round_id, fresh.last_round_id, fresh.moves_logged) == (None, None, 0)


on_postgresql = pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL")


def _round_over(players) -> Table:
    table = _table(players, "gin")
    for _ in range(500):
        table = Table.objects.get(pk=table.pk)
        state = state_of(table)
        if state.to_act is None:
            return table
        action = choose_action(registry.get("gin").engine.view(state, state.to_act))
        services.move_apply(table_id=table.pk, user=players[state.to_act], version=table.version, action=action)
    raise AssertionError("the round did not end")


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_lock_that_waited_for_the_next_deal_reads_the_new_round(players):
    """PostgreSQL hands a lock that waited the row as the other change committed it, joined to rows as they
    were when its statement began: the round dealt meanwhile is not in the join. The change must still work
    on the new round, read from the rounds then."""
    table = _round_over(players)
    held, go = threading.Event(), threading.Event()
    seen: dict = {}

    def deal_and_hold():  # the last "ready": deals round 2, and holds the lock until told to commit
        try:
            with transaction.atomic():
                services.round_ready(table_id=table.pk, user=players[0])
                services.round_ready(table_id=table.pk, user=players[1])
                held.set()
                go.wait(30)
        finally:
            connections.close_all()

    def lock_and_read():
        try:
            held.wait(30)
            with transaction.atomic():
                locked = _common.locked_table(table.pk)
                seen["joined"] = locked.current_round
                seen["rounds"] = _common.rounds_of(locked)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=deal_and_hold), threading.Thread(target=lock_and_read)]
    for thread in threads:
        thread.start()
    assert held.wait(30)
    with connection.cursor() as cursor:  # until the reader waits for the lock
        for _ in range(3000):
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                           "AND wait_event_type = 'Lock'")
            if cursor.fetchone()[0]:
                break
            threading.Event().wait(0.01)
        else:
            raise AssertionError("the reader never waited for the lock")
    go.set()
    for thread in threads:
        thread.join(30)
    second, first = Round.objects.filter(match__table=table).order_by("-number")[:2]
    assert second.number == 2 and seen["joined"] is None  # the join missed the round dealt meanwhile
    current, last = seen["rounds"]
    assert (current.pk, current.finished_at, last.pk) == (second.pk, None, first.pk)
