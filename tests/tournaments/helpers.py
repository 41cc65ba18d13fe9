"""Drivers for whole tournaments: every seat of every table plays the bots' choose_action on its own view."""

from django.contrib.auth import get_user_model

from games.models import Table
from tests.games.helpers import play_out
from tournaments import selectors as tournament_selectors
from tournaments import services as tournament_services
from tournaments.models import Tournament


def users_of(ids):
    found = get_user_model().objects.in_bulk([i for i in ids if i is not None])
    return [found.get(i) for i in ids]


def play_stage(tournament_id, *, on_table=None):
    """Play every open table of the current stage to its end. ``on_table(table_id, users)`` runs first."""
    for row in tournament_selectors.tournament_tables(tournament_id=tournament_id):
        if row["table"] is None:
            continue
        if Table.objects.get(pk=row["table"]).status != Table.Status.PLAYING:
            continue
        users = users_of(row["users"])
        if on_table is not None:
            on_table(row["table"], users)
        play_out(row["table"], users)


def play_tournament(tournament_id, *, max_stages=20, on_stage=None):
    """Play stage after stage (break_minutes 0: the next stage opens as the last table ends)."""
    seatings = []
    for _ in range(max_stages):
        t = Tournament.objects.get(pk=tournament_id)
        if t.status != Tournament.Status.RUNNING:
            return seatings
        before = t.current_stage
        seatings.append(tournament_selectors.tournament_tables(tournament_id=tournament_id))
        play_stage(tournament_id, on_table=(lambda tid, users, n=before: on_stage(n, tid, users)) if on_stage else None)
        t.refresh_from_db()
        assert t.status != Tournament.Status.RUNNING or t.current_stage == before + 1, "the next stage did not start"
    raise AssertionError("the tournament did not finish")


def started(staff, players, **create):
    t = tournament_services.tournament_create(by=staff, **create)
    tournament_services.tournament_publish(tournament_id=t.pk, by=staff)
    for user in players:
        tournament_services.tournament_register(tournament_id=t.pk, user=user)
    tournament_services.tournament_start(tournament_id=t.pk, by=staff)
    return Tournament.objects.get(pk=t.pk)
