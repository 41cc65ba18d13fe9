"""The tournament page links every played match (issue 27.5): each round cell of the standings ("+13 gegen
anna") links to that match's page, and a finished table of the current round links to its match, not to the
dead table; a same-deals stage still being played links nothing (its hands stay secret until it ends)."""

import re

import pytest
from django.urls import reverse

from games.models import Match
from tests.tournaments.helpers import play_stage, play_tournament, started
from tournaments.models import StageTable

pytestmark = pytest.mark.django_db(transaction=True)

FAST = {"check_in_minutes": 0, "break_minutes": 0}


def _cell_links(html):
    return re.findall(r'<a href="([^"]+)" data-role="stage-match">', html)


def test_every_round_cell_of_a_finished_swiss_links_its_match(client, staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="Advent", game="gin", format="swiss",
                settings={"rounds": 2, **FAST}, options={"target": 0})
    play_tournament(t.pk)
    html = client.get(reverse("tournaments:detail", kwargs={"tournament_id": t.pk})).content.decode()

    links = _cell_links(html)
    assert len(links) == 4 * 2  # four players, two rounds each, no byes with four
    tables = set(StageTable.objects.filter(stage__tournament=t).values_list("table_id", flat=True))
    assert {reverse("matches:table_last", kwargs={"table_id": table}) for table in tables} == set(links)
    # and the link leads to that table's match page
    response = client.get(links[0])
    match = Match.objects.get(table_id=int(re.search(r"/tisch/(\d+)/", links[0]).group(1)))
    assert response.status_code == 302 and response["Location"] == reverse("matches:detail", kwargs={"match_id": match.pk})


class _Stop(Exception):
    pass


def _play_first_table_only(tournament_id):
    """Play the first table of the current stage to its end and leave the others running."""
    played = []

    def on_table(table_id, users):
        if played:
            raise _Stop
        played.append(table_id)

    with pytest.raises(_Stop):
        play_stage(tournament_id, on_table=on_table)
    return played[0]


def test_a_finished_table_of_the_current_round_links_the_match_not_the_table(client, staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="Advent", game="gin", format="swiss",
                settings={"rounds": 2, **FAST}, options={"target": 0})
    done = _play_first_table_only(t.pk)
    html = client.get(reverse("tournaments:detail", kwargs={"tournament_id": t.pk})).content.decode()
    assert f'<a href="{reverse("matches:table_last", kwargs={"table_id": done})}" data-role="table-match">' in html
    running = StageTable.objects.filter(stage__tournament=t).exclude(table_id=done).get().table_id
    assert f'href="{reverse("games:table", kwargs={"table_id": running})}"' in html
    assert len(_cell_links(html)) == 2  # the two players of the finished table


def test_a_same_deals_series_links_no_match_until_the_series_ends(client, staff, make_players):
    players = make_players(6)
    t = started(staff, players, name="Masters", game="romme", format="series",
                settings={"series": 1, "rounds": 1, "table_size": 3, "same_deals": True, **FAST}, options={})
    done = _play_first_table_only(t.pk)
    html = client.get(reverse("tournaments:detail", kwargs={"tournament_id": t.pk})).content.decode()
    assert reverse("matches:table_last", kwargs={"table_id": done}) not in html
    assert _cell_links(html) == []
    play_tournament(t.pk)
    html = client.get(reverse("tournaments:detail", kwargs={"tournament_id": t.pk})).content.decode()
    assert len(_cell_links(html)) == 6
