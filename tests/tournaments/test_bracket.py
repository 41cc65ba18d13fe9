"""The knockout bracket (issue 27.10): each round named from the final back ("Halbfinale", "Finale"), each
match with both players' final scores and a link to it, the pairs that feed the next round's match grouped
(the page draws the lines between them), and the champion once the tournament is over."""

import re

import pytest
from django.urls import reverse

from games.models import Match
from tests.tournaments.helpers import play_tournament, started
from tournaments import formats
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_knockout_of_four_shows_scores_rounds_and_the_champion(client, staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="Pokal", game="gin", format="knockout",
                settings={"check_in_minutes": 0, "break_minutes": 0}, options={"target": 0})
    play_tournament(t.pk)
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    names = {p.pk: p.username for p in players}
    bracket = formats.of(t).bracket(names)

    assert [r["label"] for r in bracket] == ["Halbfinale", "Finale"]
    assert [len(r["pairs"]) for r in bracket] == [1, 1] and [len(r["pairs"][0]) for r in bracket] == [2, 1]
    for round_ in bracket:
        for m in round_["matches"]:
            match = Match.objects.get(table_id=m["table"])
            assert [p["score"] for p in m["players"]] == match.final_scores  # seat order, both players
            assert [p["won"] for p in m["players"]] == [seat == match.winner_seat for seat in range(2)]
    final = Match.objects.get(table_id=bracket[-1]["matches"][0]["table"])
    assert bracket[-1]["champion"] == final.winner.username

    html = client.get(reverse("tournaments:detail", kwargs={"tournament_id": t.pk})).content.decode()
    scores = re.findall(r'<span class="tn-score" data-role="score">([^<]*)</span>', html)
    assert scores == [str(s) for r in bracket for m in r["matches"] for s in Match.objects.get(table_id=m["table"]).final_scores]
    assert f"Turniersieger: {final.winner.username}" in html
    assert html.count('class="tn-match-link"') == 3


def test_a_running_knockout_has_no_champion_yet(client, staff, make_players):
    players = make_players(4)
    t = started(staff, players, name="Pokal", game="gin", format="knockout",
                settings={"check_in_minutes": 0, "break_minutes": 0}, options={"target": 0})
    bracket = formats.of(t).bracket({p.pk: p.username for p in players})
    assert "champion" not in bracket[-1]
    assert all(p["score"] is None for m in bracket[0]["matches"] for p in m["players"])
    html = client.get(reverse("tournaments:detail", kwargs={"tournament_id": t.pk})).content.decode()
    assert 'data-role="champion"' not in html and "tn-match-link" not in html
