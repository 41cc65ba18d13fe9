"""A tournament match's analysis waits for its stage: the match page holds it back (in the page's language)
while the stage (a gin round, a Rommé series) runs, and shows it once the stage has ended."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Match
from games.services import analysis as match_analysis
from tests.games.helpers import play_out
from tournaments.models import Stage, StageTable, Tournament

pytestmark = [pytest.mark.django_db, pytest.mark.deal_seed("analysis-held-tests")]


def state_and_text(match: Match, language: str) -> tuple[str, str]:
    html = Client().get(reverse("matches:detail", kwargs={"match_id": match.pk}),
                        HTTP_ACCEPT_LANGUAGE=language).content.decode()
    found = re.search(r'id="analysis"[^>]*data-state="(\w+)"', html)
    return (found.group(1) if found else ""), html


def test_a_tournament_match_s_analysis_waits_until_its_stage_has_ended(players):
    anna, ben = players[:2]
    tournament = Tournament.objects.create(name="Herbstturnier", game="gin", format="swiss")
    stage = Stage.objects.create(tournament=tournament, number=1)
    table = services.table_create_seated(game="gin", users=[anna, ben], preset="schnell", tournament=True)
    StageTable.objects.create(stage=stage, number=1, table=table, users=[anna.pk, ben.pk])
    match = Match.objects.get(pk=play_out(table.pk, [anna, ben]).current_match_id)
    match_analysis.analyse_match(match, seconds=0.02)

    state, html = state_and_text(match, "de")
    assert state == "held" and "wenn diese Turnierrunde zu Ende ist" in html
    assert "an-decisions" not in html
    state, html = state_and_text(match, "en")
    assert state == "held" and "once this tournament round has ended" in html

    Stage.objects.filter(pk=stage.pk).update(finished_at=timezone.now())
    state, html = state_and_text(match, "en")
    assert state == "ready" and "an-decisions" in html
