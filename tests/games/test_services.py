"""The service layer of live play: every action, and every refusal leaving the table exactly as it was."""

import hashlib
import json
from datetime import timedelta

import pytest
from django.utils import timezone

from games import registry, services
from games.delivery import events
from games.models import ChatMessage, Match, Move, Round, Seat, Table
from games.services import ServiceError
from tests.games.helpers import choose_action, play_out, state_of

pytestmark = pytest.mark.django_db


def gin_table(players, *, preset="klassisch", options=None, **kwargs) -> Table:
    table = services.table_create(user=players[0], game="gin", preset=preset, options=options or {}, **kwargs)
    services.table_join(table_id=table.pk, user=players[1])
    return Table.objects.get(pk=table.pk)


def fingerprint(table_id: int) -> tuple:
    """Everything a refused request must leave untouched."""
    table = Table.objects.get(pk=table_id)
    seats = tuple(Seat.objects.filter(table=table).order_by("index").values_list(
        "user_id", "bot_level", "consecutive_timeouts", "left", "ready"))
    return (table.version, table.status, json.dumps(table.state, sort_keys=True), table.turn_deadline,
            Move.objects.filter(table=table).count(), Match.objects.filter(table=table).count(),
            Round.objects.filter(match__table=table).count(), ChatMessage.objects.filter(table=table).count(), seats)


def refused(code: str, call, table_id: int, **kwargs) -> ServiceError:
    before = fingerprint(table_id)
    with pytest.raises(ServiceError) as caught:
        call(table_id=table_id, **kwargs)
    assert caught.value.code == code, caught.value
    assert caught.value.message
    assert fingerprint(table_id) == before
    return caught.value


def view_of(table: Table, seat):
    return registry.get(table.game).engine.view(state_of(table), seat)


# --- creating and seating -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        ("klassisch", {"target": 100, "first_turn": "pass", "variant": "standard", "hollywood": False}),
        ("schnell", {"target": 0, "first_turn": "free"}),
        ("oklahoma", {"variant": "oklahoma"}),
        ("straight", {"variant": "straight"}),
        ("hollywood", {"hollywood": True, "target": 100}),
    ],
)
def test_gin_presets_fill_the_spec_options(players, preset, expected):
    table = services.table_create(user=players[0], game="gin", preset=preset, options={})
    assert table.options.items() >= expected.items()
    assert table.options["turn_seconds"] == 45
    assert table.seat_count == 2 and table.status == Table.Status.OPEN and table.preset == preset
    assert Seat.objects.get(table=table, index=0).user == players[0]


def test_options_given_override_the_preset(players):
    table = services.table_create(user=players[0], game="gin", preset="schnell", options={"turn_seconds": 90})
    assert table.options["target"] == 0 and table.options["turn_seconds"] == 90


@pytest.mark.parametrize(
    ("game", "preset", "options"),
    [
        ("gin", "klassisch", {"target": 77}),
        ("gin", "klassisch", {"knock": True}),
        ("gin", "klassisch", {"hollywood": True, "target": 0}),
        ("gin", "klassisch", {"seats": 3}),
        ("gin", "blitz", {}),
        ("poker", "", {}),
        ("gin", "klassisch", ["target", 100]),
    ],
)
def test_bad_options_are_refused_and_create_nothing(players, game, preset, options):
    with pytest.raises(ServiceError) as caught:
        services.table_create(user=players[0], game=game, preset=preset, options=options)
    assert caught.value.code == "bad_options"
    assert Table.objects.count() == 0


def test_anonymous_may_not_create_a_table():
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(ServiceError) as caught:
        services.table_create(user=AnonymousUser(), game="gin", preset="klassisch", options={})
    assert caught.value.code == "not_signed_in"


def test_a_full_table_starts_with_a_published_deal_hash(players):
    table = gin_table(players)
    assert table.status == Table.Status.PLAYING
    match = table.current_match
    assert match.players[1]["name"] == "ben" and set(match.users.all()) == set(players[:2])
    first = Round.objects.get(match=match, number=1)
    deal = state_of(table).current_deal()
    canonical = json.dumps(deal, sort_keys=True, separators=(",", ":"))
    assert first.deal_hash == hashlib.sha256(canonical.encode()).hexdigest()
    assert first.finished_at is None
    human = state_of(table).to_act
    assert table.turn_deadline is not None and table.bot_due_at is None
    assert human in (0, 1)


