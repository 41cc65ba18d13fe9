"""The end view of a tournament table (issue 27.3): what ``/turniere/tisch/<id>/ende.json`` tells the player
whose match just ended: the way back to the tournament, their standing after this match, and what comes next
(how many tables still play, the break's countdown, the next round begun, the tournament over); in the
request's language; nothing for a table no tournament made."""


from datetime import timedelta

import pytest
from django.urls import reverse

from games import services as games_services
from games.models import Table
from tests.tournaments.helpers import play_stage, started, users_of
from tournaments import selectors
from tournaments import services as tournament_services
from tournaments.models import StageTable

pytestmark = pytest.mark.django_db(transaction=True)


def _facts(client, user, table_id, language="de"):
    user.profile.language = language  # the profile's language wins over the browser's
    user.profile.save(update_fields=["language"])
    client.force_login(user)
    response = client.get(reverse("tournaments:table_end", kwargs={"table_id": table_id}),
                          HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.json()


def _resign(table_id, loser):
    games_services.match_resign(table_id=table_id, user=loser)


def test_a_player_whose_table_finished_first_waits_for_the_others_then_counts_down_the_break(
        client, staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="Advent", game="gin", format="swiss",
                settings={"rounds": 2, "check_in_minutes": 0, "break_minutes": 2}, options={"target": 0})
    first, second = (row for row in selectors.tournament_tables(tournament_id=t.pk))
    winner, loser = users_of(first["users"])
    _resign(first["table"], loser)

    facts = _facts(client, winner, first["table"])
    assert facts["url"] == reverse("tournaments:detail", kwargs={"tournament_id": t.pk})
    assert facts["to_tournament"] == "Zum Turnier" and facts["recorded"] is True
    assert facts["standing"].startswith("Dein Stand nach dieser Partie: Platz 1 von 4 (Punkte: 1)")
    assert facts["next"] == "Warte auf die anderen Tische (1 läuft noch)" and facts["countdown"] is None
    assert facts["polling"] is True
    # a forfeit-like 0:0 margin: the loser shares place 2 with the two who have not finished yet
    assert _facts(client, loser, first["table"])["standing"].endswith("Platz 2 von 4 (Punkte: 0)")

    a, b = users_of(second["users"])
    _resign(second["table"], b)
    t.refresh_from_db()
    facts = _facts(client, winner, first["table"])
    assert facts["next"] == "" and facts["countdown"]["label"] == "Nächste Runde in"
    assert facts["countdown"]["at"] == t.next_stage_at.isoformat()
    english = _facts(client, winner, first["table"], "en")
    assert english["countdown"]["label"] == "Next round in" and english["to_tournament"] == "Go to the tournament"
    assert english["standing"].startswith("Your standing after this match: place 1 of 4")


def test_once_the_next_round_began_or_the_tournament_ended_it_says_so_and_stops(client, staff, make_players):
    players = make_players(2)
    t = started(staff, players, name="Zu zweit", game="gin", format="swiss",
                settings={"rounds": 1, "check_in_minutes": 0, "break_minutes": 0}, options={"target": 0})
    (row,) = selectors.tournament_tables(tournament_id=t.pk)
    play_stage(t.pk)
    facts = _facts(client, users_of(row["users"])[0], row["table"])
    assert facts["next"] == "Das Turnier ist beendet." and facts["polling"] is False
    assert _facts(client, users_of(row["users"])[0], row["table"], "en")["next"] == "The tournament is over."


def test_a_spectator_gets_no_standing_and_a_table_outside_a_tournament_is_not_found(client, staff, make_players):
    players = make_players(3)
    t = started(staff, players[:2], name="Zu zweit", game="gin", format="swiss",
                settings={"rounds": 2, "check_in_minutes": 0, "break_minutes": 5}, options={"target": 0})
    (row,) = selectors.tournament_tables(tournament_id=t.pk)
    _resign(row["table"], users_of(row["users"])[1])
    facts = _facts(client, players[2], row["table"])
    assert facts["standing"] == "" and facts["countdown"]["label"] == "Nächste Runde in"
    casual = Table.objects.create(game="gin", options={}, seat_count=2)
    client.force_login(players[2])
    assert client.get(reverse("tournaments:table_end", kwargs={"table_id": casual.pk})).status_code == 404
    assert StageTable.objects.filter(table_id=casual.pk).count() == 0


def test_a_no_show_who_was_forfeited_is_named_and_a_resignation_after_playing_is_not(client, staff, make_players):
    from games.models import Match
    from tests.games.helpers import state_of

    players = make_players(2)
    t = started(staff, players, name="Kampflos", game="gin", format="swiss",
                settings={"rounds": 2, "check_in_minutes": 0, "break_minutes": 5, "forfeit_minutes": 1},
                options={"target": 0})
    (row,) = selectors.tournament_tables(tournament_id=t.pk)
    table = Table.objects.get(pk=row["table"])
    no_show = state_of(table).to_act  # the seat to act first never opens the table
    assert games_services.turn_timeout(table_id=table.pk, now=table.turn_deadline + timedelta(seconds=1))
    match = Match.objects.get(table=table)
    tournament_services.tournaments_tick(now=match.started_at + timedelta(minutes=2))
    match.refresh_from_db()
    assert match.ending == Match.Ending.RESIGNED and match.left_seats == [no_show]
    winner = users_of(row["users"])[1 - no_show]
    assert _facts(client, winner, table.pk)["forfeit_seat"] == no_show


def test_a_hand_resignation_before_any_timeout_is_no_forfeit(client, staff, make_players):
    players = make_players(2)
    t = started(staff, players, name="Aufgabe", game="gin", format="swiss",
                settings={"rounds": 2, "check_in_minutes": 0, "break_minutes": 5}, options={"target": 0})
    (row,) = selectors.tournament_tables(tournament_id=t.pk)
    a, b = users_of(row["users"])
    _resign(row["table"], b)
    assert _facts(client, a, row["table"])["forfeit_seat"] is None
