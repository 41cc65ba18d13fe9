"""The post-match analysis on the site: computed for a finished match's people only, kept once per match, handed
by the referee's clock to a worker and stored on a later tick, shown on the match page in German and English
with the three costliest moments linked to the replay positions of their moves ("being computed" until it is
ready), and never for a table of a same-deal stage before every table of the stage has ended."""

from __future__ import annotations

import re
import time
from datetime import timedelta
from html import unescape

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import analysis, services
from games.analysis import Analyst
from games.models import Match, MatchAnalysis, Move, Table
from games.reads import records as records_export
from games.reads.replay import replay_positions
from games.services import analysis as match_analysis
from tests.factories import UserFactory
from tests.games.helpers import play_out, state_of

pytestmark = [pytest.mark.django_db, pytest.mark.deal_seed("match-analysis-tests")]

SECONDS = 0.02  # a decision's budget in these tests: one or two deals


@pytest.fixture
def play(django_capture_on_commit_callbacks):
    def run(table_id: int, users: list) -> Match:
        with django_capture_on_commit_callbacks(execute=True):
            table = play_out(table_id, users)
        return Match.objects.get(pk=table.current_match_id)

    return run


@pytest.fixture
def gin_match(players, play) -> Match:
    anna = players[0]
    table = services.table_create(user=anna, game="gin", preset="schnell", bots="simple")
    return play(table.pk, [anna, None])


@pytest.fixture
def romme_match(players, play) -> Match:
    anna = players[0]
    table = services.table_create(user=anna, game="romme", preset="standard", options={"seats": 2, "rounds": 1},
                                  bots="simple")
    return play(table.pk, [anna, None])


