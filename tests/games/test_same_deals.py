"""Same deals kept secret (tournaments.md, Rommé series ``same_deals``): two tables dealt the same cards play
out of step; nothing of a shared deal reaches anyone but the players of the table that played it before every
table sharing it has finished that round, and only staff and a table's own players watch until all of them
have ended. Then everything is public as usual.

Table A (anna, ben) runs ahead of table B (cleo, dora); sven has no seat, tess is staff.
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from games import registry, services
from games.engine.cards import romme_deck
from games.models import Match, Round, Table
from games.reads import selectors
from tests.factories import UserFactory
from tests.games.helpers import Socket, choose_action, state_of
from tests.games.test_events_hidden_cards import cards_in, check_frame

#: The tables' shared secret (a tournament draws one per stage and table size).
DEAL_SEED = "0123456789abcdef-same-deals"
GROUP = "tournament-stage-test"

#: A card code standing alone in any text (JSON, HTML, an attribute).
CARD_IN_TEXT = re.compile(r"(?<![A-Za-z0-9])([A2-9TJQK][CDHS]|JK)(?![A-Za-z0-9])")


# --- driving the two tables -----------------------------------------------------------------------------


def _step(table_id: int, users: list) -> None:
    """One thing happens at the table through the services: a move, a player ready, or the break ends."""
    table = Table.objects.get(pk=table_id)
    assert table.status == Table.Status.PLAYING
    state = state_of(table)
    if state.to_act is None:
        waiting = [s for s in table.seats.select_related("user") if s.user_id and not s.left and not s.ready]
        if waiting:
            services.round_ready(table_id=table_id, user=waiting[0].user)
        else:
            assert services.turn_timeout(table_id=table_id, now=table.turn_deadline + timedelta(seconds=1))
        return
    view = registry.get(table.game).engine.view(state, state.to_act)
    services.move_apply(table_id=table_id, user=users[state.to_act], version=table.version,
                        action=choose_action(view))


def play_until(table_id: int, users: list, done, *, max_steps: int = 4000) -> Table:
    for _ in range(max_steps):
        table = Table.objects.get(pk=table_id)
        if done(table):
            return table
        _step(table_id, users)
    raise AssertionError("the table never got there")


def round_ended(number: int):
    """At the round-end view of round ``number`` (or the match over)."""
    def done(table: Table) -> bool:
        if table.status != Table.Status.PLAYING:
            return True
        state = state_of(table)
        return state.round_number == number and state.to_act is None
    return done


def moves_made(count: int):
    def done(table: Table) -> bool:
        return table.moves.count() >= count
    return done


def match_over(table: Table) -> bool:
    return table.status != Table.Status.PLAYING


@pytest.fixture
def people(players, spectator):
    anna, ben, cleo, dora = players
    tess = UserFactory(username="tess", is_staff=True)
    return {"anna": anna, "ben": ben, "cleo": cleo, "dora": dora, "sven": spectator, "tess": tess}


def _seated(users, *, rounds: int = 2, group: str | None = GROUP) -> Table:
    return services.table_create_seated(game="romme", users=users, options={"rounds": rounds}, tournament=True,
                                        deal_seed=DEAL_SEED, deal_group=group)


@pytest.fixture
def tables(people):
    """A and B, dealt the same cards; A at the end of round 1, B a few moves into it."""
    a = _seated([people["anna"], people["ben"]])
    b = _seated([people["cleo"], people["dora"]])
    a = play_until(a.pk, [people["anna"], people["ben"]], round_ended(1))
    b = play_until(b.pk, [people["cleo"], people["dora"]], moves_made(6))
    assert state_of(a).round_number == 1 and state_of(a).to_act is None
    assert state_of(b).round_number == 1 and state_of(b).to_act is not None
    return a, b


def _round(table: Table, number: int) -> Round:
    return Round.objects.get(match=table.current_match, number=number)


# --- what a client may not know of a table ----------------------------------------------------------------


def hidden_at(table: Table) -> Counter:
    """The cards of ``table``'s round in play nobody without a seat there may know: every hand (less what was
    taken from the open pile) and the stock not yet drawn."""
    table = Table.objects.get(pk=table.pk)
    engine = registry.get(table.game).engine
    state = state_of(table)
    hidden: Counter = Counter()
    for seat in range(table.seat_count):
        hidden.update(engine.view(state, seat)["hand"])
    view = engine.view(state, None)
    history = view["history"]
    if not any(move["action"] == "reshuffle" for move in history):
        deal = state.current_deal()
        hidden.update(deal["stock"][len(deal["stock"]) - view["stock_size"]:])
    for move in history:
        if move["action"] == "draw" and move.get("from") == "discard":
            hidden[move["card"]] -= 1
    return hidden


def leaked(shown: set[str], table: Table) -> set[str]:
    """The cards in ``shown`` that only ``table``'s hidden cards can be: every copy is in a hand or the stock."""
    hidden, copies = hidden_at(table), Counter(romme_deck())
    return {card for card in shown if hidden[card] >= copies[card]}


