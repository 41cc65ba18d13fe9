"""The one end of a match: every way a match ends writes its result in one place and is announced once,
after the commit, with the match id and how it ended; a lost announcement is found and sent again."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import transaction
from django.utils import timezone

from games import registry, services
from games.models import Match, Table
from games.signals import match_ended
from tests.games.helpers import choose_action, play_out, state_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def heard():
    """What a listener of ``match_ended`` hears: (match_id, how) per announcement."""
    calls = []

    def listener(sender, match_id, how, **kwargs):
        calls.append((match_id, how))

    match_ended.connect(listener, dispatch_uid="test-ending-listener")
    yield calls
    match_ended.disconnect(dispatch_uid="test-ending-listener")


def gin_table(players, **options):
    table = services.table_create(user=players[0], game="gin", preset="schnell", options=options)
    services.table_join(table_id=table.pk, user=players[1])
    return Table.objects.get(pk=table.pk)


def test_a_match_played_out_is_announced_once_after_commit_as_finished(players, heard,
                                                                        django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        table = gin_table(players)
        play_out(table.pk, players[:2])
    match = Match.objects.get(table=table)
    assert heard == [(match.pk, "finished")]
    assert match.ending == Match.Ending.FINISHED and match.announced_at is not None
    assert match.status == Match.Status.FINISHED and match.result["winner"] == match.winner_seat


def test_nothing_is_announced_before_the_commit(players, heard, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        table = gin_table(players)
        services.match_resign(table_id=table.pk, user=players[0])
    assert heard == []
    for callback in callbacks:
        callback()
    assert heard == [(Match.objects.get(table=table).pk, "resigned")]


def test_a_rolled_back_end_is_never_announced(players, heard, django_capture_on_commit_callbacks):
    table = gin_table(players)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError), transaction.atomic():
        services.match_resign(table_id=table.pk, user=players[0])
        raise RuntimeError("the caller's transaction fails after the resignation")
    assert heard == []
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING


def test_a_resignation_is_announced_as_resigned_with_the_opponent_winning(players, heard,
                                                                          django_capture_on_commit_callbacks):
    table = gin_table(players)
    with django_capture_on_commit_callbacks(execute=True):
        services.match_resign(table_id=table.pk, user=players[1])
    match = Match.objects.get(table=table)
    assert heard == [(match.pk, "resigned")]
    assert match.winner_seat == 0 and match.left_seats == [1] and match.ending == "resigned"


def test_three_timeouts_are_announced_as_timeouts(players, heard, django_capture_on_commit_callbacks):
    table = gin_table(players)
    sleeper = state_of(table).to_act
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(40):
            table = Table.objects.get(pk=table.pk)
            if table.status != Table.Status.PLAYING:
                break
            state = state_of(table)
            if state.to_act == sleeper:
                services.turn_timeout(table_id=table.pk, now=table.turn_deadline + timedelta(seconds=1))
            else:  # the other player plays on, never knocking, so the round lasts
                action = choose_action(registry.get("gin").engine.view(state, state.to_act))
                if action["action"] == "knock":
                    action = {"action": "discard", "card": action["card"]}
                services.move_apply(table_id=table.pk, user=players[state.to_act], version=table.version,
                                    action=action)
    match = Match.objects.get(table=table)
    assert heard == [(match.pk, "timeouts")]
    assert match.left_seats == [sleeper] and match.winner_seat == 1 - sleeper


def test_an_abort_is_announced_as_aborted_without_a_result(players, heard, django_capture_on_commit_callbacks):
    table = gin_table(players)
    with django_capture_on_commit_callbacks(execute=True):
        services.match_abort(table_id=table.pk, user=players[0])
    match = Match.objects.get(table=table)
    assert heard == [(match.pk, "aborted")]
    assert match.status == Match.Status.ABORTED and match.result is None and match.winner_id is None


def test_a_romme_resignation_that_leaves_others_playing_announces_nothing_yet(players, heard,
                                                                             django_capture_on_commit_callbacks):
    table = services.table_create(user=players[0], game="romme", options={"seats": 3, "rounds": 1})
    for user in players[1:3]:
        services.table_join(table_id=table.pk, user=user)
    with django_capture_on_commit_callbacks(execute=True):
        services.match_resign(table_id=table.pk, user=players[2])
        assert heard == []
        play_out(table.pk, [players[0], players[1], None])
    match = Match.objects.get(table=table)
    assert heard == [(match.pk, "finished")]
    assert match.left_seats == [2]


def test_staff_ending_a_running_table_goes_through_the_same_end(players, heard, admin_user,
                                                                 django_capture_on_commit_callbacks):
    table = gin_table(players)
    services.move_apply(table_id=table.pk, user=players[state_of(table).to_act], version=table.version,
                        action=choose_action(registry.get("gin").engine.view(state_of(table), state_of(table).to_act)))
    with django_capture_on_commit_callbacks(execute=True):
        services.table_close(table_id=table.pk, by=admin_user)
    match = Match.objects.get(table=table)
    assert heard == [(match.pk, "aborted")]
    assert Table.objects.get(pk=table.pk).status == Table.Status.ABORTED


def test_a_failing_listener_leaves_the_match_unannounced_for_the_catch_up(players, heard,
                                                                         django_capture_on_commit_callbacks):
    def broken(sender, **kwargs):
        raise RuntimeError("the ratings service is down")

    match_ended.connect(broken, dispatch_uid="test-broken-listener")
    try:
        table = gin_table(players)
        with django_capture_on_commit_callbacks(execute=True):
            services.match_resign(table_id=table.pk, user=players[0])
    finally:
        match_ended.disconnect(dispatch_uid="test-broken-listener")
    match = Match.objects.get(table=table)
    assert heard == [(match.pk, "resigned")]  # the other listener still ran
    assert match.announced_at is None
    assert list(services.matches_unannounced()) == [match]


def test_the_catch_up_command_lists_and_announces_lost_announcements_once(players, heard, capsys):
    table = gin_table(players)
    services.match_resign(table_id=table.pk, user=players[0])  # no on-commit here: as if killed after commit
    match = Match.objects.get(table=table)
    assert heard == [] and match.announced_at is None

    call_command("matches_ended", "--older-than", "0")
    assert f"match {match.pk} " in capsys.readouterr().out and heard == []

    call_command("matches_ended", "--announce", "--older-than", "0")
    assert heard == [(match.pk, "resigned")]
    assert Match.objects.get(pk=match.pk).announced_at is not None
    call_command("matches_ended", "--announce", "--older-than", "0")
    assert heard == [(match.pk, "resigned")]
    assert "0 unannounced" in capsys.readouterr().out


def test_the_catch_up_leaves_fresh_ends_to_their_own_announcement(players, heard):
    table = gin_table(players)
    services.match_resign(table_id=table.pk, user=players[0])
    assert list(services.matches_unannounced(older_than_seconds=60)) == []
    later = timezone.now() + timedelta(seconds=61)
    assert [m.table_id for m in services.matches_unannounced(older_than_seconds=60, now=later)] == [table.pk]


# --- after the fan-out, in a written-down order, caught up by the clock ---------------------------------


@pytest.fixture(autouse=True)
def _no_retry_memory():
    from games.services import ending

    ending._retry.clear()
    yield
    ending._retry.clear()


@pytest.mark.django_db(transaction=True)
async def test_the_last_moves_frames_reach_both_players_before_any_listener_runs(players):
    """The listener holds the database thread until both players have their final frame: were it run
    before the frames went out (inside the player's call), no frame could arrive and the test would fail."""
    import threading

    from asgiref.sync import sync_to_async

    from games.delivery import events
    from tests.games.helpers import Socket

    both_saw_the_end = threading.Event()
    heard_after_frames = []

    def listener(sender, match_id, how, **kwargs):
        heard_after_frames.append(both_saw_the_end.wait(timeout=8))

    match_ended.connect(listener, dispatch_uid="test-frames-first")
    try:
        table = await sync_to_async(gin_table)(players)
        anna, ben = await Socket.open(table.pk, players[0]), await Socket.open(table.pk, players[1])
        for socket in (anna, ben):
            await socket.until(lambda f: f["type"] == "state" and f["table"]["status"] == "playing")
        await anna.send({"type": "resign"})
        try:
            for socket in (anna, ben):  # the resigner too: her socket is not held up by the listener
                await socket.until(lambda f: f["type"] == "state" and f["table"]["status"] == "finished")
        finally:
            both_saw_the_end.set()
        await events.after_fanout_settled()
    finally:
        match_ended.disconnect(dispatch_uid="test-frames-first")
    assert heard_after_frames == [True]
    match = await sync_to_async(Match.objects.get)(table=table)
    assert match.ending == "resigned" and match.announced_at is not None
    await anna.close()
    await ben.close()


def test_without_a_socket_the_frames_are_handed_over_before_the_listeners_run(players, heard, monkeypatch,
                                                                              django_capture_on_commit_callbacks):
    """A referee process or a view ends a match: the frames still go to the channel layer first."""
    from channels.layers import get_channel_layer

    order = []
    layer = get_channel_layer()
    handed_over = layer.group_send_many

    async def recording(messages):
        order.extend(("frame", group) for group, _ in messages)
        await handed_over(messages)

    monkeypatch.setattr(layer, "group_send_many", recording)
    match_ended.connect(lambda sender, **kw: order.append(("listener", None)), dispatch_uid="test-order",
                        weak=False)
    try:
        table = gin_table(players)
        order.clear()
        with django_capture_on_commit_callbacks(execute=True):
            services.match_resign(table_id=table.pk, user=players[0])
    finally:
        match_ended.disconnect(dispatch_uid="test-order")
    groups = [group for kind, group in order if kind == "frame"]
    assert f"table.{table.pk}.user.{players[0].pk}" in groups and f"table.{table.pk}.user.{players[1].pk}" in groups
    assert order[-1] == ("listener", None) and order.count(("listener", None)) == 1


def test_the_listeners_run_ratings_first_then_tournaments_as_the_settings_say(settings):
    assert settings.GAMES_MATCH_ENDED_ORDER[:2] == ["ratings.rate_ended_match", "tournaments.record_match"]
    assert match_ended.receiver_uids()[:2] == ["ratings.rate_ended_match", "tournaments.record_match"]


def test_the_written_order_wins_over_the_order_the_listeners_connected():
    from games.signals import OrderedSignal

    signal = OrderedSignal(order=lambda: ["ratings.rate_ended_match", "tournaments.record_match"])
    calls = []
    for uid in ("tournaments.record_match", "elsewhere.first_to_connect", "ratings.rate_ended_match",
                "elsewhere.last_to_connect"):
        signal.connect(lambda sender, uid=uid, **kw: calls.append(uid), dispatch_uid=uid, weak=False)
    signal.send(sender=Match, match_id=1, how="finished")
    assert calls == ["ratings.rate_ended_match", "tournaments.record_match", "elsewhere.first_to_connect",
                     "elsewhere.last_to_connect"]


def test_a_listener_that_raises_first_stops_neither_the_others_nor_the_move(players, heard, settings,
                                                                          django_capture_on_commit_callbacks):
    settings.GAMES_MATCH_ENDED_ORDER = ["test-broken-first", *settings.GAMES_MATCH_ENDED_ORDER]

    def broken(sender, **kwargs):
        raise RuntimeError("the ratings service is down")

    match_ended.connect(broken, dispatch_uid="test-broken-first")
    try:
        assert match_ended.receiver_uids()[0] == "test-broken-first"
        table = gin_table(players)
        with django_capture_on_commit_callbacks(execute=True):
            services.match_resign(table_id=table.pk, user=players[0])
    finally:
        match_ended.disconnect(dispatch_uid="test-broken-first")
    match = Match.objects.get(table=table)
    assert heard == [(match.pk, "resigned")]
    assert match.ending == "resigned" and Table.objects.get(pk=table.pk).status == Table.Status.FINISHED
    assert match.announced_at is None


def lost_announcement(players):
    """A resignation committed with no on-commit callback run: as if the process died right after commit."""
    table = gin_table(players)
    services.match_resign(table_id=table.pk, user=players[0])
    match = Match.objects.get(table=table)
    assert match.announced_at is None
    return match


def test_a_lost_announcement_is_caught_up_by_the_clock(players, heard, settings):
    from games.web import timekeeper

    settings.GAMES_ANNOUNCE_RETRY_SECONDS = 0
    match = lost_announcement(players)
    timekeeper.clock_tick()
    assert heard == [(match.pk, "resigned")]
    assert Match.objects.get(pk=match.pk).announced_at is not None
    timekeeper.clock_tick()
    assert heard == [(match.pk, "resigned")]  # announced once: the next tick finds nothing


def test_the_clock_leaves_a_fresh_end_to_its_own_announcement(players, heard, settings):
    from games.web import timekeeper

    settings.GAMES_ANNOUNCE_RETRY_SECONDS = 60
    match = lost_announcement(players)
    timekeeper.clock_tick()
    assert heard == [] and Match.objects.get(pk=match.pk).announced_at is None


def test_the_referee_command_catches_up_lost_announcements_on_its_tick(players, heard, settings):
    settings.GAMES_ANNOUNCE_RETRY_SECONDS = 0
    match = lost_announcement(players)
    call_command("referee", "--once")
    assert heard == [(match.pk, "resigned")]
    assert Match.objects.get(pk=match.pk).announced_at is not None


def test_a_listener_that_keeps_failing_is_retried_by_the_clock_after_a_doubling_wait(players, heard, settings):
    from games.services import ending

    settings.GAMES_ANNOUNCE_RETRY_SECONDS = 10
    match = lost_announcement(players)
    later = timezone.now() + timedelta(seconds=11)

    def broken(sender, **kwargs):
        raise RuntimeError("down")

    match_ended.connect(broken, dispatch_uid="test-broken-retry")
    try:
        assert ending.matches_catch_up(now=later) == []
        assert ending.matches_catch_up(now=later) == []  # too soon: not tried again
    finally:
        match_ended.disconnect(dispatch_uid="test-broken-retry")
    assert heard == [(match.pk, "resigned")]
    due, wait = ending._retry[match.pk]
    assert wait == 20  # the next failure would wait twice as long
    ending._retry[match.pk] = (due - 10, wait)  # the wait is over
    assert ending.matches_catch_up(now=later) == [match.pk]
    assert heard == [(match.pk, "resigned")] * 2 and match.pk not in ending._retry
    assert Match.objects.get(pk=match.pk).announced_at is not None


@pytest.mark.django_db(transaction=True)
async def test_the_referee_inside_daphne_ticks_the_other_clocks_at_most_once_a_tick(settings):
    """games.web.timekeeper.run (what ginsite.asgi starts under daphne) sends referee_tick on its own."""
    import asyncio

    from games.signals import referee_tick
    from games.web import timekeeper

    settings.GAMES_TICK_SECONDS = 0.4
    settings.GAMES_REFEREE_INTERVAL = 0.02
    ticks = []
    referee_tick.connect(lambda sender, **kw: ticks.append(sender), dispatch_uid="test-daphne-tick", weak=False)
    task = asyncio.get_running_loop().create_task(timekeeper.run())
    try:
        deadline = asyncio.get_running_loop().time() + 5
        while not ticks and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.02)
        assert ticks == [services.referee_pass]
        await asyncio.sleep(0.25)  # a dozen passes, still inside the first tick's period
        assert len(ticks) == 1
        deadline = asyncio.get_running_loop().time() + 5
        while len(ticks) < 2 and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.02)
        assert len(ticks) == 2
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        referee_tick.disconnect(dispatch_uid="test-daphne-tick")