def page(match: Match, language: str = "de", user=None) -> str:
    client = Client()
    if user is not None:
        client.force_login(user)
    response = client.get(reverse("matches:detail", kwargs={"match_id": match.pk}), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def analysis_state(html: str) -> str | None:
    found = re.search(r'id="analysis"[^>]*data-state="(\w+)"', html)
    return found.group(1) if found else None


@pytest.mark.parametrize("language,words", [("de", "Analyse wird berechnet"), ("en", "Analysis being computed")])
def test_a_finished_match_without_its_analysis_says_it_is_being_computed(gin_match, language, words):
    html = page(gin_match, language)
    assert analysis_state(html) == "pending"
    assert words in html


@pytest.mark.parametrize("fixture", ["gin_match", "romme_match"])
def test_the_analysis_covers_the_person_s_decisions_only_and_is_kept_once(request, fixture, caplog):
    match = request.getfixturevalue(fixture)
    assert match_analysis.pending(limit=5) == [match]
    # The move log matches the record move for move (no timeouts here), so timeouts could be told apart.
    assert match_analysis.job_of(match)["skip"] == []
    assert "does not match its record" not in caplog.text
    row = match_analysis.analyse_match(match, seconds=SECONDS)
    assert not row.error
    data = row.data
    assert data["decisions"] and {d["seat"] for d in data["decisions"]} == {0}
    assert set(data["seats"]) == {"0"}
    summary = data["seats"]["0"]
    assert summary["decisions"] == len(data["decisions"])
    assert summary["accurate"] == sum(1 for d in data["decisions"] if d["cost"] <= analysis.ACCURATE_COST)
    assert len(data["top"]) <= analysis.HIGHLIGHTS
    costs = [data["decisions"][i]["cost"] for i in data["top"]]
    assert costs == sorted(costs, reverse=True) and all(c > 0 for c in costs)
    assert match_analysis.pending(limit=5) == []
    assert MatchAnalysis.objects.filter(match=match).count() == 1


@pytest.mark.parametrize("fixture", ["gin_match", "romme_match"])
@pytest.mark.parametrize("language", ["de", "en"])
def test_the_page_shows_accuracy_and_the_costliest_moments_at_their_replay_positions(request, fixture, language):
    match = request.getfixturevalue(fixture)
    data = match_analysis.analyse_match(match, seconds=SECONDS).data
    # A decision that cost something for sure, so that the page has a moment to link.
    data["decisions"][0]["cost"] = 9.5
    data = analysis.summarise(data["decisions"], [0])
    MatchAnalysis.objects.filter(match=match).update(data=data)
    html = page(match, language)
    assert analysis_state(html) == "ready"
    assert ("Genauigkeit" if language == "de" else "Accuracy") in html
    assert ("Die teuersten Momente" if language == "de" else "The costliest moments") in html
    assert f'{data["seats"]["0"]["accuracy"]} %' in html
    units = {("gin_match", "de"): "Einheit der Kosten: Punkte der Runde.",
             ("romme_match", "de"): "Einheit der Kosten: Minuspunkte der Runde.",
             ("gin_match", "en"): "Costs counted in the round's points.",
             ("romme_match", "en"): "Costs counted in the round's minus points."}
    assert units[fixture, language] in unescape(html)
    replay = replay_positions(records_export.record_export(match=match))
    firsts = {r["number"]: r["first"] for r in replay["rounds"]}
    links = [int(n) for n in re.findall(r'class="button button-secondary an-jump" data-replay-position="(\d+)"', html)]
    assert len(links) == len(data["top"]) >= 1
    for position, index in zip(links, data["top"], strict=True):
        decision = data["decisions"][index]
        assert position == firsts[decision["round"]] + decision["move"] + 1
        shown = replay["positions"][position]["move"]
        assert shown["seat"] == decision["seat"] and shown["action"] == decision["action"]["action"]


def test_the_clock_hands_a_match_to_the_worker_and_stores_it_on_a_later_tick(gin_match, settings):
    settings.GAMES_ANALYSIS_SECONDS = SECONDS
    analyst = Analyst()
    try:
        assert match_analysis.clock_step(analyst) == gin_match.pk
        assert analyst.busy() and not MatchAnalysis.objects.filter(data__isnull=False).exists()  # claimed only
        assert match_analysis.clock_step(analyst) is None  # one match at a time
        deadline = time.monotonic() + 60
        while analyst.busy() and time.monotonic() < deadline:
            time.sleep(0.05)
            match_analysis.clock_step(analyst)
        row = MatchAnalysis.objects.get(match=gin_match)
        assert not row.error and row.data["decisions"]
        assert match_analysis.clock_step(analyst) is None  # nothing waits any more
    finally:
        analyst.shutdown()


def test_the_clock_analyses_nothing_when_it_is_turned_off(gin_match, settings):
    settings.GAMES_ANALYSIS_SECONDS = 0
    analyst = Analyst()
    assert match_analysis.clock_step(analyst) is None and not analyst.busy()


def test_a_failed_analysis_is_kept_with_its_reason_and_not_tried_again(gin_match):
    match_analysis.store(gin_match.pk, ValueError("the record does not replay"))
    assert match_analysis.pending() == []
    html = page(gin_match)
    assert analysis_state(html) == "failed"
    assert "ließ sich keine Analyse berechnen" in html


def test_a_match_of_computers_only_has_no_analysis(players, play):
    table = services.table_create(user=players[0], game="gin", preset="schnell", bots="simple")
    match = play(table.pk, [players[0], None])
    Match.objects.filter(pk=match.pk).update(players=[{**p, "bot": "simple", "user_id": None} for p in match.players])
    match.users.clear()
    assert match_analysis.pending() == []
    assert analysis_state(page(Match.objects.get(pk=match.pk))) is None


def test_manage_py_analyse_analyses_the_matches_named(gin_match, capsys):
    call_command("analyse", str(gin_match.pk), "--seconds", str(SECONDS))
    out = capsys.readouterr().out
    assert f"match {gin_match.pk}:" in out and "decisions" in out
    assert MatchAnalysis.objects.get(match=gin_match).data["decisions"]


def test_a_same_deal_stage_shows_no_analysis_before_every_table_has_ended(players, play):
    anna, ben, cleo, dora = players
    tess = UserFactory(username="tess", is_staff=True)
    kwargs = {"game": "romme", "options": {"rounds": 1}, "tournament": True, "deal_seed": "same-cards-for-the-stage",
              "deal_group": "stage-1"}
    a = services.table_create_seated(users=[anna, ben], **kwargs)
    b = services.table_create_seated(users=[cleo, dora], **kwargs)
    match = play(a.pk, [anna, ben])
    match_analysis.analyse_match(match, seconds=SECONDS)
    assert Table.objects.get(pk=b.pk).status == Table.Status.PLAYING
    for viewer in (tess, anna):  # staff, and a player of the table: the stage still runs
        html = page(match, user=viewer)
        assert analysis_state(html) == "secret"
        assert "an-decisions" not in html and "data-replay-position" not in html
    play(b.pk, [cleo, dora])
    assert analysis_state(page(match)) == "ready"


def test_the_clock_looks_for_waiting_matches_again_only_once_one_has_ended(players, play, settings, monkeypatch):
    settings.GAMES_ANALYSIS_SECONDS = SECONDS
    looks = []
    real = match_analysis.pending
    monkeypatch.setattr(match_analysis, "pending", lambda **kw: looks.append(kw) or real(**kw))
    analyst = Analyst()
    try:
        assert match_analysis.clock_step(analyst) is None and len(looks) == 1  # nothing finished yet
        assert match_analysis.clock_step(analyst) is None and len(looks) == 1  # not every tick
        table = services.table_create(user=players[0], game="gin", preset="schnell", bots="simple")
        match = play(table.pk, [players[0], None])
        assert match_analysis.clock_step(analyst) == match.pk and len(looks) == 2
    finally:
        analyst.shutdown()


def test_an_old_match_without_its_analysis_is_not_said_to_be_computed(gin_match):
    Match.objects.filter(pk=gin_match.pk).update(
        finished_at=gin_match.finished_at - timedelta(days=analysis.RECENT_DAYS + 1))
    assert match_analysis.pending() == []
    html = page(Match.objects.get(pk=gin_match.pk), "en")
    assert analysis_state(html) == "none" and "computed for recent matches only" in html


def test_a_game_s_entry_analyses_one_decision_within_its_budget(gin_match):
    from games import registry

    job = match_analysis.job_of(gin_match)
    entry = registry.get("gin")
    _, _, _, view, action = next(entry.analysis_module().decisions(job["record"], {0}))
    started = time.monotonic()
    found = entry.analyse_decision(view, action, 0.05)
    assert time.monotonic() - started < 5
    assert found["best"] in view["legal_actions"] and found["cost"] >= 0
    assert entry.describe_action(action)


def test_the_referee_s_tick_hands_the_match_to_a_worker_process_and_does_not_analyse_itself(gin_match, settings):
    from games.web import timekeeper

    settings.GAMES_ANALYSIS_SECONDS = SECONDS
    timekeeper._analyst = None
    try:
        started = time.monotonic()
        timekeeper.clock_tick()
        assert timekeeper.analyst().busy(), "the tick handed the match over"
        assert not MatchAnalysis.objects.filter(data__isnull=False).exists(), "and did not compute it in the tick"
        assert time.monotonic() - started < 10
        deadline = time.monotonic() + 120
        while not MatchAnalysis.objects.filter(data__isnull=False).exists() and time.monotonic() < deadline:
            time.sleep(0.2)
            timekeeper.clock_tick()
        row = MatchAnalysis.objects.get(match=gin_match)
        assert not row.error and row.data["decisions"]
    finally:
        timekeeper.analyst().shutdown()
        timekeeper._analyst = None


def test_a_move_the_server_played_when_the_person_s_time_ran_out_is_no_decision(players, play):
    anna = players[0]
    table = services.table_create(user=anna, game="gin", preset="schnell", bots="simple")
    # Play until it is anna's turn with a choice, then let her time run out once.
    for _ in range(50):
        table = Table.objects.get(pk=table.pk)
        state = state_of(table)
        if state.to_act == 0:
            break
        assert services.referee_pass() >= 1
    assert state.to_act == 0
    Table.objects.filter(pk=table.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert services.turn_timeout(table_id=table.pk)
    timed = list(Move.objects.filter(match_id=table.current_match_id, by=Move.By.TIMEOUT))
    assert timed
    match = play(table.pk, [anna, None])
    job = match_analysis.job_of(match)
    moves = job["record"]["rounds"][0]["moves"]
    assert job["skip"] and all(moves[index]["seat"] == 0 for _, index in job["skip"])
    assert len(job["skip"]) == len(timed)
    data = match_analysis.analyse_match(match, seconds=SECONDS).data
    analysed = {(d["round"], d["move"]) for d in data["decisions"]}
    assert not analysed & {tuple(s) for s in job["skip"]}
    assert analysed, "her other moves are decisions"


def test_two_referees_never_analyse_the_same_match(gin_match, settings):
    """Several referees may run at once: the first claims the match, the other leaves it alone; the page says
    it is being computed meanwhile (not that it failed)."""
    settings.GAMES_ANALYSIS_SECONDS = SECONDS
    first, second = Analyst(), Analyst()
    try:
        assert match_analysis.clock_step(first) == gin_match.pk
        assert match_analysis.clock_step(second) is None and not second.busy()
        assert match_analysis.pending() == []
        assert analysis_state(page(gin_match)) == "pending"
        # manage.py analyse, without ids, leaves it to the referee too.
        call_command("analyse", "--seconds", str(SECONDS))
        assert MatchAnalysis.objects.get(match=gin_match).data is None
    finally:
        first.shutdown()


def test_a_claim_whose_referee_stopped_is_taken_over_after_a_while(gin_match, settings):
    settings.GAMES_ANALYSIS_SECONDS = SECONDS
    stopped, other = Analyst(), Analyst()
    try:
        assert match_analysis.clock_step(stopped) == gin_match.pk
    finally:
        stopped.shutdown()  # its referee stopped: the claim stays behind
    assert match_analysis.clock_step(other) is None
    MatchAnalysis.objects.filter(match=gin_match).update(
        computed_at=timezone.now() - timedelta(seconds=match_analysis.CLAIM_SECONDS + 1))
    other.idle_since = None  # look again now, not after IDLE_SECONDS
    try:
        assert match_analysis.clock_step(other) == gin_match.pk
        deadline = time.monotonic() + 60
        while other.busy() and time.monotonic() < deadline:
            time.sleep(0.05)
            match_analysis.clock_step(other)
        row = MatchAnalysis.objects.get(match=gin_match)
        assert not row.error and row.data["decisions"]
    finally:
        other.shutdown()


def test_a_referee_run_once_hands_no_match_to_a_worker_that_would_die_with_it(gin_match, settings):
    from games.web import timekeeper

    settings.GAMES_ANALYSIS_SECONDS = SECONDS
    timekeeper._analyst = None
    try:
        call_command("referee", "--once")
        assert not timekeeper.analyst().busy()
        assert not MatchAnalysis.objects.exists()  # not even claimed: the looping referee takes it at once
        assert match_analysis.pending() == [gin_match]
    finally:
        timekeeper.analyst().shutdown()
        timekeeper._analyst = None


GERMAN = re.compile(r"abwerfen|ziehen|nehmen|passen|klopfen|ablegen|auslegen|anlegen|tauschen|Meldung|Karte|"
                    r"Runde\b|\bZug\b|Experte|Punkte|Spieler|Entscheidung|Kosten|Genauigkeit|berechnet|"
                    r"[♣♦♥♠][BD]\b")


@pytest.mark.parametrize("fixture", ["gin_match", "romme_match"])
def test_the_english_analysis_card_has_no_german_words(request, fixture):
    match = request.getfixturevalue(fixture)
    data = match_analysis.analyse_match(match, seconds=SECONDS).data
    data["decisions"][0]["cost"] = 9.5
    MatchAnalysis.objects.filter(match=match).update(data=analysis.summarise(data["decisions"], [0]))
    html = page(match, "en")
    card = unescape(html[html.index('id="analysis"'):html.index("</section>", html.index('id="analysis"'))])
    card = re.sub(r"<[^>]+>", " ", card)
    assert "Analysis" in card and "Accuracy" in card
    assert not GERMAN.findall(card), GERMAN.findall(card)


def test_every_kind_of_move_is_worded_in_english():
    from django.utils import translation

    from games import registry

    gin, romme = registry.get("gin"), registry.get("romme")
    moves = [(gin, {"action": "pass"}), (gin, {"action": "draw", "from": "stock"}),
             (gin, {"action": "draw", "from": "discard"}), (gin, {"action": "discard", "card": "QH"}),
             (gin, {"action": "knock", "card": "JS"}), (gin, {"action": "big_gin"}),
             (romme, {"action": "draw", "from": "discard"}), (romme, {"action": "discard", "card": "TD"}),
             (romme, {"action": "lay", "melds": [["QH", "QS", "JK"]], "lay_offs": [{"card": "KH", "meld": 1}]}),
             (romme, {"action": "lay_off", "card": "JC", "meld": 2}),
             (romme, {"action": "swap", "card": "QD", "meld": 1, "then": {"action": "discard", "card": "JK"}})]
    with translation.override("en"):
        english = [entry.describe_action(move) for entry, move in moves]
    with translation.override("de"):
        german = [entry.describe_action(move) for entry, move in moves]
    for text in english:
        assert not GERMAN.findall(text), text
    assert english[3] == "discard ♥Q" and german[3] == "♥D abwerfen"
    assert english[5] == "Big gin"
    assert "lay down: ♥Q ♠Q Joker" in english[8] and "lay ♥K off on meld 1" in english[8]
    assert english[10] == "swap ♦Q for the joker in meld 1, discard Joker"


def test_after_a_look_that_found_nothing_the_clock_reads_only_the_matches_that_ended_since(players, play, settings,
                                                                                          monkeypatch):
    """A whole look walks every match of the last RECENT_DAYS: it comes once every CLAIM_SECONDS; between, the
    clock reads only the matches that ended since its last look."""
    settings.GAMES_ANALYSIS_SECONDS = SECONDS
    looks = []
    real = match_analysis.pending
    monkeypatch.setattr(match_analysis, "pending", lambda **kw: looks.append(kw.get("ended_since")) or real(**kw))
    analyst = Analyst()
    try:
        assert match_analysis.clock_step(analyst) is None and looks == [None]  # a whole look, nothing waits
        table = services.table_create(user=players[0], game="gin", preset="schnell", bots="simple")
        new = play(table.pk, [players[0], None])
        assert match_analysis.clock_step(analyst) == new.pk and looks[-1] is not None  # a narrow look finds it
        analyst.shutdown()
        # A match that ended well before the last look (say, committed late): narrow looks pass it by...
        Match.objects.filter(pk=new.pk).update(finished_at=timezone.now() - timedelta(hours=1))
        MatchAnalysis.objects.filter(match=new).delete()
        analyst.look_again_at = 0  # look now
        assert match_analysis.clock_step(analyst) is None and looks[-1] is not None
        # ...the next whole look, CLAIM_SECONDS after the last one, finds it.
        analyst.look_again_at = analyst.narrow_until = 0
        assert match_analysis.clock_step(analyst) == new.pk and looks[-1] is None
    finally:
        analyst.shutdown()


def test_a_player_who_left_a_list_still_running_gets_no_analysis_and_only_her_own_moves_are_analysed(players, play):
    from games import registry
    from tests.games.helpers import choose_action

    anna, ben, cleo = players[:3]
    table = services.table_create_seated(game="romme", users=[anna, ben, cleo], options={"seats": 3, "rounds": 1})
    users = [anna, ben, cleo]
    for _ in range(12):  # a few moves, then anna leaves
        table = Table.objects.get(pk=table.pk)
        state = state_of(table)
        view = registry.get("romme").engine.view(state, state.to_act)
        services.move_apply(table_id=table.pk, user=users[state.to_act], version=table.version,
                            action=choose_action(view))
    services.match_resign(table_id=table.pk, user=anna)
    match = Match.objects.get(pk=Table.objects.get(pk=table.pk).current_match_id)
    assert match.status == Match.Status.PLAYING  # the list goes on without her
    client = Client()
    client.force_login(anna)
    response = client.get(reverse("matches:detail", kwargs={"match_id": match.pk}))
    assert response.status_code == 404 and b"an-decisions" not in response.content
    assert match_analysis.pending(limit=5) == []
    match = play(table.pk, [None, ben, cleo])
    moves = match_analysis.job_of(match)["record"]["rounds"][0]["moves"]
    left_at = next(i for i, m in enumerate(moves) if m.get("action") == "resign" and m.get("seat") == 0)
    data = match_analysis.analyse_match(match, seconds=SECONDS).data
    hers = [d for d in data["decisions"] if d["seat"] == 0]
    assert hers and all(d["move"] < left_at for d in hers)
    assert any(d["seat"] != 0 and d["move"] > left_at for d in data["decisions"])
    assert analysis_state(page(match, user=anna)) == "ready"


def test_the_analysis_card_heads_its_columns_per_person_in_english(gin_match):
    match_analysis.analyse_match(gin_match, seconds=SECONDS)
    html = page(gin_match, "en")
    card = html[html.index('id="analysis"'):]
    assert '<th scope="col">Player</th>' in card and '<th scope="col">Players</th>' not in card


def test_a_costly_moment_in_a_later_round_links_to_its_own_position_in_the_replay(players, play):
    anna = players[0]
    table = services.table_create(user=anna, game="romme", preset="standard", options={"seats": 2, "rounds": 3},
                                  bots="simple")
    match = play(table.pk, [anna, None])
    data = match_analysis.analyse_match(match, seconds=SECONDS).data
    rounds = {d["round"] for d in data["decisions"]}
    assert len(rounds) >= 2
    last = [d for d in data["decisions"] if d["round"] == max(rounds)][-1]
    for d in data["decisions"]:
        d["cost"] = 20.0 if d is last else 0.0
    data = analysis.summarise(data["decisions"], [0])
    MatchAnalysis.objects.filter(match=match).update(data=data)
    html = page(match)
    links = re.findall(r'class="button button-secondary an-jump" data-replay-position="(\d+)"', html)
    assert len(links) == 1
    replay = replay_positions(records_export.record_export(match=match))
    shown = replay["positions"][int(links[0])]
    assert shown["round"] == last["round"] == max(rounds) and shown["move"]["seat"] == 0
    assert {k: shown["move"].get(k) for k in last["action"]} == last["action"]