def test_join_refusals(players):
    table = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
    refused("already_seated", services.table_join, table.pk, user=players[0])
    refused("seat_taken", services.table_join, table.pk, user=players[1], seat=0)
    refused("bad_message", services.table_join, table.pk, user=players[1], seat=5)
    services.table_join(table_id=table.pk, user=players[1])
    refused("not_open", services.table_join, table.pk, user=players[2])


def test_private_table_needs_the_invitation(players):
    table = services.table_create(user=players[0], game="gin", preset="klassisch", options={}, private=True)
    refused("not_invited", services.table_join, table.pk, user=players[1], invite_token="guess")
    token = table.invite_token
    assert len(token) >= 24
    services.table_join(table_id=table.pk, user=players[1], invite_token=token)
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING


def test_leave_before_the_start_frees_the_seat_and_during_play_is_refused(players):
    table = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
    romme_table = services.table_create(user=players[0], game="romme", preset="standard", options={"seats": 3})
    services.table_join(table_id=romme_table.pk, user=players[1])
    services.table_leave(table_id=romme_table.pk, user=players[1])
    assert not Seat.objects.filter(table=romme_table, user=players[1]).exists()
    refused("not_seated", services.table_leave, romme_table.pk, user=players[1])
    started = gin_table(players[2:])
    refused("match_running", services.table_leave, started.pk, user=players[2])
    services.table_leave(table_id=table.pk, user=players[0])
    assert Table.objects.get(pk=table.pk).status == Table.Status.ABORTED


def test_fill_with_bots_starts_and_ranked_tables_refuse_bots(players):
    casual = services.table_create(user=players[0], game="gin", preset="klassisch", options={})
    refused("not_seated", services.table_fill_with_bots, casual.pk, user=players[1])
    with pytest.raises(ServiceError) as caught:
        services.table_fill_with_bots(table_id=casual.pk, user=players[0], level="godlike")
    assert caught.value.code == "bad_message"
    filled = services.table_fill_with_bots(table_id=casual.pk, user=players[0], level="expert")
    assert [seat.index for seat in filled] == [1]
    assert Table.objects.get(pk=casual.pk).status == Table.Status.PLAYING
    ranked = services.table_create(user=players[0], game="gin", preset="klassisch", options={}, ranked=True)
    refused("not_allowed", services.table_fill_with_bots, ranked.pk, user=players[0])


def test_start_needs_every_seat_taken(players):
    table = services.table_create(user=players[0], game="romme", preset="standard", options={"seats": 3})
    services.table_join(table_id=table.pk, user=players[1])
    refused("seats_free", services.table_start, table.pk, user=players[0])


# --- moves ----------------------------------------------------------------------------------------------


def test_a_move_is_applied_logged_and_versioned(players):
    table = gin_table(players)
    seat = state_of(table).to_act
    before = timezone.now()
    action = choose_action(view_of(table, seat))
    version = services.move_apply(table_id=table.pk, user=players[seat], version=table.version, action=action)
    after = Table.objects.get(pk=table.pk)
    assert version == after.version == table.version + 1
    move = Move.objects.get(table=table)
    assert (move.seat, move.action, move.by, move.seq, move.version) == (seat, action, "player", 0, version)
    to_act = state_of(after).to_act
    assert after.turn_deadline >= before + timedelta(seconds=45) or to_act == seat


def two_player_table(players, game: str) -> Table:
    """A started two-player table of either game."""
    if game == "gin":
        return gin_table(players)
    table = services.table_create(user=players[0], game="romme", preset="standard", options={"seats": 2})
    services.table_join(table_id=table.pk, user=players[1])
    return Table.objects.get(pk=table.pk)


both_games = pytest.mark.parametrize("game", ["gin", "romme"])


