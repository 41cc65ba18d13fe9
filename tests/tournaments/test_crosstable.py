"""A round robin shows a crosstable (issue 27.10): everyone against everyone in the order of the standings,
each cell the row player's result against the column player, the diagonal marked; other formats show none."""

import re

import pytest
from django.urls import reverse

from tests.tournaments.helpers import play_tournament, started
from tournaments import formats, selectors

pytestmark = pytest.mark.django_db(transaction=True)

FAST = {"check_in_minutes": 0, "break_minutes": 0}


def test_a_round_robin_of_four_has_a_crosstable_of_its_results(client, staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="Liga", game="gin", format="round_robin", settings=FAST, options={"target": 0})
    play_tournament(t.pk)
    standings = selectors.tournament_standings(tournament_id=t.pk)
    names = {p.pk: p.username for p in players}
    table = formats.of(t).crosstable(standings, names)

    assert table["columns"] == [names[r["user_id"]] for r in standings]
    for i, row in enumerate(standings):
        cells = table["rows"][i]["cells"]
        assert cells[i]["self"] and sum(c["won"] is True for c in cells) == sum(e["won"] for e in row["stages"])
        for j, other in enumerate(standings):
            if i == j:
                continue
            [entry] = [e for e in row["stages"] if e["opponent"] == other["user_id"]]
            assert cells[j]["text"] == ("+" if entry["won"] else "−") + str(entry["margin"])
            # the same match seen from the other side
            assert table["rows"][j]["cells"][i]["won"] is (not entry["won"])

    html = client.get(reverse("tournaments:detail", kwargs={"tournament_id": t.pk})).content.decode()
    grid = re.search(r'data-role="crosstable">(.*?)</table>', html, re.S).group(1)
    assert grid.count('class="tn-self"') == 4 and grid.count('class="tn-won"') == 6 and grid.count('class="tn-lost"') == 6


def test_a_swiss_has_no_crosstable(client, staff, make_players):
    t = started(staff, make_players(4), name="Advent", game="gin", format="swiss",
                settings={"rounds": 1, **FAST}, options={"target": 0})
    html = client.get(reverse("tournaments:detail", kwargs={"tournament_id": t.pk})).content.decode()
    assert 'data-role="crosstable"' not in html
