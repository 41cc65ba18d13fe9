"""The Django side of the load test, run as its own process against the site's database:

    python -m loadtest.site seed TABLES PREFIX OUT.json   # people, sessions and started gin tables
    python -m loadtest.site verify IN.json OUT.json        # the move log against what the clients saw
    python -m loadtest.site seed_arena PLAYERS PREFIX MINUTES OUT.json   # a gin arena and its players
    python -m loadtest.site verify_arena IN.json OUT.json  # the arena's records, pairings and passes

``seed`` makes two people per gin table with a signed-in session each (rows written directly, no password
hashing: the load test measures play, not sign-in), opens each table through ``games.services`` as the site
does (the first person opens it, the second joins, the match starts) and writes the table ids and session
keys. ``verify`` reads what the clients recorded (every move they saw applied, by version) and compares it
with the ``Move`` log and the tables' versions: nothing lost, nothing applied twice, nothing unknown.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter, defaultdict
from datetime import timedelta


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")
    import django

    django.setup()


#: Gin as people play it, with a turn time the scripted players never run out of (no referee moves).
TABLE_OPTIONS = {"turn_seconds": 600}


def seed(tables: int, prefix: str, out: str) -> None:
    _setup()
    from games import services

    users, sessions = _people([f"{prefix}{i}{side}" for i in range(tables) for side in "ab"])
    result = []
    for i in range(tables):
        a, b = users[f"{prefix}{i}a"], users[f"{prefix}{i}b"]
        table = services.table_create(user=a, game="gin", preset="klassisch", options=dict(TABLE_OPTIONS))
        services.table_join(table_id=table.pk, user=b)
        result.append({"id": table.pk, "sessions": [sessions[a.username], sessions[b.username]]})
    with open(out, "w") as fh:
        json.dump({"tables": result}, fh)


def _people(names: list[str], **extra) -> tuple[dict, dict]:
    """Users named ``names`` with a signed-in session each (rows written directly, no password hashing);
    returns ``({name: user}, {name: session key})``."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.auth.hashers import make_password
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django.utils import timezone
    from django.utils.crypto import get_random_string

    User = get_user_model()
    unusable = make_password(None)
    User.objects.bulk_create(
        [User(username=name, email=f"{name}@load.invalid", password=unusable, **extra) for name in names],
        batch_size=500,
    )
    users = {user.username: user for user in User.objects.filter(username__in=names)}
    store = SessionStore()
    expire = timezone.now() + timedelta(days=1)
    sessions, rows, datas = {}, [], {}
    for name in names:
        user = users[name]
        key = get_random_string(32, "abcdefghijklmnopqrstuvwxyz0123456789")
        data = {
            SESSION_KEY: str(user.pk),
            BACKEND_SESSION_KEY: "django.contrib.auth.backends.ModelBackend",
            HASH_SESSION_KEY: user.get_session_auth_hash(),
        }
        rows.append(Session(session_key=key, session_data=store.encode(data), expire_date=expire))
        sessions[name], datas[key] = key, data
    Session.objects.bulk_create(rows, batch_size=500)
    _cache_sessions(datas, expire)
    return users, sessions


def _cache_sessions(sessions: dict[str, dict], expire) -> None:
    """Where the site keeps sessions in its cache too (``LOADTEST_SESSION_CACHE_URL``: the scaled stack's
    ``cached_db`` sessions on Redis), put them there as signing in does (the engine's ``save`` writes the cache
    and the database): a player who opens a table has signed in first, and the handshake finds the session in
    the cache, not only its row (which cost every socket of the load test a cache miss, a database read and a
    cache write that no signed-in player's socket pays). The embedded stack keeps them in the database alone."""
    from django.conf import settings
    from django.contrib.sessions.backends.cached_db import KEY_PREFIX
    from django.utils import timezone

    from ginsite.cache import KeptClientRedisCache

    url = os.environ.get("LOADTEST_SESSION_CACHE_URL")
    if not url:
        return
    cache = KeptClientRedisCache(url, {"KEY_PREFIX": settings.REDIS_PREFIX})  # the site's cache (settings.CACHES)
    seconds = max(1, int((expire - timezone.now()).total_seconds()))
    items = list(sessions.items())
    for start in range(0, len(items), 500):
        cache.set_many({KEY_PREFIX + key: data for key, data in items[start:start + 500]}, seconds)