@both_games
def test_a_stale_version_is_refused(players, game):
    table = two_player_table(players, game)
    seat = state_of(table).to_act
    action = choose_action(view_of(table, seat))
    error = refused("stale_version", services.move_apply, table.pk, user=players[seat], version=table.version - 1,
                    action=action)
    assert error.version == table.version
    refused("stale_version", services.move_apply, table.pk, user=players[seat], version=table.version + 1,
            action=action)


@both_games
def test_a_move_out_of_turn_is_refused(players, game):
    table = two_player_table(players, game)
    other = 1 - state_of(table).to_act
    refused("not_your_turn", services.move_apply, table.pk, user=players[other], version=table.version,
            action={"action": "draw", "from": "stock"})


@both_games
def test_a_move_by_someone_not_seated_is_refused(players, spectator, game):
    table = two_player_table(players, game)
    refused("not_seated", services.move_apply, table.pk, user=spectator, version=table.version,
            action={"action": "draw", "from": "stock"})
    from django.contrib.auth.models import AnonymousUser

    refused("not_seated", services.move_apply, table.pk, user=AnonymousUser(), version=table.version,
            action={"action": "draw", "from": "stock"})


def test_a_card_not_held_is_refused(players):
    table = services.table_create(user=players[0], game="gin", preset="schnell", options={})
    services.table_join(table_id=table.pk, user=players[1])
    table = Table.objects.get(pk=table.pk)
    seat = state_of(table).to_act
    services.move_apply(table_id=table.pk, user=players[seat], version=table.version,
                        action={"action": "draw", "from": "stock"})
    table = Table.objects.get(pk=table.pk)
    hand = view_of(table, seat)["hand"]
    not_held = next(card for card in ("AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS")
                    if card not in hand and card != view_of(table, seat)["discard_top"])
    error = refused("illegal_action", services.move_apply, table.pk, user=players[seat], version=table.version,
                    action={"action": "discard", "card": not_held})
    assert not_held in error.message or "hand" in error.message


@pytest.mark.parametrize(
    ("action", "version", "code"),
    [
        ("draw", None, "bad_message"),
        ({"from": "stock"}, None, "bad_message"),
        ({"action": 7}, None, "bad_message"),
        ({"action": "draw", "from": "stock"}, "3", "bad_message"),
        ({"action": "draw", "from": "stock"}, True, "bad_message"),
        ({"action": "draw", "from": "x" * 3000}, None, "too_large"),
        ({"action": "teleport"}, None, "illegal_action"),
        ({"action": "discard", "card": "1H"}, None, "illegal_action"),
    ],
)
@both_games
def test_malformed_or_oversized_moves_are_refused(players, action, version, code, game):
    table = two_player_table(players, game)
    seat = state_of(table).to_act
    refused(code, services.move_apply, table.pk, user=players[seat],
            version=table.version if version is None else version, action=action)


def test_a_gin_match_is_played_to_the_end_and_recorded(players):
    table = gin_table(players, options={"target": 50})
    finished = play_out(table.pk, players[:2])
    assert finished.status == Table.Status.FINISHED and finished.turn_deadline is None
    match = Match.objects.get(table=finished)
    result = registry.get(finished.game).result(state_of(finished))
    assert match.status == Match.Status.FINISHED and match.result == result
    assert match.final_scores == result["final"] and match.winner_seat == result["winner"]
    assert match.winner == players[result["winner"]] and match.ranked is False
    assert max(match.final_scores) >= 50
    rounds = list(Round.objects.filter(match=match).order_by("number"))
    assert len(rounds) == result["rounds"] >= 1
    for played in rounds:
        assert played.finished_at and played.record and played.result
        assert {k: played.record[k] for k in ("dealer", "hands", "upcard", "stock")} == played.deal
        canonical = json.dumps(played.deal, sort_keys=True, separators=(",", ":"))
        assert played.deal_hash == hashlib.sha256(canonical.encode()).hexdigest()
    seqs = list(Move.objects.filter(match=match).values_list("seq", flat=True))
    assert seqs == list(range(len(seqs)))
    versions = list(Move.objects.filter(match=match).values_list("version", flat=True))
    assert versions == sorted(versions)


