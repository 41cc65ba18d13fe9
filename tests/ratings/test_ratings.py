"""Ratings per ratings.md: one openskill PlackettLuce ``rate()`` per rated match (library defaults), places
from the match, leavers last; rated once, whatever is announced again; aborted and casual matches never."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from games import services
from games.models import Match, Table
from ratings import selectors
from ratings.models import Rating, RatingChange
from tests.games.conftest import _live_play_settings, _same_test_players, players  # noqa: F401
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
