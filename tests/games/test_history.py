"""The match history on the profile pages: finished matches only, as each player fared, with working links,
and nothing private of anybody."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.template import Context, Template
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from games import services
from games.models import Game, Match, Table
from games.reads.history import (
    DRAWN,
    LEFT,
    LOST,
    LOST_BY_FORFEIT,
    WON,
    WON_BY_FORFEIT,
    matches_for_user,
)
from tests.games.helpers import play_out, state_of

pytestmark = pytest.mark.django_db


def gin_table(first, second, **kwargs) -> Table:
    table = services.table_create(user=first, game="gin", preset="schnell", options={}, **kwargs)
    services.table_join(table_id=table.pk, user=second, invite_token=table.invite_token)
    return Table.objects.get(pk=table.pk)


def played_gin(first, second, **kwargs) -> Match:
    """A gin match of one hand (preset schnell), played out through the services."""
    table = gin_table(first, second, **kwargs)
    finished = play_out(table.pk, [first, second])
    return Match.objects.get(pk=finished.current_match_id)


def client_of(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def own_page(user) -> str:
    response = client_of(user).get(reverse("accounts:profile"))
    assert response.status_code == 200
    return response


def public_page(player, viewer=None):
    response = client_of(viewer).get(reverse("accounts:public", kwargs={"username": player.username}))
    assert response.status_code == 200
    return response


def history_html(response) -> str:
    """The match-history card of a profile page."""
    found = re.search(r'<section class="card" id="match-history">.*?</section>', response.content.decode(), re.S)
    assert found, "the profile page has no match history"
    return found.group(0)


def test_a_finished_gin_match_shows_on_both_profiles_with_result_and_links(players):
    anna, ben = players[:2]
    match = played_gin(anna, ben)
    winner, loser = (anna, ben) if match.winner == anna else (ben, anna)
    seat_of = {p["user_id"]: p["seat"] for p in match.players}

    for user, opponent, outcome in ((winner, loser, WON), (loser, winner, LOST)):
        for response in (own_page(user), public_page(user, viewer=players[2]), public_page(user)):
            [entry] = response.context["history"]
            assert (entry.match_id, entry.game, entry.number) == (match.pk, Game.GIN, 1)
            assert entry.outcome == outcome and entry.score == match.final_scores[seat_of[user.pk]]
            assert [o.name for o in entry.opponents] == [opponent.username]
            html = history_html(response)
            assert {"won": "gewonnen", "lost": "verloren"}[outcome] in html
            assert f'href="/spielen/tisch/{match.table_id}/"' in html
            assert f'href="/partie/{match.pk}/partie.json"' in html
            assert f'href="/profil/spieler/{opponent.username}/"' in html
    # The record link gives that match's record, and the winner's score is the match's.
    record = client_of(players[2]).get(f"/partie/{match.pk}/partie.json")
    assert record.status_code == 200 and record.json()["game"] == "gin"
    assert max(match.final_scores) == match.final_scores[seat_of[winner.pk]]


def test_an_unfinished_match_is_not_in_the_history(players):
    anna, ben, cleo, dora = players
    running = gin_table(anna, ben)
    open_table = services.table_create(user=anna, game="romme", preset="standard", options={"seats": 3})
    services.table_join(table_id=open_table.pk, user=cleo)
    aborted = gin_table(anna, dora)
    services.match_abort(table_id=aborted.pk, user=anna)  # before the first move, the creator may call it off

    for user in (anna, ben, cleo, dora):
        assert matches_for_user(user=user, viewer=user) == []
        assert "Sobald du eine Partie zu Ende gespielt hast" in history_html(own_page(user))
    assert "Noch keine beendeten Partien." in history_html(public_page(anna, viewer=ben))
    assert Match.objects.filter(table=running, status=Match.Status.PLAYING).exists()


def test_resigning_shows_as_left_and_the_opponent_as_winner(players):
    anna, ben = players[:2]
    table = gin_table(anna, ben)
    services.match_resign(table_id=table.pk, user=anna)

    [annas] = matches_for_user(user=anna, viewer=anna)
    [bens] = matches_for_user(user=ben, viewer=ben)

    assert annas.outcome == LEFT and bens.outcome == WON
    assert "aufgegeben" in history_html(own_page(anna))


def test_a_romme_list_with_computer_players_shows_place_minus_points_and_the_bots(players):
    anna = players[0]
    table = services.table_create(user=anna, game="romme", preset="standard", options={"seats": 3, "rounds": 1},
                                  bots="expert")
    finished = play_out(table.pk, [anna, None, None])
    match = Match.objects.get(pk=finished.current_match_id)

    response = own_page(anna)

    [entry] = response.context["history"]
    assert entry.game == Game.ROMME and entry.score_kind == "minus" and entry.seats == 3
    assert entry.place == match.result["places"][0] and entry.score == match.final_scores[0]
    assert entry.outcome == (WON if match.winner_seat == 0 else LOST if entry.place > 1 else DRAWN)
    assert [o.bot_level for o in entry.opponents] == ["expert", "expert"]
    html = history_html(response)
    assert f"Platz {entry.place} von 3" in html and "Minuspunkte" in html
    assert html.count("Computer (Experte)") == 2


def test_newest_first_and_at_most_the_limit(players):
    anna, ben = players[:2]
    first = played_gin(anna, ben)
    second = played_gin(ben, anna)
    third = played_gin(anna, ben)
    # Finishing order is what counts, not which table was opened first.
    Match.objects.filter(pk=first.pk).update(finished_at=timezone.now() + timedelta(minutes=5))

    assert [e.match_id for e in matches_for_user(user=anna, viewer=anna)] == [first.pk, third.pk, second.pk]
    assert [e.match_id for e in matches_for_user(user=ben, viewer=anna, limit=2)] == [first.pk, third.pk]


def test_a_shared_first_place_is_a_draw(players):
    # A drawn Hollywood match is rare to deal; the history only reads the match row, so one is written here.
    anna, ben = players[:2]
    table = gin_table(anna, ben)
    Match.objects.filter(pk=table.current_match_id).update(
        status=Match.Status.FINISHED, finished_at=timezone.now(), winner_seat=None, winner=None,
        final_scores=[120, 120], result={"winner": None, "final": [120, 120], "places": [1, 1]},
    )

    assert [e.outcome for e in matches_for_user(user=anna, viewer=None)] == [DRAWN]
    assert "unentschieden" in history_html(public_page(ben))


def test_private_tables_show_only_on_the_players_own_page(players):
    anna, ben, cleo = players[:3]
    match = played_gin(anna, ben, private=True)
    token = match.table.invite_token

    # Her own page lists it, with links that work even after she gives up her seat.
    services.table_leave(table_id=match.table_id, user=anna)
    [entry] = own_page(anna).context["history"]
    assert entry.table_url == f"/spielen/tisch/{match.table_id}/?einladung={token}"
    assert client_of(anna).get(entry.record_url).status_code == 200
    # Nobody else learns that the match was played, nor the invitation.
    for viewer in (ben, cleo, None):
        response = public_page(anna, viewer=viewer)
        assert response.context["history"] == []
        assert token not in response.content.decode()


def test_another_players_private_details_never_show(players, django_user_model):
    anna, ben, cleo = players[:3]
    ben.first_name, ben.last_name = "Benedikt", "Geheimnisträger"
    ben.save()
    ben.profile.display_name = '<b onclick="x()">Benny</b>'
    ben.profile.save()
    played_gin(anna, ben)
    played_gin(anna, cleo)
    old_name = cleo.username
    client_of(cleo).post(reverse("accounts:delete"), {"password": "pw-cleocleo", "confirm": "on"})

    for response in (own_page(anna), public_page(anna, viewer=ben), public_page(anna)):
        html = history_html(response)
        page = response.content.decode()
        # Ben shows under his public (display) name, escaped, never his real name or e-mail address.
        assert "&lt;b onclick=&quot;x()&quot;&gt;Benny&lt;/b&gt;" in html and "<b onclick" not in page
        assert "Benedikt" not in page and "Geheimnisträger" not in page and ben.email not in page
        # A deleted opponent is nameless and has no page to link to.
        assert "Gelöschter Spieler" in html
        assert old_name not in html and "geloescht_" not in html
    # Anna's own e-mail address is on her own page only.
    assert anna.email not in public_page(anna, viewer=ben).content.decode()


def test_a_seat_that_left_without_a_move_of_its_own_lost_by_forfeit(players):
    # Its turn ran out (the server moved for it), then it left without ever playing: a forfeit (issue 27.7),
    # "kampflos" on both profiles, not "aufgegeben".
    anna, ben = players[:2]
    table = gin_table(anna, ben)
    absent = state_of(table).to_act
    assert services.turn_timeout(table_id=table.pk, now=table.turn_deadline + timedelta(seconds=1))
    no_show, other = (table.seats.get(index=i).user for i in (absent, 1 - absent))
    services.match_resign(table_id=table.pk, user=no_show)

    [lost] = matches_for_user(user=no_show, viewer=no_show)
    [won] = matches_for_user(user=other, viewer=other)

    assert lost.outcome == LOST_BY_FORFEIT and won.outcome == WON_BY_FORFEIT
    assert "kampflos verloren" in history_html(own_page(no_show))
    assert "kampflos gewonnen" in history_html(own_page(other))
    no_show.profile.language = "en"
    no_show.profile.save()
    assert "lost by forfeit" in history_html(own_page(no_show))


def test_the_history_speaks_english_to_english_players(players):
    anna, ben = players[:2]
    table = gin_table(anna, ben)
    services.match_resign(table_id=table.pk, user=ben)
    anna.profile.language = "en"
    anna.profile.save()

    html = history_html(own_page(anna))

    assert "Gin rummy" in html and "won" in html and "Points" in html and "To the table" in html
    assert "gewonnen" not in html


def test_the_history_costs_the_same_queries_for_one_match_or_many(players, django_assert_num_queries):
    anna, ben, cleo = players[:3]
    played_gin(anna, ben)
    with django_assert_num_queries(2):
        matches_for_user(user=anna, viewer=anna)
    played_gin(anna, cleo)
    played_gin(ben, anna)
    with django_assert_num_queries(2):
        assert len(matches_for_user(user=anna, viewer=anna)) == 3


def test_the_match_history_tag_renders_the_card_for_any_page(players):
    # The profile page is accounts', which imports no other app: it only loads the games app's tag.
    anna, ben = players[:2]
    match = played_gin(anna, ben, private=True)
    tag = Template("{% load games_history %}{% match_history player viewer=viewer %}")

    with translation.override("de"):  # no request here, so no middleware chooses the language
        own = tag.render(Context({"player": anna, "viewer": anna}))
        others = tag.render(Context({"player": anna, "viewer": AnonymousUser()}))

    assert f'data-match="{match.pk}"' in own and match.table.invite_token in own
    assert 'id="match-history"' in others and "data-match" not in others
    assert "Noch keine beendeten Partien." in others