def test_between_rounds_the_next_round_is_dealt_when_everyone_is_ready(players):
    table = gin_table(players, options={"target": 200})
    # Play until the first round ends.
    while state_of(table).to_act is not None:
        seat = state_of(table).to_act
        services.move_apply(table_id=table.pk, user=players[seat], version=table.version,
                            action=choose_action(view_of(table, seat)))
        table = Table.objects.get(pk=table.pk)
    assert view_of(table, None)["last_round"] is not None
    assert Round.objects.get(match=table.current_match, number=1).finished_at is not None
    refused("not_your_turn", services.move_apply, table.pk, user=players[0], version=table.version,
            action={"action": "draw", "from": "stock"})
    services.round_ready(table_id=table.pk, user=players[0])
    table = Table.objects.get(pk=table.pk)
    assert state_of(table).round_number == 1 and table.seats.get(index=0).ready
    refused("stale_version", services.round_ready, table.pk, user=players[1], version=table.version - 1)
    services.round_ready(table_id=table.pk, user=players[1], version=table.version)
    table = Table.objects.get(pk=table.pk)
    assert state_of(table).round_number == 2 and state_of(table).to_act is not None
    assert not any(table.seats.values_list("ready", flat=True))
    refused("not_between_rounds", services.round_ready, table.pk, user=players[0])


def test_resigning_loses_the_gin_match(players):
    table = gin_table(players)
    services.match_resign(table_id=table.pk, user=players[0])
    table = Table.objects.get(pk=table.pk)
    match = table.current_match
    assert table.status == Table.Status.FINISHED
    assert match.winner == players[1] and match.winner_seat == 1 and match.left_seats == [0]
    assert Move.objects.get(match=match).action == {"action": "resign"}
    abandoned = Round.objects.get(match=match)
    assert abandoned.result == {"result": "abandoned"} and abandoned.record is None and abandoned.finished_at
    refused("not_playing", services.match_resign, table.pk, user=players[1])


def test_abort_only_before_the_first_move(players):
    table = gin_table(players)
    services.match_abort(table_id=table.pk, user=players[0])  # the creator (issue 25)
    table = Table.objects.get(pk=table.pk)
    assert table.status == Table.Status.ABORTED and table.current_match.status == Match.Status.ABORTED
    assert table.current_match.result is None
    other = gin_table(players[2:])
    seat = state_of(other).to_act
    services.move_apply(table_id=other.pk, user=players[2 + seat], version=other.version,
                        action=choose_action(view_of(other, seat)))
    refused("match_started", services.match_abort, other.pk, user=players[2])


def test_rematch_starts_when_both_players_ask(players):
    table = gin_table(players)
    refused("not_finished", services.match_rematch, table.pk, user=players[0])
    services.match_resign(table_id=table.pk, user=players[0])
    refused("seat_left", services.match_rematch, table.pk, user=players[1])
    table = gin_table(players[2:], preset="schnell")
    play_out(table.pk, players[2:])
    assert services.match_rematch(table_id=table.pk, user=players[2]) is None
    second = services.match_rematch(table_id=table.pk, user=players[3])
    table = Table.objects.get(pk=table.pk)
    assert second.number == 2 and table.current_match == second and table.status == Table.Status.PLAYING
    assert Round.objects.filter(match=second).count() == 1


# --- chat -----------------------------------------------------------------------------------------------


def test_chat_is_stored_and_sent_as_plain_text(players, django_capture_on_commit_callbacks, monkeypatch):
    table = gin_table(players)
    sent = []
    monkeypatch.setattr(events, "_send", lambda messages: sent.extend(messages))
    with django_capture_on_commit_callbacks(execute=True):
        services.chat_post(table_id=table.pk, user=players[0], text="  <b>Hallo</b> & tschüss ")
    assert ChatMessage.objects.get().text == "<b>Hallo</b> & tschüss"
    (group, message), = sent
    assert group == f"table.{table.pk}.all"
    # Plain text in the protocol: whoever renders it escapes it (textContent, Django templates).
    assert message["frame"]["text"] == "<b>Hallo</b> & tschüss" and message["frame"]["user"] == "anna"
    assert message["frame"]["seat"] == 0


