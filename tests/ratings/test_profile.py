"""The profile's rating panels: the Wertungszahl with its history drawn as an SVG polyline, rated matches and
wins, each game's own statistics (checked against matches whose rounds are written out here), recent rated
matches linked to their pages, the head-to-head form, and a fixed number of queries however much was played."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.template import Context, Template
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from games import services
from games.models import Match, Round, Table
from ratings.models import Rating, RatingChange
from ratings.templatetags.ratings_tags import chart_points
from tests.games.helpers import play_out

pytestmark = [pytest.mark.django_db, pytest.mark.deal_seed("profile-tests")]

T0 = timezone.now() - timedelta(days=3)


def written_match(game: str, users: list, rounds: list[dict], *, result: dict | None = None, private=False,
                  winner=None, options=None, at=None) -> Match:
    """A finished match whose rounds are written out by hand (their results as the engine reports them)."""
    at = at or T0
    table = Table.objects.create(game=game, options=options or {}, seat_count=len(users), status="finished",
                                 private=private, invite_token="x" * 32 if private else "")
    match = Match.objects.create(
        table=table, game=game, options=options or {}, status=Match.Status.FINISHED, finished_at=at,
        players=[{"seat": i, "user_id": u.pk, "name": u.username, "bot": ""} for i, u in enumerate(users)],
        result=result or {}, winner_seat=winner, winner=users[winner] if winner is not None else None,
    )
    match.users.set(users)
    for number, r in enumerate(rounds, start=1):
        Round.objects.create(match=match, number=number, deal_hash="0" * 64, result={"round": number, **r},
                             finished_at=at)
    return match


def gin_round(result, knocker, winner, points, deadwood):
    return {"result": result, "knocker": knocker, "winner": winner, "points": points, "deadwood": deadwood}


@pytest.fixture
def gin_matches(players):
    """anna and ben: five rounds with anna in seat 0, then a Big Gin by anna from seat 1."""
    anna, ben = players[:2]
    first = written_match("gin", [anna, ben], [
        gin_round("gin", 0, 0, 45, [0, 20]),        # anna's gin
        gin_round("undercut", 1, 0, 27, [4, 6]),    # ben knocks with 6, anna undercuts him
        gin_round("knock", 0, 0, 12, [7, 19]),      # anna knocks with 7
        gin_round("knock", 1, 1, 9, [12, 3]),       # ben knocks with 3
        gin_round("dead", None, None, 0, None),
    ], winner=0)
    second = written_match("gin", [ben, anna], [gin_round("big_gin", 1, 1, 62, [31, 0])], winner=1,
                           at=T0 + timedelta(hours=1))
    return first, second


def render_panels(player, viewer=None, language="de") -> str:
    # In German unless asked (a request earlier in the same thread may have left another language active).
    with translation.override(language):
        return Template("{% load ratings_tags %}{% rating_panels player viewer %}").render(
            Context({"player": player, "viewer": viewer})
        )


def panel_html(html: str, game: str) -> str:
    found = re.search(rf'<section class="card rating-panel" id="rating-{game}".*?</section>', html, re.S)
    assert found, f"no {game} panel"
    return found.group(0)


def stat(html: str, name: str) -> str:
    found = re.search(rf'<dd data-stat="{name}">(.*?)</dd>', html, re.S)
    assert found, f"no statistic {name}"
    return found.group(1).strip()


def rate(user, game: str, displays: list[int], matches: list[Match]) -> Rating:
    """Rating changes as the ratings service writes them: ``displays`` is the Wertungszahl before the first
    match, then after each."""
    for i, match in enumerate(matches):
        RatingChange.objects.create(
            match=match, user=user, game=game, place=1, mu_before=25, sigma_before=8, mu_after=25, sigma_after=8,
            display_before=displays[i], display_after=displays[i + 1], created_at=match.finished_at,
        )
    return Rating.objects.create(user=user, game=game, display=displays[-1], matches=len(matches),
                                 wins=sum(1 for a, b in zip(displays, displays[1:], strict=False) if b > a),
                                 last_rated_at=matches[-1].finished_at)


# --- the game's own statistics -------------------------------------------------------------------------------


def test_gin_statistics_count_gins_undercuts_and_the_deadwood_of_each_knock(players, gin_matches):
    anna, ben = players[:2]
    anna_panel = panel_html(render_panels(anna), "gin")
    assert stat(anna_panel, "played") == "2"
    assert stat(anna_panel, "gins") == "2"  # a Big Gin is a gin too
    assert stat(anna_panel, "undercuts-given") == "1"
    assert stat(anna_panel, "undercuts-suffered") == "0"
    assert stat(anna_panel, "knock-deadwood") == "2,3"  # (0 + 7 + 0) / 3, in German

    ben_panel = panel_html(render_panels(ben), "gin")
    assert stat(ben_panel, "gins") == "0"
    assert stat(ben_panel, "undercuts-given") == "0"
    assert stat(ben_panel, "undercuts-suffered") == "1"
    assert stat(ben_panel, "knock-deadwood") == "4,5"  # (6 + 3) / 2


def test_romme_statistics_count_hand_rommes_and_average_the_masters_lists(players):
    anna, ben, cleo = players[:3]
    masters = {"tournament": True}
    written_match("romme", [anna, ben, cleo], [
        {"result": "hand_romme", "winner": 0, "hand_romme": True},
        {"result": "romme", "winner": 1, "hand_romme": False},
        {"result": "romme", "winner": 0, "hand_romme": False},
    ], result={"tournament": True, "wertungspunkte": [14, 5, -2], "final": [120, 30, -60]}, options=masters)
    written_match("romme", [cleo, anna, ben], [{"result": "romme", "winner": 0, "hand_romme": False}],
                  result={"tournament": True, "wertungspunkte": [12, 5, 3], "final": [100, 41, 20]}, options=masters)
    written_match("romme", [ben, anna], [{"result": "hand_romme", "winner": 1, "hand_romme": True}],
                  result={"tournament": False, "minus": [40, 0], "final": [40, 0]})  # casual: no Masters average
    panel = panel_html(render_panels(anna), "romme")
    assert stat(panel, "played") == "3"
    assert stat(panel, "hand-rommes") == "2"
    assert stat(panel, "rounds-won") == "3"
    assert stat(panel, "masters-lists") == "2"
    assert stat(panel, "masters-wp") == "9,5"  # (14 + 5) / 2
    assert stat(panel, "masters-result") == "80,5"  # (120 + 41) / 2


def test_statistics_of_a_played_match_agree_with_its_rounds(players, django_capture_on_commit_callbacks):
    anna, ben = players[:2]
    table = services.table_create_seated(game="gin", users=[anna, ben], preset="klassisch", options={"target": 50})
    with django_capture_on_commit_callbacks(execute=True):
        match = Match.objects.get(pk=play_out(table.pk, [anna, ben]).current_match_id)
    results = [r.result for r in match.rounds.all()]
    knocks = [r["deadwood"][0] for r in results if r["knocker"] == 0]
    panel = panel_html(render_panels(anna), "gin")
    assert stat(panel, "gins") == str(sum(1 for r in results if r["result"] in ("gin", "big_gin") and r["winner"] == 0))
    assert stat(panel, "undercuts-suffered") == str(sum(1 for r in results if r["result"] == "undercut" and r["knocker"] == 0))
    expected = f"{sum(knocks) / len(knocks):.1f}".replace(".", ",") if knocks else "–"
    assert stat(panel, "knock-deadwood") == expected


def test_private_matches_count_only_on_one_s_own_page(players, gin_matches):
    anna, ben = players[:2]
    written_match("gin", [anna, ben], [gin_round("gin", 0, 0, 40, [0, 15])], private=True, winner=0)
    assert stat(panel_html(render_panels(anna, viewer=ben), "gin"), "gins") == "2"
    assert stat(panel_html(render_panels(anna, viewer=anna), "gin"), "gins") == "3"


# --- the Wertungszahl and its history ------------------------------------------------------------------------


def test_the_history_chart_follows_every_rating_change(players, gin_matches):
    anna = players[0]
    first, second = gin_matches
    third = written_match("gin", [anna, players[2]], [gin_round("knock", 0, 0, 10, [5, 15])], winner=0,
                          at=T0 + timedelta(hours=2))
    displays = [1500, 1658, 1475, 1627]
    rate(anna, "gin", displays, [first, second, third])
    html = panel_html(render_panels(anna), "gin")
    points = re.search(r'<polyline points="([^"]+)"', html).group(1)
    assert points == chart_points(displays)
    xy = [tuple(map(float, p.split(","))) for p in points.split()]
    assert len(xy) == len(displays)
    assert [x for x, _ in xy] == sorted(x for x, _ in xy)  # oldest on the left
    # Higher Wertungszahl, higher up (smaller y): the order of the ys is the reverse order of the values.
    assert sorted(range(4), key=lambda i: xy[i][1]) == sorted(range(4), key=lambda i: -displays[i])
    assert re.search(r'data-role="rating">1627\?<', html)  # three rated matches: provisional
    assert stat(html, "rated") == "3"
    assert stat(html, "wins") == "2"
    recent = re.findall(r'<li data-match="(\d+)">.*?</li>', html, re.S)
    assert recent == [str(third.pk), str(second.pk), str(first.pk)]  # newest first, linked to their pages
    assert reverse("matches:detail", kwargs={"match_id": third.pk}) in html
    assert "+152" in html and "\u2212183" in html


def test_chart_points_span_the_drawing_area():
    assert chart_points([1500]) == ""
    assert chart_points([1500, 1520, 1510], width=120, height=60, pad=10, left=10) == "10,50 60,10 110,30"
    assert chart_points([1500, 1500], width=120, height=60, pad=10, left=10) == "10,30 110,30"


def test_ten_rated_matches_lose_the_question_mark(players):
    anna, ben = players[:2]
    matches = [written_match("gin", [anna, ben], [], winner=0, at=T0 + timedelta(minutes=i)) for i in range(10)]
    rate(anna, "gin", [1500 + 5 * i for i in range(11)], matches)
    html = panel_html(render_panels(anna), "gin")
    assert re.search(r'data-role="rating">1550<', html)


def test_a_player_never_rated_has_no_number_and_no_chart(players):
    html = panel_html(render_panels(players[0]), "romme")
    assert re.search(r'data-role="rating">–<', html)
    assert "<polyline" not in html


def test_the_panel_takes_the_same_few_queries_however_much_was_played(players, gin_matches,
                                                                       django_assert_num_queries):
    anna, ben = players[:2]
    rate(anna, "gin", [1500, 1510, 1505], list(gin_matches))
    with django_assert_num_queries(4):
        render_panels(anna, viewer=ben)
    more = [written_match("gin", [anna, ben], [gin_round("knock", 0, 0, 10, [5, 15])] * 4, winner=0,
                          at=T0 + timedelta(hours=3 + i)) for i in range(6)]
    written_match("romme", [anna, ben], [{"result": "romme", "winner": 0, "hand_romme": False}],
                  result={"tournament": True, "wertungspunkte": [5, 3], "final": [50, 20]})
    RatingChange.objects.filter(user=anna).delete()
    Rating.objects.filter(user=anna).delete()
    rate(anna, "gin", [1500 + i for i in range(len(more) + 3)], [*gin_matches, *more])
    with django_assert_num_queries(4):
        html = render_panels(anna, viewer=ben)
    assert stat(panel_html(html, "gin"), "played") == "8"


# --- the profile page ----------------------------------------------------------------------------------------


def test_the_profile_page_shows_the_panels_links_matches_and_the_head_to_head_form(players, gin_matches):
    anna, ben = players[:2]
    client = Client()
    client.force_login(ben)
    html = client.get(reverse("accounts:public", kwargs={"username": "anna"})).content.decode()
    assert 'id="rating-gin"' in html and 'id="rating-romme"' in html
    for match in gin_matches:  # the match history links each match page
        assert reverse("matches:detail", kwargs={"match_id": match.pk}) in html
    form = re.search(r'<form class="compare-form".*?</form>', html, re.S).group(0)
    assert reverse("matches:compare_form") in form
    assert 'name="a" value="anna"' in form and 'value="ben"' in form
    own = Client()
    own.force_login(anna)
    assert 'id="rating-gin"' in own.get(reverse("accounts:profile")).content.decode()


def test_the_panels_speak_english_with_english_numbers(players, gin_matches):
    client = Client()
    html = client.get(reverse("accounts:public", kwargs={"username": "anna"}),
                      headers={"accept-language": "en"}).content.decode()
    panel = panel_html(html, "gin")
    assert "Rated matches" in panel and "Undercuts" in panel
    assert stat(panel, "knock-deadwood") == "2.3"


def label(html: str, name: str) -> str:
    found = re.search(rf'<dt>([^<]*)</dt>\s*<dd data-stat="{name}">', html)
    assert found, f"no label for {name}"
    return found.group(1).strip()


@pytest.mark.parametrize(
    ("language", "given", "suffered", "deadwood"),
    [("de", "Unterschnitt geschafft", "Unterschnitt erlitten", "Restpunkte beim Klopfen (Schnitt)"),
     ("en", "Undercuts made", "Undercuts suffered", "Deadwood when knocking (average)")],
)
def test_the_gin_panel_says_the_glossarys_terms(players, gin_matches, language, given, suffered, deadwood):
    # The glossary's words (issue 27.11): "Restpunkte" and "Unterschnitt" as at the table, never "Deadwood" in German.
    panel = panel_html(render_panels(players[0], language=language), "gin")
    assert (label(panel, "undercuts-given"), label(panel, "undercuts-suffered"), label(panel, "knock-deadwood")) == (
        given, suffered, deadwood)
