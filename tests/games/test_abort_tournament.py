"""No abort at tournament tables (tournaments.md): a player's ``{"type": "abort"}`` is refused over the socket
with ``abort_not_allowed``, the message says what happens to whoever does not play (the turn timer, the
timeout moves, the tournament's forfeit rule), nothing changes; only staff end such a table early. Other
tables may still be called off before the first move."""

import pytest
from asgiref.sync import sync_to_async

from games import services
from games.models import Match, Table
from games.services import ServiceError
from tests.games.helpers import Socket
from tournaments.models import Stage, StageTable, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def tournament_table(players, *, game="gin", forfeit_minutes=None, options=None) -> Table:
    table = services.table_create_seated(game=game, users=players, ranked=True, tournament=True,
                                         options=options or {})
    if forfeit_minutes is not None:
        t = Tournament.objects.create(name="Gin-Pokal", game=game, format="swiss", status="running",
                                      settings={"forfeit_minutes": forfeit_minutes})
        stage = Stage.objects.create(tournament=t, number=1)
        StageTable.objects.create(stage=stage, number=1, table=table, users=[p.pk for p in players])
    return table


@sync_to_async
def table_row(table_id) -> Table:
    return Table.objects.select_related("current_match").get(pk=table_id)


async def open_both(table, players):
    sockets = [await Socket.open(table.pk, player) for player in players]
    for socket in sockets:
        await socket.until(lambda f: f["type"] == "state")
    return sockets


async def test_abort_at_a_tournament_table_is_refused_over_the_socket(players):
    table = await tournament_table(players[:2], options={"turn_seconds": 60})
    anna, ben = await open_both(table, players[:2])
    version = anna.state["version"]
    await anna.send({"type": "abort"})
    error = await anna.until(lambda f: f["type"] == "error")
    assert error["code"] == "abort_not_allowed" and error["version"] == version
    assert "nicht abgebrochen" in error["message"]
    assert "60 Sekunden Zugzeit" in error["message"] and "3 Zeitüberschreitungen" in error["message"]
    assert "Turnierleitung" in error["message"]
    row = await table_row(table.pk)
    assert row.status == Table.Status.PLAYING and row.version == version
    assert row.current_match.status == Match.Status.PLAYING
    await ben.drain()
    assert not [f for f in ben.frames if f["type"] == "state" and f["version"] > version]  # nobody was told
    for socket in (anna, ben):
        await socket.close()


async def test_the_refusal_names_the_tournaments_forfeit_time(players):
    table = await tournament_table(players[:2], forfeit_minutes=7)
    anna, ben = await open_both(table, players[:2])
    await ben.send({"type": "abort"})
    error = await ben.until(lambda f: f["type"] == "error")
    assert error["code"] == "abort_not_allowed"
    assert "7 Minuten nach dem Beginn" in error["message"] and "kampflos" in error["message"]
    for socket in (anna, ben):
        await socket.close()


async def test_abort_at_a_romme_tournament_table_is_refused_too(players):
    table = await tournament_table(players[:3], game="romme")
    sockets = await open_both(table, players[:3])
    await sockets[2].send({"type": "abort"})
    error = await sockets[2].until(lambda f: f["type"] == "error")
    assert error["code"] == "abort_not_allowed" and "kampflos" not in error["message"]
    assert (await table_row(table.pk)).status == Table.Status.PLAYING
    for socket in sockets:
        await socket.close()


async def test_a_ranked_table_outside_a_tournament_may_still_be_called_off(players):
    table = await sync_to_async(services.table_create_seated)(game="gin", users=players[:2], ranked=True)
    anna, ben = await open_both(table, players[:2])
    await anna.send({"type": "abort"})
    aborted = await ben.until(lambda f: f["type"] == "state" and f["table"]["status"] == "aborted")
    assert aborted["table"]["status"] == "aborted"
    for socket in (anna, ben):
        await socket.close()


@sync_to_async
def staff_close(table_id, staff) -> Table:
    with pytest.raises(ServiceError) as refused:
        services.match_abort(table_id=table_id, user=staff)  # staff are no player: not through abort
    assert refused.value.code == "not_seated"
    services.table_close(table_id=table_id, by=staff)
    return Table.objects.select_related("current_match").get(pk=table_id)


async def test_only_staff_end_a_tournament_table_early(players, admin_user):
    table = await tournament_table(players[:2])
    row = await staff_close(table.pk, admin_user)
    assert row.status == Table.Status.ABORTED and row.current_match.status == Match.Status.ABORTED
    assert row.current_match.left_seats == []  # ended by staff: nobody called it off
