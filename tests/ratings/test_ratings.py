"""Ratings per ratings.md: one openskill PlackettLuce ``rate()`` per rated match (library defaults), places
from the match, leavers last; rated once, whatever is announced again; aborted and casual matches never."""

from __future__ import annotations

import pytest
from django.db import connection
from openskill.models import PlackettLuce

from games import services
from games.models import Match, Table
from ratings import selectors
from ratings.models import Rating, RatingChange
from tests.games.helpers import play_out

pytestmark = pytest.mark.django_db


def expected_after(befores, ranks):
    """openskill computed here, independently of ratings.services: the library's defaults, one rate()."""
    model = PlackettLuce()
    teams = [[model.create_rating([mu, sigma])] for mu, sigma in befores]
    return [(team[0].mu, team[0].sigma) for team in model.rate(teams, ranks=ranks)]


def wz(mu):
    return round(1500 + 60 * (mu - 25))


def ranked_gin(players, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        table = services.table_create_seated(game="gin", users=players[:2], preset="schnell", ranked=True)
        play_out(table.pk, players[:2])
    return Match.objects.get(table=table)


def test_a_ranked_gin_match_rates_winner_first_loser_second(players, django_capture_on_commit_callbacks):
    match = ranked_gin(players, django_capture_on_commit_callbacks)
    winner = match.winner_seat
    ranks = [1 if seat == winner else 2 for seat in range(2)]
    expected = expected_after([(25.0, 25 / 3)] * 2, ranks)
    for seat, user in enumerate(players[:2]):
        rating = selectors.rating_of(user=user, game="gin")
        assert (rating.mu, rating.sigma) == pytest.approx(expected[seat], abs=1e-12)
        assert rating.display == wz(expected[seat][0])
        assert rating.matches == 1 and rating.provisional
        assert rating.wins == (1 if seat == winner else 0)
    changes = selectors.match_changes(match_id=match.pk)
    assert set(changes) == {players[0].pk, players[1].pk}
    assert changes[players[winner].pk].place == 1 and changes[players[winner].pk].delta > 0


def test_a_resignation_is_a_loss_and_marked_left(players, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        table = services.table_create_seated(game="gin", users=players[:2], ranked=True)
        services.match_resign(table_id=table.pk, user=players[0])
    match = Match.objects.get(table=table)
    expected = expected_after([(25.0, 25 / 3)] * 2, [2, 1])
    changes = selectors.match_changes(match_id=match.pk)
    resigned, winner = changes[players[0].pk], changes[players[1].pk]
    assert (resigned.place, resigned.left) == (2, True) and (winner.place, winner.left) == (1, False)
    assert (resigned.mu_after, resigned.sigma_after) == pytest.approx(expected[0], abs=1e-12)
    assert (winner.mu_after, winner.sigma_after) == pytest.approx(expected[1], abs=1e-12)
    assert selectors.rating_of(user=players[1], game="gin").wins == 1


def test_an_aborted_match_is_not_rated(players, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        table = services.table_create_seated(game="gin", users=players[:2], ranked=True)
        services.match_abort(table_id=table.pk, user=players[0])
    match = Match.objects.get(table=table)
    assert match.ending == "aborted"
    assert selectors.match_changes(match_id=match.pk) == {}
    assert not Rating.objects.exists()
    rating = selectors.rating_of(user=players[0], game="gin")
    assert (rating.mu, rating.sigma, rating.display, rating.matches, rating.provisional) == (25.0, 25 / 3, 1500, 0, True)


def test_a_casual_match_is_not_rated(players, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        table = services.table_create_seated(game="gin", users=players[:2], preset="schnell", ranked=False)
        play_out(table.pk, players[:2])
    assert not RatingChange.objects.exists()


def test_a_tournament_table_is_rated(players, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        table = services.table_create_seated(game="gin", users=players[:2], ranked=False, tournament=True)
        services.match_resign(table_id=table.pk, user=players[1])
    assert set(selectors.match_changes(match_id=Match.objects.get(table=table).pk)) == {players[0].pk, players[1].pk}


def test_a_romme_list_of_four_two_leavers_share_the_last_place(players, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        table = services.table_create_seated(game="romme", users=players, options={"rounds": 1}, ranked=True)
        services.match_resign(table_id=table.pk, user=players[3])
        services.match_resign(table_id=table.pk, user=players[1])
        play_out(table.pk, [players[0], None, players[2], None])
    match = Match.objects.get(table=table)
    assert sorted(match.left_seats) == [1, 3]
    stayed_first = 0 if match.result["places"][0] < match.result["places"][2] else 2
    stayed_second = 2 - stayed_first
    ranks = [0] * 4
    ranks[stayed_first], ranks[stayed_second], ranks[1], ranks[3] = 1, 2, 3, 3
    if match.result["places"][0] == match.result["places"][2]:
        ranks[0] = ranks[2] = 1
    expected = expected_after([(25.0, 25 / 3)] * 4, ranks)
    changes = selectors.match_changes(match_id=match.pk)
    for seat, user in enumerate(players):
        change = changes[user.pk]
        assert change.place == ranks[seat] and change.left == (seat in (1, 3))
        assert (change.mu_after, change.sigma_after) == pytest.approx(expected[seat], abs=1e-12)
    assert changes[players[1].pk].mu_after == changes[players[3].pk].mu_after


def test_a_romme_list_of_four_equal_totals_share_a_place(players, django_capture_on_commit_callbacks):
    """Equal totals are rare in play: the list is played out unannounced, two players' totals are then set
    equal (and the places as the engine computes them for such totals) before the announcement."""
    from games.engine.romme.scoring import casual_places

    table = services.table_create_seated(game="romme", users=players, options={"rounds": 1}, ranked=True)
    play_out(table.pk, players)  # no on-commit callbacks here: the end is not announced yet
    match = Match.objects.get(table=table)
    minus = [0, 25, 25, 60]
    match.result = {**match.result, "minus": minus, "places": casual_places(minus), "winner": 0}
    match.save(update_fields=["result"])
    assert match.result["places"] == [1, 2, 2, 4]
    with django_capture_on_commit_callbacks(execute=True):
        services.match_announce(match_id=match.pk, how=match.ending)
    expected = expected_after([(25.0, 25 / 3)] * 4, [1, 2, 2, 4])
    changes = selectors.match_changes(match_id=match.pk)
    for seat, user in enumerate(players):
        assert (changes[user.pk].mu_after, changes[user.pk].sigma_after) == pytest.approx(expected[seat], abs=1e-12)
    assert changes[players[1].pk].display_after == changes[players[2].pk].display_after
    assert [selectors.rating_of(user=u, game="romme").wins for u in players] == [1, 0, 0, 0]


def test_masters_places_follow_the_list_ranking_and_leavers_stay_last():
    from ratings.services import seat_places

    # A Masters list: the engine ranks by result, WP, Augen, rounds won; a stayer below the −700 of an
    # Abbruch still comes before whoever left.
    assert seat_places(places=[2, 4, 1, 3], left_seats=[2]) == [1, 3, 4, 2]
    assert seat_places(places=[1, 2, 2, 4], left_seats=[]) == [1, 2, 2, 4]
    assert seat_places(places=[1, 3, 2, 4], left_seats=[1, 3]) == [1, 3, 2, 3]


def test_ratings_carry_over_from_match_to_match(players, django_capture_on_commit_callbacks):
    first = ranked_gin(players, django_capture_on_commit_callbacks)
    befores = [(c.mu_after, c.sigma_after) for c in (selectors.match_changes(match_id=first.pk)[u.pk] for u in players[:2])]
    with django_capture_on_commit_callbacks(execute=True):
        table = services.table_create_seated(game="gin", users=players[:2], ranked=True)
        services.match_resign(table_id=table.pk, user=players[1])
    expected = expected_after(befores, [1, 2])
    second = Match.objects.get(table=table)
    for seat, user in enumerate(players[:2]):
        change = selectors.match_changes(match_id=second.pk)[user.pk]
        assert (change.mu_before, change.sigma_before) == befores[seat]
        assert (change.mu_after, change.sigma_after) == pytest.approx(expected[seat], abs=1e-12)
    history = selectors.rating_history(user=players[0], game="gin")
    assert [c.match_id for c in history] == [first.pk, second.pk]
    assert selectors.rating_of(user=players[0], game="gin").matches == 2


# --- idempotency ----------------------------------------------------------------------------------------


def _snapshot():
    return sorted(Rating.objects.values_list("user_id", "game", "mu", "sigma", "display", "matches", "wins"))


def test_the_announcement_sent_twice_rates_once(players, django_capture_on_commit_callbacks):
    match = ranked_gin(players, django_capture_on_commit_callbacks)
    before = _snapshot()
    assert services.match_announce(match_id=match.pk, how=match.ending)
    assert services.match_announce(match_id=match.pk, how=match.ending)
    assert _snapshot() == before
    assert RatingChange.objects.filter(match=match).count() == 2


def test_the_catch_up_rates_a_lost_announcement_once_run_twice(players, capsys):
    from django.core.management import call_command

    table = services.table_create_seated(game="gin", users=players[:2], ranked=True)
    services.match_resign(table_id=table.pk, user=players[0])  # no on-commit: as if killed after the commit
    match = Match.objects.get(table=table)
    assert not RatingChange.objects.exists()
    call_command("matches_ended", "--announce", "--older-than", "0")
    after_first = _snapshot()
    assert RatingChange.objects.filter(match=match).count() == 2
    call_command("matches_ended", "--announce", "--older-than", "0")
    Match.objects.filter(pk=match.pk).update(announced_at=None)  # even announced once more by hand
    call_command("matches_ended", "--announce", "--older-than", "0")
    assert _snapshot() == after_first
    assert RatingChange.objects.filter(match=match).count() == 2
    assert "announced now" in capsys.readouterr().out


def test_a_lost_announcement_is_rated_before_a_later_match_of_the_same_players(players,
                                                                              django_capture_on_commit_callbacks):
    """Ratings change in the order matches end: the next announcement rates the earlier lost one first."""
    lost_table = services.table_create_seated(game="gin", users=players[:2], ranked=True)
    services.match_resign(table_id=lost_table.pk, user=players[0])  # announcement lost
    lost = Match.objects.get(table=lost_table)
    with django_capture_on_commit_callbacks(execute=True):
        table = services.table_create_seated(game="gin", users=players[:2], ranked=True)
        services.match_resign(table_id=table.pk, user=players[1])
    later = Match.objects.get(table=table)
    first = expected_after([(25.0, 25 / 3)] * 2, [2, 1])
    second = expected_after(first, [1, 2])
    assert [c.match_id for c in selectors.rating_history(user=players[0], game="gin")] == [lost.pk, later.pk]
    rating = selectors.rating_of(user=players[0], game="gin")
    assert (rating.mu, rating.sigma) == pytest.approx(second[0], abs=1e-12)


def test_racing_workers_rate_a_match_once(players):
    """Two workers announcing the same end: the second finds the changes (unique per match and player)."""
    from ratings.services import match_rate

    table = services.table_create_seated(game="gin", users=players[:2], ranked=True)
    services.match_resign(table_id=table.pk, user=players[0])
    match = Match.objects.get(table=table)
    assert match_rate(match_id=match.pk) is True
    assert match_rate(match_id=match.pk) is False
    assert RatingChange.objects.filter(match=match).count() == 2
    assert Table.objects.get(pk=table.pk).status == Table.Status.FINISHED


def _run_at_once(*calls):
    import threading

    from django.db import connections

    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(index, call):
        barrier.wait()
        try:
            results[index] = call()
        except Exception as error:  # noqa: BLE001 - the test inspects it
            results[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


@pytest.mark.skipif(connection.vendor != "postgresql", reason="real concurrency needs PostgreSQL's row locks")
@pytest.mark.django_db(transaction=True)
def test_two_workers_at_once_rate_a_match_once_and_chain_shared_players(players):
    """Two announcements of one match at once rate it once; two matches sharing a player, rated at once,
    chain: one starts from what the other stored (the Rating rows are locked)."""
    from games.signals import match_ended
    from ratings.receivers import rate_ended_match
    from ratings.services import match_rate

    ended = []
    # Committed for real here: the announcement would rate at once, so it is held back while they end.
    match_ended.disconnect(dispatch_uid="ratings.rate_ended_match")
    try:
        for pair in ((players[0], players[1]), (players[0], players[2])):
            table = services.table_create_seated(game="gin", users=list(pair), ranked=True)
            services.match_resign(table_id=table.pk, user=pair[1])
            ended.append(Match.objects.get(table=table).pk)
    finally:
        match_ended.connect(rate_ended_match, dispatch_uid="ratings.rate_ended_match")
    assert not RatingChange.objects.exists()
    results = _run_at_once(lambda: match_rate(match_id=ended[0]), lambda: match_rate(match_id=ended[0]),
                           lambda: match_rate(match_id=ended[1]))
    assert sorted(map(str, results)) == ["False", "True", "True"], results
    assert RatingChange.objects.count() == 4
    first, second = sorted(RatingChange.objects.filter(user=players[0]), key=lambda c: c.pk)
    assert (second.mu_before, second.sigma_before) == (first.mu_after, first.sigma_after)
    assert selectors.rating_of(user=players[0], game="gin").matches == 2