def seed_tournament(players: int, prefix: str, out: str) -> None:
    """A gin Swiss of ``players`` people, registered and checked in through ``tournaments.services`` as they
    would do it themselves, and a staff member who starts it (a session each). Not started: the load test
    starts it through the staff page while the players' notice sockets are open."""
    _setup()
    from django.utils import timezone

    from tournaments import services

    users, sessions = _people([f"{prefix}{i}" for i in range(players)])
    staff_users, staff_sessions = _people([f"{prefix}staff"], is_staff=True)
    staff = staff_users[f"{prefix}staff"]
    t = services.tournament_create(
        by=staff, name=f"Lasttest {prefix}", game="gin", format="swiss",
        settings={"check_in_minutes": 30, "min_players": 2}, starts_at=timezone.now() + timedelta(minutes=20),
    )
    services.tournament_publish(tournament_id=t.pk, by=staff)
    for name in sorted(users, key=lambda n: int(n[len(prefix):])):
        services.tournament_register(tournament_id=t.pk, user=users[name])
        services.tournament_check_in(tournament_id=t.pk, user=users[name])
    with open(out, "w") as fh:
        json.dump({"tournament": t.pk, "staff": staff_sessions[staff.username],
                   "players": [{"user": users[n].pk, "session": sessions[n]} for n in users]}, fh)


def seed_arena(players: int, prefix: str, minutes: int, out: str) -> None:
    """A gin arena (spec/tournaments.md "Arena") of ``minutes``, published, and ``players`` people with a
    signed-in session each, not yet registered (:func:`register_arena` registers them just before the start:
    registering marks a player present, and presence lasts ``TOURNAMENTS_ARENA_PRESENT_SECONDS``), and a staff
    member who starts it. Its matches are one scored round of gin (``target`` 0), with a turn time the
    scripted players never run out of."""
    _setup()
    from django.utils import timezone

    from tournaments import services

    users, sessions = _people([f"{prefix}{i}" for i in range(players)])
    staff_users, staff_sessions = _people([f"{prefix}staff"], is_staff=True)
    staff = staff_users[f"{prefix}staff"]
    t = services.tournament_create(
        by=staff, name=f"Arena-Lasttest {prefix}", game="gin", format="arena", settings={"minutes": minutes},
        options={"target": 0, **TABLE_OPTIONS}, starts_at=timezone.now() + timedelta(hours=1),
    )
    services.tournament_publish(tournament_id=t.pk, by=staff)
    with open(out, "w") as fh:
        json.dump({"tournament": t.pk, "staff": staff_sessions[staff.username],
                   "players": [{"user": users[n].pk, "session": sessions[n]}
                               for n in sorted(users, key=lambda n: int(n[len(prefix):]))]}, fh)


def register_arena(tournament: int, users: list[int]) -> None:
    """Register ``users`` for the arena ``tournament`` through ``tournaments.services``, as each would."""
    _setup()
    from django.contrib.auth import get_user_model

    from tournaments import services

    for user in get_user_model().objects.filter(pk__in=users).order_by("pk"):
        services.tournament_register(tournament_id=tournament, user=user)