def test_chat_refusals(players, spectator):
    table = gin_table(players)
    refused("not_seated", services.chat_post, table.pk, user=spectator, text="hi")
    refused("chat_too_long", services.chat_post, table.pk, user=players[0], text="x" * 301)
    refused("bad_message", services.chat_post, table.pk, user=players[0], text="   ")
    refused("bad_message", services.chat_post, table.pk, user=players[0], text=["hi"])
    for n in range(5):
        services.chat_post(table_id=table.pk, user=players[0], text=f"Nachricht {n}")
    refused("chat_rate_limited", services.chat_post, table.pk, user=players[0], text="noch eine")
    ChatMessage.objects.update(created_at=timezone.now() - timedelta(seconds=11))
    services.chat_post(table_id=table.pk, user=players[0], text="wieder da")


def test_chat_is_off_at_tournament_tables(players):
    table = services.table_create(user=players[0], game="romme", preset="turnier", options={"seats": 2})
    services.table_join(table_id=table.pk, user=players[1])
    refused("chat_off", services.chat_post, table.pk, user=players[0], text="Hallo")


# --- fan-out --------------------------------------------------------------------------------------------


def test_events_are_sent_after_commit_to_each_seat_and_the_public(players, django_capture_on_commit_callbacks,
                                                                  monkeypatch):
    table = gin_table(players)
    sent = []
    monkeypatch.setattr(events, "_send", lambda messages: sent.extend(messages))
    seat = state_of(table).to_act
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.move_apply(table_id=table.pk, user=players[seat], version=table.version,
                            action=choose_action(view_of(table, seat)))
    assert sent == []  # nothing leaves before the commit
    for callback in callbacks:
        callback()
    groups = {group: message["frame"] for group, message in sent}
    assert set(groups) == {f"table.{table.pk}.user.{players[0].pk}", f"table.{table.pk}.user.{players[1].pk}",
                           f"table.{table.pk}.public"}
    assert all(frame["version"] == table.version + 1 for frame in groups.values())
    assert groups[f"table.{table.pk}.user.{players[0].pk}"]["table"]["you"] == 0
    assert "hand" in groups[f"table.{table.pk}.user.{players[1].pk}"]["view"]
    public = groups[f"table.{table.pk}.public"]
    assert public["table"]["you"] is None and "hand" not in public["view"] and "legal_actions" not in public["view"]


# --- Rommé ----------------------------------------------------------------------------------------------


def romme_table(players, *, seats=3, humans=1, options=None, level="simple") -> Table:
    table = services.table_create(user=players[0], game="romme", preset="standard",
                                  options={"seats": seats, **(options or {})})
    for user in players[1:humans]:
        services.table_join(table_id=table.pk, user=user)
    if humans < seats:
        services.table_fill_with_bots(table_id=table.pk, user=players[0], level=level)
    return Table.objects.get(pk=table.pk)


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_romme_tables_seat_two_to_six(players, seats):
    table = services.table_create(user=players[0], game="romme", preset="standard", options={"seats": seats})
    assert table.seat_count == seats == Seat.objects.filter(table=table).count()
    assert table.options["rounds"] == 2 * seats and table.options["opening_points"] == 40


def test_romme_defaults_to_four_seats(players):
    table = services.table_create(user=players[0], game="romme", preset="", options={})
    assert table.seat_count == 4 and table.preset == "standard" and table.options["scoring"] == "casual"


@pytest.mark.parametrize("seats", [1, 7, "4", True, None])
def test_romme_seat_counts_outside_two_to_six_are_refused(players, seats):
    with pytest.raises(ServiceError) as caught:
        services.table_create(user=players[0], game="romme", preset="standard", options={"seats": seats})
    assert caught.value.code == "bad_options"
    assert Table.objects.count() == 0


