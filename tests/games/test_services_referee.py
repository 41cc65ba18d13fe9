"""The referee: overdue turns played exactly once, three timeouts end the match, computer players move with
nobody connected, and the same move or timeout sent twice at once applies once (PostgreSQL row locks)."""

import threading
from datetime import timedelta

import pytest
from django.core import checks
from django.core.management import call_command, execute_from_command_line
from django.db import connection, connections
from django.utils import timezone

from games import registry, services
from games.engine.romme.scoring import hand_points
from games.models import Match, Move, Table
from games.services import ServiceError
from tests.games.helpers import choose_action, state_of

on_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="row locks (SELECT ... FOR UPDATE) need PostgreSQL"
)


def gin_table(players, **options) -> Table:
    table = services.table_create(user=players[0], game="gin", preset="klassisch", options=options)
    services.table_join(table_id=table.pk, user=players[1])
    return Table.objects.get(pk=table.pk)


def make_overdue(table: Table) -> Table:
    Table.objects.filter(pk=table.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    return Table.objects.get(pk=table.pk)


@pytest.mark.django_db
def test_a_turn_that_is_not_overdue_is_left_alone(players):
    table = gin_table(players)
    assert services.turn_timeout(table_id=table.pk, now=timezone.now()) is False
    assert Table.objects.get(pk=table.pk).version == table.version


@pytest.mark.django_db
def test_an_overdue_turn_is_played_exactly_once_by_two_referees(players, capsys):
    table = make_overdue(gin_table(players))
    seat = state_of(table).to_act
    expected = registry.get("gin").engine.timeout_actions(state_of(table))
    call_command("referee", "--once")
    call_command("referee", "--once")
    assert capsys.readouterr().out.split("\n")[:2] == ["1 played", "0 played"]
    after = Table.objects.get(pk=table.pk)
    assert after.version == table.version + 1
    moves = list(Move.objects.filter(table=table).order_by("seq"))
    assert [m.action for m in moves] == expected and {m.by for m in moves} == {"timeout"}
    assert after.seats.get(index=seat).consecutive_timeouts == 1
    assert after.turn_deadline > timezone.now()


@pytest.mark.django_db
def test_the_referee_starts_without_the_system_checks(players, capsys):
    """A referee keeps time from its first second: the checks run in ``manage.py check``, not at its start
    (a check that fails would stop any command that runs them)."""
    def failing(app_configs, **kwargs):
        return [checks.Error("a failing check", id="tests.E001")]

    checks.register(failing)
    try:
        execute_from_command_line(["manage.py", "referee", "--once"])  # as it is started: checks would stop it
    finally:
        checks.registry.registry.registered_checks.discard(failing)
    assert "played" in capsys.readouterr().out


@pytest.mark.django_db
def test_a_timeout_in_the_first_turn_passes(players):
    table = make_overdue(gin_table(players))
    assert state_of(table).phase == "first_turn"
    services.turn_timeout(table_id=table.pk, now=timezone.now())
    assert Move.objects.get(table=table).action == {"action": "pass"}


@pytest.mark.django_db
def test_three_timeouts_in_a_row_end_the_match(players):
    table = gin_table(players)
    sleeper = state_of(table).to_act
    for _ in range(40):
        table = Table.objects.get(pk=table.pk)
        if table.status != Table.Status.PLAYING:
            break
        state = state_of(table)
        if state.to_act == sleeper:
            services.turn_timeout(table_id=table.pk, now=table.turn_deadline + timedelta(seconds=1))
        else:  # the other player plays on, never knocking, so the round lasts
            view = registry.get("gin").engine.view(state, state.to_act)
            action = choose_action(view)
            if action["action"] == "knock":
                action = {"action": "discard", "card": action["card"]}
            services.move_apply(table_id=table.pk, user=players[state.to_act], version=table.version, action=action)
    table = Table.objects.get(pk=table.pk)
    match = Match.objects.get(table=table)
    assert table.status == Table.Status.FINISHED
    assert match.winner_seat == 1 - sleeper and match.left_seats == [sleeper]
    assert Move.objects.filter(match=match, by="timeout", action={"action": "resign"}).count() == 1
    assert table.seats.get(index=sleeper).consecutive_timeouts == 3


@pytest.mark.django_db
def test_playing_resets_the_timeout_count(players):
    table = make_overdue(gin_table(players))
    seat = state_of(table).to_act
    services.turn_timeout(table_id=table.pk, now=timezone.now())  # passes the offer
    table = Table.objects.get(pk=table.pk)
    other = state_of(table).to_act
    services.move_apply(table_id=table.pk, user=players[other], version=table.version, action={"action": "pass"})
    table = Table.objects.get(pk=table.pk)
    assert state_of(table).to_act == seat and table.seats.get(index=seat).consecutive_timeouts == 1
    services.move_apply(table_id=table.pk, user=players[seat], version=table.version,
                        action={"action": "draw", "from": "stock"})
    assert Table.objects.get(pk=table.pk).seats.get(index=seat).consecutive_timeouts == 0


@pytest.mark.django_db
def test_the_break_between_rounds_ends_with_the_next_deal(players):
    table = gin_table(players, target=200)
    while state_of(table).to_act is not None:
        seat = state_of(table).to_act
        view = registry.get("gin").engine.view(state_of(table), seat)
        services.move_apply(table_id=table.pk, user=players[seat], version=table.version, action=choose_action(view))
        table = Table.objects.get(pk=table.pk)
    deadline = table.turn_deadline
    assert deadline > timezone.now() + timedelta(seconds=10)
    assert services.turn_timeout(table_id=table.pk, now=deadline - timedelta(seconds=1)) is False
    assert services.turn_timeout(table_id=table.pk, now=deadline) is True
    assert state_of(Table.objects.get(pk=table.pk)).round_number == 2


@pytest.mark.django_db
def test_a_computer_players_turn_is_played_with_nobody_connected(players):
    table = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
    services.table_fill_with_bots(table_id=table.pk, user=players[0], level="simple")
    for _ in range(10):
        table = Table.objects.get(pk=table.pk)
        state = state_of(table)
        if state.to_act == 1:
            break
        services.move_apply(table_id=table.pk, user=players[0], version=table.version,
                            action=choose_action(registry.get("gin").engine.view(state, 0)))
    table = Table.objects.get(pk=table.pk)
    assert state_of(table).to_act == 1
    assert table.bot_due_at is not None and table.turn_deadline is None
    call_command("referee", "--once")
    move = Move.objects.filter(table=table).order_by("-seq").first()
    assert move.seat == 1 and move.by == "bot"
    assert Table.objects.get(pk=table.pk).version == table.version + 1


# --- races on PostgreSQL --------------------------------------------------------------------------------


def run_at_once(*calls):
    """Run the calls in threads released together; returns what each returned or raised."""
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(index, call):
        barrier.wait()
        try:
            results[index] = call()
        except Exception as error:  # noqa: BLE001 - the caller inspects what happened
            results[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_the_same_move_sent_twice_at_once_applies_once(players):
    table = gin_table(players)
    seat = state_of(table).to_act

    def send():
        return services.move_apply(table_id=table.pk, user=players[seat], version=table.version,
                                   action={"action": "pass"})

    results = run_at_once(send, send)
    applied = [r for r in results if isinstance(r, int)]
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(applied) == 1 and len(refused) == 1, results
    assert refused[0].code == "stale_version"
    assert Move.objects.filter(table=table).count() == 1
    assert Table.objects.get(pk=table.pk).version == table.version + 1


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_two_referees_at_once_apply_a_timeout_once(players):
    table = make_overdue(gin_table(players))
    now = timezone.now()
    results = run_at_once(*[lambda: services.referee_pass(now=now)] * 2)
    assert sorted(results) == [0, 1], results
    assert Move.objects.filter(table=table).count() == 1
    assert Table.objects.get(pk=table.pk).version == table.version + 1


@pytest.mark.django_db
def test_a_romme_timeout_draws_and_discards_the_drawn_card(players):
    table = services.table_create(user=players[0], game="romme", preset="standard", options={"seats": 2})
    services.table_join(table_id=table.pk, user=players[1])
    table = make_overdue(Table.objects.get(pk=table.pk))
    seat = state_of(table).to_act
    hand_before = registry.get("romme").engine.view(state_of(table), seat)["hand"]
    assert services.turn_timeout(table_id=table.pk, now=timezone.now())
    moves = list(Move.objects.filter(table=table).order_by("seq"))
    assert [m.action["action"] for m in moves] == ["draw", "discard"] and {m.seat for m in moves} == {seat}
    after = Table.objects.get(pk=table.pk)
    # The drawn card goes straight back out; a drawn joker is kept and the highest other card goes instead.
    drawn = state_of(table).current_deal()["stock"][0]
    discarded = moves[1].action["card"]
    if drawn == "JK":
        assert hand_points([discarded]) == max(hand_points([c]) for c in hand_before if c != "JK")
    else:
        assert discarded == drawn
    expected = [*hand_before, drawn]
    expected.remove(discarded)
    assert sorted(registry.get("romme").engine.view(state_of(after), seat)["hand"]) == sorted(expected)
    assert state_of(after).to_act == 1 - seat and after.seats.get(index=seat).consecutive_timeouts == 1


@pytest.mark.django_db
def test_three_romme_timeouts_are_an_abbruch_and_the_list_goes_on(players):
    table = services.table_create(user=players[0], game="romme", preset="standard", options={"seats": 3})
    services.table_join(table_id=table.pk, user=players[1])
    services.table_join(table_id=table.pk, user=players[2])
    sleeper = state_of(Table.objects.get(pk=table.pk)).to_act
    timeouts = 0
    while timeouts < 3:
        table = Table.objects.get(pk=table.pk)
        state = state_of(table)
        if state.to_act == sleeper:
            services.turn_timeout(table_id=table.pk, now=table.turn_deadline + timedelta(seconds=1))
            timeouts += 1
        else:
            view = registry.get("romme").engine.view(state, state.to_act)
            action = {"action": "draw", "from": "stock"} if view["phase"] == "draw" else choose_action(view)
            if action["action"] not in ("draw", "discard"):  # keep the round going: no lay-outs
                action = next(a for a in view["legal_actions"] if a["action"] == "discard")
            services.move_apply(table_id=table.pk, user=players[state.to_act], version=table.version,
                                action=action)
    table = Table.objects.get(pk=table.pk)
    assert table.status == Table.Status.PLAYING and table.seats.get(index=sleeper).left
    assert registry.get("romme").engine.view(state_of(table), None)["left"][sleeper] is True
    assert state_of(table).to_act != sleeper


@pytest.mark.django_db
def test_a_move_after_the_turn_time_ran_out_is_refused_and_the_referee_plays(players):
    table = gin_table(players)
    seat = state_of(table).to_act
    Table.objects.filter(pk=table.pk).update(turn_deadline=timezone.now() - timedelta(seconds=2))
    with pytest.raises(ServiceError) as caught:
        services.move_apply(table_id=table.pk, user=players[seat], version=table.version, action={"action": "pass"})
    assert caught.value.code == "turn_over" and Table.objects.get(pk=table.pk).version == table.version
    assert services.referee_pass() == 1
    assert Move.objects.get(table=table).by == "timeout"


@pytest.mark.django_db
def test_a_move_a_moment_after_the_deadline_still_counts(players):
    table = gin_table(players)
    seat = state_of(table).to_act
    Table.objects.filter(pk=table.pk).update(turn_deadline=timezone.now() - timedelta(seconds=0.2))
    services.move_apply(table_id=table.pk, user=players[seat], version=table.version, action={"action": "pass"})
    assert Move.objects.get(table=table).by == "player"


@pytest.mark.django_db
def test_each_referee_pass_ticks_for_other_apps_and_a_failing_listener_stops_nothing(capsys):
    from django.core.management import call_command

    from games.signals import referee_tick

    ticks = []

    def broken(sender, **kwargs):
        raise RuntimeError("a listener that fails")

    referee_tick.connect(broken, dispatch_uid="test-broken-tick")
    referee_tick.connect(lambda sender, **kw: ticks.append(sender), dispatch_uid="test-tick", weak=False)
    try:
        call_command("referee", "--once")
    finally:
        referee_tick.disconnect(dispatch_uid="test-broken-tick")
        referee_tick.disconnect(dispatch_uid="test-tick")
    assert ticks == [services.referee_pass]
    assert "0 played" in capsys.readouterr().out
