"""The admin changes nothing behind the services' back: play fields are read-only there, and what staff may
do to a table is an admin action that calls a service (and so is announced like any other end)."""

import pytest

from games import services
from games.models import Match, Move, Seat, Table

pytestmark = pytest.mark.django_db


def gin_table(players) -> Table:
    table = services.table_create(user=players[0], game="gin", preset="klassisch")
    services.table_join(table_id=table.pk, user=players[1])
    return Table.objects.get(pk=table.pk)


@pytest.mark.parametrize("model", ["table", "seat", "match", "move"])
def test_play_rows_cannot_be_added_or_edited_in_the_admin(players, admin_client, model):
    table = gin_table(players)
    services.match_resign(table_id=table.pk, user=players[0])
    row = {"table": table, "seat": Seat.objects.filter(table=table).first(),
           "match": Match.objects.get(table=table), "move": Move.objects.filter(table=table).first()}[model]
    page = admin_client.get(f"/admin/games/{model}/{row.pk}/change/")
    assert page.status_code == 200
    assert b'name="status"' not in page.content and b'name="version"' not in page.content
    assert b'name="action"' not in page.content or model != "move"
    assert admin_client.get(f"/admin/games/{model}/add/").status_code == 403
    before = Table.objects.get(pk=table.pk)
    admin_client.post(f"/admin/games/{model}/{row.pk}/change/", {"status": "open", "version": 99, "left": "on"})
    after = Table.objects.get(pk=table.pk)
    assert (after.status, after.version, after.state) == (before.status, before.version, before.state)


def test_the_end_table_action_calls_the_service(players, admin_client):
    table = gin_table(players)
    page = admin_client.post("/admin/games/table/", {"action": "close_tables", "_selected_action": [table.pk]})
    assert page.status_code == 302
    table = Table.objects.get(pk=table.pk)
    assert table.status == Table.Status.ABORTED
    assert Match.objects.get(table=table).ending == Match.Ending.ABORTED


def test_the_remove_player_action_resigns_the_seat(players, admin_client):
    table = gin_table(players)
    seat = Seat.objects.get(table=table, index=1)
    admin_client.post("/admin/games/seat/", {"action": "remove_players", "_selected_action": [seat.pk]})
    match = Match.objects.get(table=table)
    assert match.left_seats == [1] and match.winner_seat == 0 and match.ending == Match.Ending.RESIGNED


def test_chat_lines_show_escaped_in_the_admin(players, admin_client):
    # Chat is stored and sent as typed (plain text); a Django page that shows it escapes it.
    table = gin_table(players)
    services.chat_post(table_id=table.pk, user=players[0], text="<script>alert(1)</script>")
    page = admin_client.get("/admin/games/chatmessage/").content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert(1)</script>" not in page