def test_a_romme_list_with_computer_players_is_played_to_the_end(players):
    table = romme_table(players, seats=3, humans=1, options={"rounds": 2}, level="expert")
    finished = play_out(table.pk, [players[0], None, None])
    match = Match.objects.get(table=finished)
    assert finished.status == Table.Status.FINISHED and match.status == Match.Status.FINISHED
    assert len(match.final_scores) == 3 and match.result["places"]
    assert [r.number for r in Round.objects.filter(match=match, finished_at__isnull=False)] == [1, 2]
    assert Move.objects.filter(match=match, by="bot").exists()
    assert Move.objects.filter(match=match, by="player", seat=0).exists()


def test_a_romme_card_not_held_is_refused(players):
    table = romme_table(players, seats=2, humans=2)
    seat = state_of(table).to_act
    services.move_apply(table_id=table.pk, user=players[seat], version=table.version,
                        action={"action": "draw", "from": "stock"})
    table = Table.objects.get(pk=table.pk)
    hand = view_of(table, seat)["hand"]
    not_held = next(card for card in ("AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS")
                    if card not in hand)
    refused("illegal_action", services.move_apply, table.pk, user=players[seat], version=table.version,
            action={"action": "discard", "card": not_held})
    refused("illegal_action", services.move_apply, table.pk, user=players[seat], version=table.version,
            action={"action": "lay", "melds": [[not_held, not_held, not_held]]})


def test_resigning_in_romme_leaves_the_list_to_the_others(players):
    table = romme_table(players, seats=3, humans=2)
    services.match_resign(table_id=table.pk, user=players[1])
    table = Table.objects.get(pk=table.pk)
    assert table.status == Table.Status.PLAYING and table.seats.get(index=1).left
    assert state_of(table).to_act != 1
    refused("not_seated", services.move_apply, table.pk, user=players[1], version=table.version,
            action={"action": "draw", "from": "stock"})
    services.match_resign(table_id=table.pk, user=players[0])
    table = Table.objects.get(pk=table.pk)
    match = table.current_match
    assert table.status == Table.Status.FINISHED and sorted(match.left_seats) == [0, 1]
    assert match.result["left"] == [True, True, False]


def test_the_admin_never_shows_the_hidden_state(players, admin_client):
    table = gin_table(players)
    page = admin_client.get(f"/admin/games/table/{table.pk}/change/")
    assert page.status_code == 200
    hand = view_of(table, 1)["hand"]
    assert "hands_now" not in page.content.decode() and json.dumps(hand) not in page.content.decode()
    assert admin_client.get("/admin/games/match/").status_code == 200
    assert admin_client.get("/admin/games/move/").status_code == 200


def test_deals_use_the_os_csprng_unless_the_test_seed_is_set(settings):
    import secrets

    from games.services._common import table_rng

    settings.GAMES_TEST_DEAL_SEED = ""
    assert isinstance(table_rng(1, 1, "deal"), secrets.SystemRandom)
    settings.GAMES_TEST_DEAL_SEED = "fixed"
    first, again = table_rng(1, 1, "deal"), table_rng(1, 1, "deal")
    assert [first.random() for _ in range(3)] == [again.random() for _ in range(3)]
    assert table_rng(1, 2, "deal").random() != table_rng(1, 1, "deal").random()


def test_a_test_seed_deals_the_same_whatever_the_table_id(players):
    # The seam for tests: the seed alone decides the deal, not which tables earlier tests created.
    first = gin_table(players)
    first_deal = Round.objects.get(match__table=first, number=1).deal
    Table.objects.filter(pk=first.pk).delete()
    second = gin_table(players)
    assert second.pk != first.pk
    assert Round.objects.get(match__table=second, number=1).deal == first_deal