#: Random tokens a page carries (CSP nonces, CSRF values) that may spell a card code by chance.
TOKENS = re.compile(r'(nonce|value|content)="[^"]*"')


def cards_in_text(text: str) -> set[str]:
    return set(CARD_IN_TEXT.findall(html.unescape(TOKENS.sub("", text))))


def _client(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def doors(table: Table) -> list[str]:
    """Every address that shows something of ``table`` or its match, and the pages that list it."""
    urls = [
        reverse("games:table", kwargs={"table_id": table.pk}),
        reverse("games:record", kwargs={"table_id": table.pk}),
        reverse("games:record", kwargs={"table_id": table.pk}) + "?partie=1",
        reverse("games:lobby"),
        reverse("games:lobby_tables"),
        reverse("matches:table_last", kwargs={"table_id": table.pk}),
    ]
    match = table.matches.order_by("-number").first()
    if match is not None:
        urls += [reverse("matches:detail", kwargs={"match_id": match.pk}),
                 reverse("matches:record", kwargs={"match_id": match.pk})]
    for player in table.current_match.players:
        username = table.seats.get(index=player["seat"]).user.get_username()
        urls.append(reverse("accounts:public", kwargs={"username": username}))
    return urls


def fetch_all(table: Table, user) -> dict[str, tuple[int, str]]:
    client = _client(user)
    answers = {}
    for url in doors(table):
        response = client.get(url)
        answers[url] = (response.status_code, response.content.decode())
    return answers


async def socket_frames(table_id: int, user) -> tuple[list[dict], int | None]:
    """Everything a socket of ``user`` is sent on connecting to the table, and its close code if refused."""
    socket = await Socket.open(table_id, user)
    if socket.close_code is not None:
        return [], socket.close_code
    frames = [await socket.receive()]
    if frames[0]["type"] == "error":
        closed = await socket.communicator.receive_output(timeout=5)
        assert closed["type"] == "websocket.close"
        return frames, closed["code"]
    await socket.drain()
    frames = socket.frames
    await socket.close()
    return frames, None


# --- the whole check: two tables out of step, every door, every non-seat client ---------------------------

pytestmark = pytest.mark.django_db(transaction=True)


async def test_no_non_seat_client_gets_a_card_of_the_other_tables_live_round(people, tables):
    a, b = tables
    a_round_1 = await sync_to_async(_round)(a, 1)
    b_round_1 = await sync_to_async(_round)(b, 1)
    assert a_round_1.deal == b_round_1.deal and a_round_1.deal_hash == b_round_1.deal_hash
    # The check can fail: A's revealed deal is B's live round.
    assert await sync_to_async(leaked)(cards_in(a_round_1.deal), b)

    async def everything(user) -> tuple[set[str], list[dict], dict]:
        frames, code = await socket_frames(a.pk, user)
        answers = await sync_to_async(fetch_all)(await sync_to_async(Table.objects.get)(pk=a.pk), user)
        shown = cards_in(frames) | set().union(*(cards_in_text(body) for _, body in answers.values()))
        return shown, frames, {"close": code, **answers}

    # A plays its round 2 to the end of the match while B is still in round 1.
    for moment in ("A at the end of round 1", "A's match over"):
        if moment == "A's match over":
            a = await sync_to_async(play_until)(a.pk, [people["anna"], people["ben"]], match_over)
            assert a.status == Table.Status.FINISHED
        for name in ("anonymous", "sven", "cleo"):
            user = people.get(name)
            shown, frames, answers = await everything(user)
            leaks = await sync_to_async(leaked)(shown, b)
            assert not leaks, f"{moment}: {name} was shown {sorted(leaks)} of table B's live round"
            assert answers["close"] == 4403 and frames[0]["code"] == "staff_only", (moment, name)
        # Staff watch A as any spectator would, and no more: no deal of round 1, no hands left at its end.
        frames, code = await socket_frames(a.pk, people["tess"])
        assert code is None
        state = next(f for f in frames if f["type"] == "state")
        table_now = await sync_to_async(Table.objects.get)(pk=a.pk)
        await sync_to_async(check_frame)(state, table_now, audience=None)
        assert state["table"]["last_deal"] is None
        assert not cards_in(state["view"]["last_round"]), moment


async def test_a_shared_deal_reaches_the_players_only_once_every_table_has_finished_that_round(people, tables):
    a, b = tables
    frames, _ = await socket_frames(a.pk, people["anna"])
    state = next(f for f in frames if f["type"] == "state")
    assert state["table"]["you"] == 0 and state["table"]["last_deal"] is None
    await sync_to_async(play_until)(b.pk, [people["cleo"], people["dora"]], round_ended(1))
    frames, _ = await socket_frames(a.pk, people["anna"])
    state = next(f for f in frames if f["type"] == "state")
    first = await sync_to_async(_round)(a, 1)
    assert state["table"]["last_deal"] == {"number": 1, "deal_hash": first.deal_hash, "deal": first.deal}


# --- one door at a time -----------------------------------------------------------------------------------


async def test_a_same_deals_table_refuses_non_staff_sockets_with_the_reason(people, tables):
    a, _b = tables
    for user in (None, people["sven"], people["cleo"]):
        frames, code = await socket_frames(a.pk, user)
        assert code == 4403
        assert frames == [{"type": "error", "code": "staff_only", "version": None,
                           "message": await sync_to_async(selectors._staff_only_message)()}]
    for user in (people["tess"], people["anna"]):
        frames, code = await socket_frames(a.pk, user)
        assert code is None and any(f["type"] == "state" for f in frames)


async def test_the_seated_players_see_the_hands_their_own_round_ended_with(people, tables):
    """What the rules lay open at the table is the players' own: the round-end hands. Not the deal."""
    a, _b = tables
    frames, _ = await socket_frames(a.pk, people["ben"])
    state = next(f for f in frames if f["type"] == "state")
    hands = state["view"]["last_round"]["hands"]
    assert hands == (await sync_to_async(_round)(a, 1)).result["hands"] and any(hands)
    assert state["table"]["last_deal"] is None


def test_a_finished_rounds_hands_are_hidden_from_spectators_until_the_deal_is_disclosed(people, tables):
    a, b = tables
    spectator = selectors.table_state_for(table_id=a.pk, user=people["tess"])
    assert spectator["table"]["you"] is None
    last = spectator["view"]["last_round"]
    assert last["round"] == 1 and last["hands"] == [[], []] and not cards_in(last)
    assert "wertungspunkte" in last  # the round's result stays: only its cards are held back
    play_until(b.pk, [people["cleo"], people["dora"]], round_ended(1))
    spectator = selectors.table_state_for(table_id=a.pk, user=people["tess"])
    assert spectator["view"]["last_round"]["hands"] == _round(a, 1).result["hands"]


def test_the_table_page_refuses_non_staff_with_the_reason(people, tables):
    a, _b = tables
    url = reverse("games:table", kwargs={"table_id": a.pk})
    for user in (None, people["sven"], people["cleo"]):
        response = _client(user).get(url)
        assert response.status_code == 403
        assert "nur die Turnierleitung" in html.unescape(response.content.decode())
    for user in (people["tess"], people["anna"]):
        assert _client(user).get(url).status_code == 200


def test_the_record_download_leaves_out_rounds_other_tables_still_play(people, tables):
    a, b = tables
    url = reverse("games:record", kwargs={"table_id": a.pk})
    assert _client(people["sven"]).get(url).status_code == 403
    assert _client(people["anna"]).get(url).json()["rounds"] == []
    assert _client(people["tess"]).get(url).json()["rounds"] == []
    play_until(b.pk, [people["cleo"], people["dora"]], round_ended(1))
    rounds = _client(people["anna"]).get(url).json()["rounds"]
    assert [{k: v for k, v in r.items() if k != "deal_hash"} for r in rounds] == [_round(a, 1).record]


def test_the_match_page_and_its_record_wait_for_the_other_tables(people, tables):
    a, b = tables
    a = play_until(a.pk, [people["anna"], people["ben"]], match_over)
    match = a.current_match
    page = reverse("matches:detail", kwargs={"match_id": match.pk})
    record = reverse("matches:record", kwargs={"match_id": match.pk})
    for user in (None, people["sven"], people["cleo"]):
        assert _client(user).get(page).status_code == 403
        assert _client(user).get(record).status_code == 403
    # Its players see the page, but neither replay nor deal check of a round B still plays.
    response = _client(people["anna"]).get(page)
    assert response.status_code == 200
    assert [r.number for r in response.context["rounds"]] == []
    assert _client(people["anna"]).get(record).json()["rounds"] == []
    b = play_until(b.pk, [people["cleo"], people["dora"]], round_ended(1))
    response = _client(people["anna"]).get(page)
    assert [r.number for r in response.context["rounds"]] == [1]
    assert [c["number"] for c in response.context["config"]["checks"]] == [1]


def test_profiles_list_a_same_deals_list_only_once_the_stage_has_ended(people, tables):
    a, b = tables
    a = play_until(a.pk, [people["anna"], people["ben"]], match_over)
    profile = reverse("accounts:public", kwargs={"username": "anna"})
    record = reverse("matches:record", kwargs={"match_id": a.current_match.pk})
    assert record not in _client(people["sven"]).get(profile).content.decode()
    assert record in _client(people["anna"]).get(profile).content.decode()  # her own page lists it
    play_until(b.pk, [people["cleo"], people["dora"]], match_over)
    assert record in _client(people["sven"]).get(profile).content.decode()


def test_the_lobby_offers_no_watch_link_for_a_stage_still_running(people, tables):
    a, _b = tables
    link = f'href="{reverse("games:table", kwargs={"table_id": a.pk})}"'
    for url in (reverse("games:lobby"), reverse("games:lobby_tables")):
        assert link not in _client(people["sven"]).get(url).content.decode()
        assert link not in _client(None).get(url).content.decode()
        assert link in _client(people["tess"]).get(url).content.decode()


def test_the_admin_shows_no_deal_of_a_round_other_tables_still_play(people, tables, admin_user):
    a, b = tables
    a = play_until(a.pk, [people["anna"], people["ben"]], match_over)
    client = _client(admin_user)
    pages = [reverse("admin:games_match_change", args=[a.current_match.pk]),
             reverse("admin:games_table_change", args=[a.pk]),
             reverse("admin:games_match_changelist"), reverse("admin:games_table_changelist"),
             reverse("admin:games_move_changelist")]
    # What A's moves laid on the table is what staff saw watching; no hand or stock card beyond it.
    public = set().union(*(cards_in(m.action) for m in a.current_match.moves.all()))
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        leaks = leaked(cards_in_text(response.content.decode()) - public, b)
        assert not leaks, f"{url} shows {sorted(leaks)}"


async def test_everything_is_public_once_every_table_of_the_group_has_ended(people, tables):
    a, b = tables
    a = await sync_to_async(play_until)(a.pk, [people["anna"], people["ben"]], match_over)
    b = await sync_to_async(play_until)(b.pk, [people["cleo"], people["dora"]], match_over)
    frames, code = await socket_frames(a.pk, None)
    assert code is None
    state = next(f for f in frames if f["type"] == "state")
    assert state["table"]["last_deal"]["number"] == 2 and state["table"]["last_deal"]["deal"]
    answers = await sync_to_async(fetch_all)(a, None)
    assert all(status in (200, 302) for status, _ in answers.values()), {u: s for u, (s, _) in answers.items()}
    record = json.loads(answers[reverse("games:record", kwargs={"table_id": a.pk})][1])
    assert len(record["rounds"]) == 2


# --- the rule --------------------------------------------------------------------------------------------


def test_a_round_is_disclosed_when_every_sharing_table_finished_it_or_ended(people):
    a = _seated([people["anna"], people["ben"]], rounds=2)
    b = _seated([people["cleo"], people["dora"]], rounds=2)
    a = play_until(a.pk, [people["anna"], people["ben"]], round_ended(1))
    assert selectors.deal_rounds_disclosed(match=a.current_match) == set()
    # A table that ended without playing the round deals it no more: staff ended B.
    services.table_close(table_id=b.pk, by=people["tess"])
    assert selectors.deal_rounds_disclosed(match=Match.objects.get(pk=a.current_match_id)) == {1}
    assert selectors.deal_disclosed(match=a.current_match, round_number=1)
    assert not selectors.deal_disclosed(match=a.current_match, round_number=2)  # not finished


def test_a_table_that_has_not_yet_dealt_the_match_holds_the_round_back(people):
    a = _seated([people["anna"], people["ben"]], rounds=2)
    b = _seated([people["cleo"], people["dora"]], rounds=2)
    a = play_until(a.pk, [people["anna"], people["ben"]], round_ended(1))
    Match.objects.filter(table=b).delete()  # as if B had not started yet
    assert selectors.deal_rounds_disclosed(match=a.current_match) == set()


def test_tables_dealt_other_cards_do_not_hold_a_round_back(people):
    a = _seated([people["anna"], people["ben"]], rounds=2)
    services.table_create_seated(game="romme", users=[people["cleo"], people["dora"]], options={"rounds": 2},
                                 tournament=True, deal_seed="another-seed-entirely", deal_group=GROUP)
    a = play_until(a.pk, [people["anna"], people["ben"]], round_ended(1))
    assert selectors.deal_rounds_disclosed(match=a.current_match) == {1}
    # ...but the stage is still running: only staff and the players watch.
    assert selectors.watch_refusal(table=a, user=people["sven"])


def test_tables_given_one_seed_form_one_group_by_themselves(people):
    a = _seated([people["anna"], people["ben"]], group=None)
    b = _seated([people["cleo"], people["dora"]], group=None)
    assert a.deal_group and a.deal_group == b.deal_group and DEAL_SEED not in a.deal_group
    assert selectors.watch_refusal(table=a, user=None)


def test_a_table_of_its_own_is_watched_and_disclosed_as_always(people):
    table = services.table_create_seated(game="romme", users=[people["anna"], people["ben"]],
                                         options={"rounds": 2}, tournament=True)
    assert table.deal_group == "" and selectors.watch_refusal(table=table, user=None) is None
    table = play_until(table.pk, [people["anna"], people["ben"]], round_ended(1))
    assert selectors.table_state_for(table_id=table.pk, user=None)["table"]["last_deal"]["number"] == 1


def test_a_deal_group_key_must_be_short_text(people):
    for bad in ("", "x" * 65, 7):
        with pytest.raises(services.ServiceError):
            _seated([people["anna"], people["ben"]], group=bad)
    assert not Table.objects.exists()