def verify_arena(path: str, out: str) -> None:
    """The arena's records against what the players saw and the referee's passes. ``path`` holds
    ``{"tournament": id, "stop": t, "start_end": t, "passes": [[at, seconds], ...], "told": {user: [[table, at],
    ...]}}`` (wall-clock seconds; ``stop``: when the players stopped playing; ``start_end``: when the staff start
    answered). Written to
    ``out``: tables opened and recorded, every match that ended recorded with a result, nobody at two live
    tables at once, who was paired (at least once, at least twice), tables opened before the stop whose
    players were not both told, tables told that name someone else, the time from a table's opening to its
    players' ``table_ready`` (p50, p99; the start's tables apart), and, over the passes that ended before the
    stop, the most passes in a row a player stayed free while another player stayed free too (a player is free
    from the end of their match, or the arena's start, until the table they are seated at next opens)."""
    _setup()
    from games.models import Match
    from tournaments.models import StageTable, Tournament

    with open(path) as fh:
        record = json.load(fh)
    t = Tournament.objects.get(pk=record["tournament"])
    stop = float(record["stop"])
    rows = list(StageTable.objects.filter(stage__tournament=t).select_related("table__current_match")
                .order_by("table__created_at"))
    players = list(t.entries.values_list("user_id", flat=True))
    report: dict = {"players": len(players), "tables": len(rows), "recorded": 0, "unrecorded": 0,
                    "at_two_tables": 0, "paired": 0, "paired_twice": 0, "not_told": 0, "told_wrong": 0,
                    "passes": 0, "most_passes_free": 0, "longest_free": 0.0, "examples": []}
    # When each player sat down (the table opened) and got up (its end recorded: free from then on).
    spells: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for st in rows:
        table = st.table
        if table is None:
            continue
        opened = table.created_at.timestamp()
        match = table.current_match
        ended = match is not None and match.status != Match.Status.PLAYING
        if st.finished_at is not None:
            report["recorded"] += 1
        if ended and (st.finished_at is None or not st.result):
            report["unrecorded"] += 1
            if len(report["examples"]) < 5:
                report["examples"].append({"unrecorded": st.table_id})
        for u in st.users:
            spells[u].append((opened, st.finished_at.timestamp() if st.finished_at else float("inf")))
    told = {int(u): {int(tid) for tid, _ in items} for u, items in record["told"].items()}
    # From the table's opening (its row written in the pass) to each player's table_ready on their socket.
    opened_at = {st.table_id: st.table.created_at.timestamp() for st in rows if st.table is not None}
    # Apart: the tables the staff start opened (all at once, before its answer) and the referee's passes'.
    start_end = float(record.get("start_end") or 0)
    for name, of_start in (("told_start", True), ("told", False)):
        delays = sorted(at - opened_at[int(tid)] for items in record["told"].values() for tid, at in items
                        if int(tid) in opened_at and (opened_at[int(tid)] <= start_end) == of_start)
        report[f"{name}_p50"] = round(delays[len(delays) // 2], 4) if delays else None
        report[f"{name}_p99"] = round(delays[min(len(delays) - 1, int(0.99 * len(delays)))], 4) if delays else None
    for st in rows:
        if st.table_id is None or st.table.created_at.timestamp() > stop:
            continue
        if not all(st.table_id in told.get(u, ()) for u in st.users):
            report["not_told"] += 1
            if len(report["examples"]) < 5:
                report["examples"].append({"not_told": st.table_id, "users": st.users})
    seated_at = {st.table_id: set(st.users) for st in rows}
    report["told_wrong"] = sum(1 for u, ids in told.items() for tid in ids if u not in seated_at.get(tid, ()))
    for u in players:
        mine = sorted(spells.get(u, []))
        report["paired"] += bool(mine)
        report["paired_twice"] += len(mine) >= 2
        report["at_two_tables"] += any(b[0] < a[1] for a, b in zip(mine, mine[1:], strict=False))
    # Free spells: from the start (or a match's end) to the next table's opening.
    started = t.started_at.timestamp() if t.started_at else stop
    free: dict[int, list[tuple[float, float]]] = {}
    for u in players:
        mine = sorted(spells.get(u, []))
        ends = [started] + [end for _, end in mine]
        opens = [opened for opened, _ in mine] + [float("inf")]
        free[u] = [(a, b) for a, b in zip(ends, opens, strict=True) if a < b]
        for a, b in free[u]:
            report["longest_free"] = max(report["longest_free"], min(b, stop) - a)
    passes = sorted((float(at), float(at) + float(seconds)) for at, seconds in record["passes"]
                    if float(at) + float(seconds) <= stop)
    report["passes"] = len(passes)
    streak: Counter = Counter()
    for begin, end in passes:
        # Free through the pass: free when it began and still free when it ended (it did not seat them).
        through = {u for u, spells_ in free.items() if any(a <= begin and b > end for a, b in spells_)}
        for u in players:
            streak[u] = streak[u] + 1 if u in through and len(through) > 1 else 0
        report["most_passes_free"] = max(report["most_passes_free"], max(streak.values(), default=0))
    report["longest_free"] = round(report["longest_free"], 3)
    with open(out, "w") as fh:
        json.dump(report, fh)


def time_start(players: int, prefix: str) -> float:
    """Seed a tournament of ``players`` and start it in this process: the seconds ``tournament_start`` took
    (its notices go nowhere: no channel layer listens). For measuring the start alone."""
    import time

    _setup()
    path = f"/tmp/{prefix}.json"
    seed_tournament(players, prefix, path)
    from django.contrib.auth import get_user_model

    from tournaments import services

    with open(path) as fh:
        info = json.load(fh)
    staff = get_user_model().objects.get(username=f"{prefix}staff")
    started = time.perf_counter()
    services.tournament_start(tournament_id=info["tournament"], by=staff)
    return time.perf_counter() - started


def verify(path: str, out: str) -> None:
    """Compare the clients' record with the database. The record: ``{"tables": {id: {"moves": [[version,
    seat, action], ...], "sent": [[version, seat, action], ...], "last_seen": n}}}``; ``moves`` are the moves
    both seats saw applied (at ``version``, the table's version after the move), ``sent`` every move sent."""
    _setup()
    from games.models import Move, Table

    with open(path) as fh:
        record = json.load(fh)["tables"]
    ids = [int(t) for t in record]
    logged: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    for row in Move.objects.filter(table_id__in=ids).values("table_id", "version", "seat", "action", "by"):
        logged[row["table_id"]].append(
            (row["version"], row["seat"], json.dumps(row["action"], sort_keys=True), row["by"])
        )
    versions = dict(Table.objects.filter(pk__in=ids).values_list("pk", "version"))
    report = {"tables": len(ids), "logged": 0, "seen": 0, "lost": 0, "twice": 0, "unknown": 0,
              "not_player": 0, "behind": 0, "examples": []}
    for tid in ids:
        entry = record[str(tid)]
        seen = {(v, s, json.dumps(a, sort_keys=True)) for v, s, a in entry["moves"]}
        sent = Counter((v + 1, s, json.dumps(a, sort_keys=True)) for v, s, a in entry["sent"])
        rows = logged.get(tid, [])
        report["logged"] += len(rows)
        report["seen"] += len(seen)
        by_version = Counter(v for v, _, _, _ in rows)
        report["twice"] += sum(n - 1 for n in by_version.values() if n > 1)
        keys = {(v, s, a) for v, s, a, _ in rows}
        lost = seen - keys
        report["lost"] += len(lost)
        # A move the referee played (a turn that timed out where nobody was connected) was sent by no client
        # and is counted apart (``not_player``); a player's move that no client sent is what is unknown.
        unknown = [(v, s, a) for v, s, a, by in rows if by == "player" and (v, s, a) not in sent]
        report["unknown"] += len(unknown)
        report["not_player"] += sum(1 for *_, by in rows if by != "player")
        # Every socket's last frame must be the table's version now: no change that never reached it.
        if entry.get("last_seen") is not None and entry["last_seen"] != versions.get(tid):
            report["behind"] += 1
            if len(report["examples"]) < 5:
                report["examples"].append({"table": tid, "last_seen": entry["last_seen"], "db": versions.get(tid)})
        for k in list(lost)[:2] + unknown[:2]:
            if len(report["examples"]) < 5:
                report["examples"].append({"table": tid, "move": k})
    with open(out, "w") as fh:
        json.dump(report, fh)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "seed":
        seed(int(args[0]), args[1], args[2])
    elif command == "seed_tournament":
        seed_tournament(int(args[0]), args[1], args[2])
    elif command == "time_start":
        print(f"tournament_start: {time_start(int(args[0]), args[1]):.2f} s")
    elif command == "seed_arena":
        seed_arena(int(args[0]), args[1], int(args[2]), args[3])
    elif command == "register_arena":
        with open(args[1]) as fh:
            register_arena(int(args[0]), json.load(fh))
    elif command == "verify_arena":
        verify_arena(args[0], args[1])
    elif command == "verify":
        verify(args[0], args[1])
    else:
        raise SystemExit(f"unknown command {command!r} (seed, verify)")