def test_a_repeated_ready_or_rematch_changes_nothing(players):
    table = gin_table(players, options={"target": 200})
    while state_of(table).to_act is not None:
        seat = state_of(table).to_act
        services.move_apply(table_id=table.pk, user=players[seat], version=table.version,
                            action=choose_action(view_of(table, seat)))
        table = Table.objects.get(pk=table.pk)
    services.round_ready(table_id=table.pk, user=players[0])
    before = fingerprint(table.pk)
    assert services.round_ready(table_id=table.pk, user=players[0]) == before[0]
    assert fingerprint(table.pk) == before
    done = gin_table(players[2:], preset="schnell")
    play_out(done.pk, players[2:])
    services.match_rematch(table_id=done.pk, user=players[2])
    before = fingerprint(done.pk)
    assert services.match_rematch(table_id=done.pk, user=players[2]) is None
    assert fingerprint(done.pk) == before


def test_a_table_with_computer_players_is_created_whole_or_not_at_all(players):
    table = services.table_create(user=players[0], game="romme", preset="standard", options={"seats": 3},
                                  bots="expert")
    assert table.status == Table.Status.PLAYING and table.version > 1
    assert [s.bot_level for s in Seat.objects.filter(table=table).order_by("index")] == ["", "expert", "expert"]
    with pytest.raises(ServiceError) as caught:
        services.table_create(user=players[0], game="gin", preset="schnell", options={}, bots="godlike")
    assert caught.value.code == "bad_message"
    with pytest.raises(ServiceError) as caught:
        services.table_create(user=players[0], game="gin", preset="schnell", options={}, ranked=True, bots="simple")
    assert caught.value.code == "not_allowed"
    assert Table.objects.count() == 1


def test_chat_drops_control_characters(players):
    table = gin_table(players)
    services.chat_post(table_id=table.pk, user=players[0], text="a\x00b\x07 c\td")
    assert ChatMessage.objects.get().text == "ab c\td"
    refused("bad_message", services.chat_post, table.pk, user=players[0], text="\x00\x1b ")


def test_a_table_created_with_its_seats_given_starts_at_once_with_them(players):
    table = services.table_create_seated(game="romme", users=players[:3], options={"rounds": 2})
    assert table.status == Table.Status.PLAYING and table.ranked and not table.private
    assert list(table.seats.order_by("index").values_list("user_id", flat=True)) == [p.pk for p in players[:3]]
    assert table.seat_count == 3 and Match.objects.get(table=table).users.count() == 3


def test_a_table_with_given_seats_needs_distinct_signed_in_people(players):
    for users in ([players[0], players[0]], [players[0], None]):
        with pytest.raises(ServiceError) as caught:
            services.table_create_seated(game="gin", users=users)
        assert caught.value.code == "bad_options"
    assert not Table.objects.exists()


def test_a_tournament_table_has_no_chat_no_computer_players_and_no_rematch(players):
    table = services.table_create_seated(game="gin", users=players[:2], options={"target": 0}, tournament=True)
    policy = services.table_policy(table)
    assert (policy.chat, policy.bots, policy.rematch) == (False, False, False)
    refused("chat_off", services.chat_post, table.pk, user=players[0], text="Hallo")
    services.match_resign(table_id=table.pk, user=players[0])
    refused("not_allowed", services.match_rematch, table.pk, user=players[1])


def test_staff_removing_a_player_resigns_their_seat_and_only_staff_may(players, admin_user):
    table = gin_table(players)
    refused("not_allowed", services.seat_remove, table.pk, seat=1, by=players[0])
    services.seat_remove(table_id=table.pk, seat=1, by=admin_user)
    match = Match.objects.get(table=table)
    assert match.left_seats == [1] and match.winner_seat == 0
    assert Move.objects.get(match=match, seat=1).action == {"action": "resign"}


def test_staff_closing_an_open_table_frees_it_for_nobody(players, admin_user):
    table = services.table_create(user=players[0], game="gin", preset="klassisch")
    refused("not_allowed", services.table_close, table.pk, by=players[0])
    services.table_close(table_id=table.pk, by=admin_user)
    assert Table.objects.get(pk=table.pk).status == Table.Status.ABORTED


def test_a_ranked_table_is_public(players):
    with pytest.raises(ServiceError) as caught:
        services.table_create(user=players[0], game="gin", ranked=True, private=True)
    assert caught.value.code == "bad_options" and not Table.objects.exists()


