"""Who may do what, as one table: six kinds of people against every socket message and every page that
changes a table, at an open table, during a match and after it. Each cell is what must happen: ``ok`` (it
went through and changed what it should), an error code of docs/protocol.md, ``4403`` (the socket is closed
at the door), or for pages ``login`` (sent to sign in) and ``refused`` (nothing changed).

The people: ``anonymous`` (no account, watching), ``stranger`` (signed in, at a private table without its
invitation), ``seated`` (holds a seat; in a match the seat to act), ``left`` (before the start: took a seat and
gave it up; in and after the match: resigned, at a 3-seat Rommé table that plays on), ``spectator`` (signed in,
watching, no seat), ``staff`` (``is_staff`` with the admin's view permission on tables, no seat)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client

from games import registry, services
from games.models import ChatMessage, Table
from tests.games.helpers import Socket, play_out, state_of

ROLES = ("anonymous", "stranger", "seated", "left", "spectator", "staff")


def row(*cells: str) -> dict[str, str]:
    return dict(zip(ROLES, cells, strict=True))


WATCH = row("ok", "4403", "ok", "ok", "ok", "ok")


def seated_only(seated: str, left: str = "not_seated") -> dict[str, str]:
    """Everyone without a seat is ``not_seated``; the stranger never gets in."""
    return row("not_seated", "4403", seated, left, "not_seated", "not_seated")


#: (phase, message) -> role -> outcome
SOCKETS: dict[tuple[str, str], dict[str, str]] = {
    ("open", "hello"): WATCH, ("open", "sync"): WATCH, ("open", "ping"): WATCH,
    ("open", "join"): row("not_signed_in", "4403", "already_seated", "ok", "ok", "ok"),
    ("open", "leave"): seated_only("ok"),
    ("open", "bots"): seated_only("ok"),
    ("open", "start"): seated_only("seats_free"),
    ("open", "move"): seated_only("not_playing"),
    ("open", "ready"): seated_only("not_playing"),
    ("open", "resign"): seated_only("not_playing"),
    ("open", "abort"): seated_only("not_playing"),
    ("open", "rematch"): seated_only("not_finished"),
    ("open", "chat"): seated_only("ok"),

    ("playing", "hello"): WATCH, ("playing", "sync"): WATCH, ("playing", "ping"): WATCH,
    ("playing", "join"): row("not_signed_in", "4403", "not_open", "not_open", "not_open", "not_open"),
    ("playing", "leave"): seated_only("match_running", "match_running"),
    ("playing", "bots"): row("not_open", "4403", "not_open", "not_open", "not_open", "not_open"),
    ("playing", "start"): row("not_open", "4403", "not_open", "not_open", "not_open", "not_open"),
    ("playing", "move"): seated_only("ok"),
    ("playing", "ready"): seated_only("not_between_rounds", "not_between_rounds"),
    ("playing", "resign"): seated_only("ok"),
    ("playing", "abort"): seated_only("match_started", "match_started"),
    ("playing", "rematch"): seated_only("not_finished", "not_finished"),
    ("playing", "chat"): seated_only("ok"),

    ("finished", "hello"): WATCH, ("finished", "sync"): WATCH, ("finished", "ping"): WATCH,
    ("finished", "join"): row("not_signed_in", "4403", "not_open", "not_open", "not_open", "not_open"),
    ("finished", "leave"): seated_only("ok", "ok"),
    ("finished", "bots"): row("not_open", "4403", "not_open", "not_open", "not_open", "not_open"),
    ("finished", "start"): row("not_open", "4403", "not_open", "not_open", "not_open", "not_open"),
    ("finished", "move"): seated_only("not_playing", "not_playing"),
    ("finished", "ready"): seated_only("not_playing", "not_playing"),
    ("finished", "resign"): seated_only("not_playing", "not_playing"),
    ("finished", "abort"): seated_only("not_playing", "not_playing"),
    ("finished", "rematch"): seated_only("seat_left", "seat_left"),
    ("finished", "chat"): seated_only("ok"),
}

#: Messages after which ``ok`` means the table's version went up.
CHANGES = {"join", "leave", "bots", "start", "move", "ready", "resign", "abort", "rematch"}


@dataclass
class Scene:
    table_id: int
    private_id: int
    people: dict


def build(phase: str) -> Scene:
    """A 3-seat Rommé table in ``phase`` and one person of each kind (see the module docstring)."""
    User = get_user_model()
    anna, ben, cleo, dora, sven = (User.objects.create_user(n, f"{n}@example.org", f"pw-{n}-{n}-9")
                                   for n in ("anna", "ben", "cleo", "dora", "sven"))
    stella = User.objects.create_user("stella", "stella@example.org", "pw-stella-9", is_staff=True)
    # Staff as a moderator: may see tables in the admin (Django asks for the view permission) and so use its
    # actions; not a superuser.
    stella.user_permissions.add(*Permission.objects.filter(codename__in=["view_table", "view_seat"]))
    stranger = User.objects.create_user("tom", "tom@example.org", "pw-tom-tom-9")
    table = services.table_create(user=anna, game="romme", preset="standard", options={"seats": 3, "rounds": 1})
    private = services.table_create(user=dora, game="gin", preset="schnell", private=True)
    people = {"anonymous": None, "stranger": stranger, "spectator": sven, "staff": stella}
    if phase == "open":
        services.table_join(table_id=table.pk, user=dora)
        services.table_leave(table_id=table.pk, user=dora)
        people.update(seated=anna, left=dora)
        return Scene(table.pk, private.pk, people)
    services.table_join(table_id=table.pk, user=ben)
    services.table_join(table_id=table.pk, user=cleo)
    services.match_resign(table_id=table.pk, user=cleo)
    while (to_act := state_of(Table.objects.get(pk=table.pk)).to_act) == 2:
        services.referee_pass()  # the seat that left moves by the referee
    if phase == "finished":
        play_out(table.pk, [anna, ben, None])
        people.update(seated=anna, left=cleo)
    else:
        people.update(seated=(anna, ben)[to_act], left=cleo)
    return Scene(table.pk, private.pk, people)


def message_for(kind: str, table: Table) -> dict:
    message = {"type": kind}
    if kind == "move":
        action = {"action": "draw", "from": "stock"}
        if table.state:
            state = state_of(table)
            if state.to_act is not None:
                action = registry.get(table.game).engine.view(state, state.to_act).get("legal_actions", [action])[0]
        message.update(version=table.version, action=action)
    elif kind == "chat":
        message["text"] = "Hallo zusammen"
    elif kind == "bots":
        message["level"] = "simple"
    return message


async def outcome_of(scene: Scene, role: str, kind: str) -> str:
    user = scene.people[role]
    table_id = scene.private_id if role == "stranger" else scene.table_id
    socket = await Socket.open(table_id, user)
    if socket.close_code is not None:
        return str(socket.close_code)
    await socket.until(lambda f: f["type"] == "state")
    table = await sync_to_async(Table.objects.get)(pk=table_id)
    chats = await sync_to_async(ChatMessage.objects.filter(table_id=table_id).count)()
    await socket.send(message_for(kind, table))
    await socket.send({"type": "ping"})
    frames = []
    while True:
        frame = await socket.receive()
        if frame["type"] == "pong":
            break
        frames.append(frame)
    after = await sync_to_async(Table.objects.get)(pk=table_id)
    await socket.close()
    errors = [f["code"] for f in frames if f["type"] == "error"]
    if errors:
        assert after.version == table.version, f"{role} {kind}: refused ({errors}) but the table changed"
        return errors[0]
    if kind in CHANGES:
        return "ok" if after.version > table.version else f"no change (frames {[f['type'] for f in frames]})"
    if kind == "chat":
        posted = await sync_to_async(ChatMessage.objects.filter(table_id=table_id).count)()
        return "ok" if posted == chats + 1 else "no chat line"
    if kind in ("hello", "sync"):
        return "ok" if any(f["type"] == "state" for f in frames) else "no state"
    return "ok"  # ping: the pong came


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("phase, kind", list(SOCKETS), ids=[f"{p}-{k}" for p, k in SOCKETS])
def test_who_may_send_what_over_the_table_socket(phase, kind):
    outcomes = {}
    scene = None
    for role in ROLES:
        # A refusal changes nothing (checked), so the next person tries on the same table; after a change
        # the table is built anew, so that one cell's change cannot decide another's.
        if scene is None:
            Table.objects.all().delete()
            get_user_model().objects.all().delete()
            scene = build(phase)
        outcomes[role] = async_to_sync(outcome_of)(scene, role, kind)
        if outcomes[role] == "ok" and kind in CHANGES:
            scene = None
    assert outcomes == SOCKETS[(phase, kind)]


# --- pages that change a table ---------------------------------------------------------------------------

PAGES: dict[tuple[str, str], dict[str, str]] = {
    ("open", "join"): row("login", "refused", "refused", "ok", "ok", "ok"),
    ("open", "leave"): row("login", "refused", "ok", "refused", "refused", "refused"),
    ("open", "bots"): row("login", "refused", "ok", "refused", "refused", "refused"),
    ("open", "create"): row("login", "ok", "ok", "ok", "ok", "ok"),
    ("open", "quick"): row("login", "ok", "ok", "ok", "ok", "ok"),
    ("open", "admin-close"): row("login", "login", "login", "login", "login", "ok"),
    ("playing", "join"): row("login", "refused", "refused", "refused", "refused", "refused"),
    ("playing", "leave"): row("login", "refused", "refused", "refused", "refused", "refused"),
    ("playing", "bots"): row("login", "refused", "refused", "refused", "refused", "refused"),
    ("playing", "admin-close"): row("login", "login", "login", "login", "login", "ok"),
}


def page_outcome(scene: Scene, role: str, page: str) -> str:
    client = Client(raise_request_exception=False)
    if scene.people[role] is not None:
        client.force_login(scene.people[role])
    table_id = scene.private_id if role == "stranger" else scene.table_id
    version = Table.objects.get(pk=table_id).version
    tables = Table.objects.count()
    url, data = {
        "join": (f"/spielen/tisch/{table_id}/setzen/", {}),
        "leave": (f"/spielen/tisch/{table_id}/aufstehen/", {}),
        "bots": (f"/spielen/tisch/{table_id}/computer/", {"level": "simple"}),
        "create": ("/spielen/neu/", {"game": "gin", "gin-preset": "klassisch"}),
        "quick": ("/spielen/schnellspiel/gin/", {"level": "simple"}),
        "admin-close": ("/admin/games/table/", {"action": "close_tables", "_selected_action": [table_id]}),
    }[page]
    response = client.post(url, data)
    assert response.status_code < 500, (role, page, response.status_code)
    location = response.headers.get("Location", "")
    if response.status_code == 302 and ("/accounts/login/" in location or "/admin/login/" in location):
        return "login"
    if page in ("create", "quick"):
        return "ok" if Table.objects.count() == tables + 1 else "refused"
    return "ok" if Table.objects.get(pk=table_id).version > version else "refused"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("phase, page", list(PAGES), ids=[f"{p}-{k}" for p, k in PAGES])
def test_who_may_use_which_page(phase, page):
    outcomes = {}
    scene = None
    for role in ROLES:
        if scene is None:
            Table.objects.all().delete()
            get_user_model().objects.all().delete()
            scene = build(phase)
        outcomes[role] = page_outcome(scene, role, page)
        if outcomes[role] == "ok":
            scene = None
    assert outcomes == PAGES[(phase, page)]
