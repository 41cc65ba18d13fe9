"""ratings.md "Farming" (issue 25): a public ranked table joined by a second account that resigns at once,
again and again, farmed 1874 against 1126. Now the same two people are rated against each other at most
3 times in 24 hours outside tournaments (a further match is played unrated, and its table says so before
the first move); resigning before one's own first move counts as an abandon even where the match is not
rated; and someone serving an abandon wait may not register for, or check in to, a tournament that starts
within it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Match, Move, Table
from ratings import selectors
from ratings.models import RatingChange
from tournaments import services as tournament_services
from tournaments.errors import TournamentError

pytestmark = pytest.mark.django_db

UNRATED = "Ungewertet: anna und ben haben in den letzten 24 Stunden schon 3 gewertete Partien gegeneinander gespielt"


def ranked_gin(creator, joiner) -> Table:
    table = services.table_create(user=creator, game="gin", preset="klassisch", ranked=True)
    services.table_join(table_id=table.pk, user=joiner)
    return Table.objects.get(pk=table.pk)


def table_page(table: Table) -> str:
    return Client().get(reverse("games:table", kwargs={"table_id": table.pk})).content.decode()


def resign_at_once(table: Table, user, capture) -> Match:
    with capture(execute=True):
        services.match_resign(table_id=table.pk, user=user)
    return Match.objects.get(table=table)


def test_the_fourth_match_of_two_people_in_a_day_is_played_unrated_and_the_table_says_so(
    players, django_capture_on_commit_callbacks
):
    anna, ben, cleo = players[:3]
    for number in range(3):
        table = ranked_gin(anna, ben)
        assert UNRATED not in table_page(table)
        match = resign_at_once(table, anna if number % 2 else ben, django_capture_on_commit_callbacks)
        assert RatingChange.objects.filter(match=match).count() == 2
    before = {c.user_id: c.display_after for c in RatingChange.objects.order_by("created_at", "pk")}
    # An open table of the two already says it before anyone sits down a second time ...
    open_table = services.table_create(user=anna, game="gin", preset="klassisch", ranked=True)
    assert UNRATED not in table_page(open_table)  # anna alone: nobody to farm against yet
    services.table_join(table_id=open_table.pk, user=ben)
    fourth = Table.objects.get(pk=open_table.pk)
    assert fourth.status == Table.Status.PLAYING and not Move.objects.filter(table=fourth).exists()
    assert UNRATED in table_page(fourth)  # ... before the first move
    match = resign_at_once(fourth, ben, django_capture_on_commit_callbacks)
    assert match.ending == Match.Ending.RESIGNED
    assert not RatingChange.objects.filter(match=match).exists()
    assert {c.user_id: c.display_after for c in RatingChange.objects.order_by("created_at", "pk")} == before
    # Another opponent is rated as usual, and a tournament match of the two would be (not tested here).
    other = ranked_gin(anna, cleo)
    assert UNRATED not in table_page(other) and "Ungewertet" not in table_page(other)
    assert RatingChange.objects.filter(match=resign_at_once(other, cleo, django_capture_on_commit_callbacks)).exists()


def test_the_cap_counts_the_24_hours_before_the_match(players):
    anna, ben = players[:2]
    now = timezone.now()
    from tests.ratings.test_abandoning import history

    history(anna, ben, "...", last=now - timedelta(hours=23), step=timedelta(minutes=45))
    assert selectors.farming_cap(user_ids=[anna.pk, ben.pk], at=now) is None  # the first ended 24.5 h ago
    history(anna, ben, ".", last=now - timedelta(minutes=5))
    cap = selectors.farming_cap(user_ids=[ben.pk, anna.pk], at=now)
    assert cap is not None and cap.count == 3 and cap.user_ids == (ben.pk, anna.pk)


def test_resigning_an_unrated_ranked_match_before_ones_own_first_move_is_an_abandon(
    players, django_capture_on_commit_callbacks
):
    anna, ben = players[:2]
    now = timezone.now()
    from tests.ratings.test_abandoning import history

    history(anna, ben, ".....", last=now - timedelta(hours=1))  # the cap: the next ones are unrated
    for _ in range(3):
        match = resign_at_once(ranked_gin(anna, ben), ben, django_capture_on_commit_callbacks)
        assert not RatingChange.objects.filter(match=match).exists()
    assert len(selectors.early_resignations(user=ben)) == 3
    wait = selectors.abandon_wait(user=ben)
    assert wait is not None and wait.left == 3
    assert selectors.abandon_wait(user=anna) is None


def _tournament(staff, *, starts_at, check_in_minutes=0):
    t = tournament_services.tournament_create(
        by=staff, game="gin", format="swiss", name="Abend", starts_at=starts_at,
        settings={"check_in_minutes": check_in_minutes},
    )
    return tournament_services.tournament_publish(tournament_id=t.pk, by=staff)


def test_an_abandon_wait_refuses_a_tournament_that_starts_within_it(players, staff):
    anna, ben, cleo = players[:3]
    from tests.ratings.test_abandoning import history

    history(ben, anna, "L.L.L", last=timezone.now() - timedelta(minutes=1))
    wait = selectors.abandon_wait(user=ben)
    assert wait is not None
    soon = _tournament(staff, starts_at=wait.until - timedelta(minutes=2))
    with pytest.raises(TournamentError) as refused:
        tournament_services.tournament_register(tournament_id=soon.pk, user=ben)
    assert refused.value.code == "abandon_wait"
    assert "kannst du nicht gewertet spielen" in refused.value.message
    assert "Dieses Turnier beginnt vorher" in refused.value.message
    assert not soon.entries.filter(user=ben).exists()
    tournament_services.tournament_register(tournament_id=soon.pk, user=cleo)  # others register as usual
    later = _tournament(staff, starts_at=wait.until + timedelta(minutes=5))
    assert tournament_services.tournament_register(tournament_id=later.pk, user=ben).user_id == ben.pk


def test_an_abandon_wait_refuses_checking_in(players, staff):
    anna, ben = players[:2]
    t = _tournament(staff, starts_at=timezone.now() + timedelta(minutes=5), check_in_minutes=10)
    tournament_services.tournament_register(tournament_id=t.pk, user=ben)
    from tests.ratings.test_abandoning import history

    history(ben, anna, "L.L.L", last=timezone.now() - timedelta(minutes=1))  # abandoned after registering
    with pytest.raises(TournamentError) as refused:
        tournament_services.tournament_check_in(tournament_id=t.pk, user=ben)
    assert refused.value.code == "abandon_wait"
    assert t.entries.get(user=ben).checked_in_at is None


def test_the_lobby_says_so_for_the_viewer_before_they_sit_down(players):
    anna, ben, cleo = players[:3]
    from tests.ratings.test_abandoning import history

    history(anna, ben, "...", last=timezone.now() - timedelta(hours=1))
    open_table = services.table_create(user=anna, game="gin", preset="klassisch", ranked=True)
    url = reverse("pool:seat_ratings")
    as_ben, as_cleo = Client(), Client()
    as_ben.force_login(ben)
    as_cleo.force_login(cleo)
    unrated = as_ben.get(url).json()["unrated"]
    assert unrated[str(open_table.pk)].startswith(UNRATED)
    assert as_cleo.get(url).json()["unrated"] == {}  # cleo has not played anna: her match would be rated
    assert Client().get(url).json()["unrated"] == {}
    # Seated, the match has begun: everyone watching the lobby is told.
    services.table_join(table_id=open_table.pk, user=ben)
    assert as_cleo.get(url).json()["unrated"][str(open_table.pk)].startswith(UNRATED)


def test_the_note_comes_in_english_under_english(players):
    from django.utils import translation

    from ratings.panels import farming_note

    cap = selectors.FarmingCap(user_ids=(players[0].pk, players[1].pk), count=3, at=timezone.now())
    with translation.override("en"):
        text = farming_note(cap=cap, names={players[0].pk: "anna", players[1].pk: "ben"})
    assert text.startswith("Unrated: anna and ben have already played 3 rated matches against each other")