def test_a_registered_ranked_seat_guard_refuses_a_seat_and_changes_nothing(players, monkeypatch):
    from games.services import _common

    monkeypatch.setattr(_common, "RANKED_SEAT_GUARDS", [])
    table = services.table_create(user=players[0], game="gin", ranked=True)
    services.ranked_seat_guard_add(lambda user: "Bitte warte noch." if user == players[1] else None)
    error = refused("not_allowed", services.table_join, table.pk, user=players[1])
    assert error.message == "Bitte warte noch."
    services.table_join(table_id=table.pk, user=players[2])
    unranked = services.table_create(user=players[1], game="gin")  # unranked tables ask no guard
    assert unranked.pk


def test_a_lone_surrogate_in_chat_is_a_bad_message_not_a_server_error(players):
    table = gin_table(players)
    error = refused("bad_message", services.chat_post, table.pk, user=players[0], text="hallo \ud800")
    assert "ungültige Zeichen" in error.message


def test_who_left_the_match_may_not_chat_at_that_table(players):
    table = services.table_create(user=players[0], game="romme", options={"seats": 3})
    for user in players[1:3]:
        services.table_join(table_id=table.pk, user=user)
    services.match_resign(table_id=table.pk, user=players[2])
    refused("not_seated", services.chat_post, table.pk, user=players[2], text="tschüss")
    assert services.chat_post(table_id=table.pk, user=players[0], text="weiter geht's").text == "weiter geht's"


def test_a_lone_surrogate_is_no_invitation(players):
    from games.reads import selectors

    table = services.table_create(user=players[0], game="gin", private=True)
    assert selectors.invite_matches(table=table, invite_token="\ud800") is False
    refused("not_invited", services.table_join, table.pk, user=players[1], invite_token="\ud800")


def test_a_snapshot_read_after_a_move_committed_is_of_one_version(players):
    from games.reads import selectors

    table = gin_table(players)
    stale = Table.objects.select_related("current_match").get(pk=table.pk)
    # A move commits between reading the table row and reading its seats and rounds.
    state = state_of(stale)
    services.move_apply(table_id=table.pk, user=players[state.to_act], version=stale.version,
                        action=choose_action(view_of(stale, state.to_act)))
    snapshot = selectors.table_snapshot(table=stale)
    fresh = Table.objects.get(pk=table.pk)
    assert snapshot.table.version == fresh.version
    assert snapshot.state.to_json() == state_of(fresh).to_json()


def test_a_table_changing_on_every_read_is_read_under_its_row_lock(players, monkeypatch):
    from games.reads import selectors

    table = gin_table(players)
    stale = Table.objects.select_related("current_match").get(pk=table.pk)
    state = state_of(stale)
    services.move_apply(table_id=table.pk, user=players[state.to_act], version=stale.version,
                        action=choose_action(view_of(stale, state.to_act)))
    monkeypatch.setattr(selectors, "SNAPSHOT_TRIES", 0)
    snapshot = selectors.table_snapshot(table=stale)
    assert snapshot.table.version == Table.objects.get(pk=table.pk).version


def test_tables_given_the_same_deal_seed_deal_the_same_rounds_and_others_do_not(players, settings):
    settings.GAMES_TEST_DEAL_SEED = ""  # the OS CSPRNG for every table without a seed
    seed = "0123456789abcdef0123456789abcdef"
    a = services.table_create_seated(game="romme", users=players[:2], options={"rounds": 2}, deal_seed=seed)
    b = services.table_create_seated(game="romme", users=players[2:4], options={"rounds": 2}, deal_seed=seed)
    c = services.table_create_seated(game="romme", users=players[:2], options={"rounds": 2}, ranked=False)
    hashes = {t.pk: Round.objects.get(match__table=t, number=1).deal_hash for t in (a, b, c)}
    assert hashes[a.pk] == hashes[b.pk] != hashes[c.pk]
    frame = json.dumps(selectors_state(a, players[0]))
    assert seed not in frame


def selectors_state(table, user):
    from games.reads import selectors

    return selectors.table_state_for(table_id=table.pk, user=user)
