"""The one end of a match: every way a match ends writes its result in one place and is announced once,
after the commit, with the match id and how it ended; a lost announcement is found and sent again."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import transaction
from django.utils import timezone

from games import engines, services
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
                action = choose_action(engines.engine("gin").view(state, state.to_act))
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
                        action=choose_action(engines.engine("gin").view(state_of(table), state_of(table).to_act)))
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
