"""The read replica (ginsite/routers.py): with ``DATABASE_REPLICA_URL`` the leaderboard's and the profiles'
reads go to the ``replica`` alias, every write and every other read to ``default``.

Two SQLite files stand for the primary and its replica: the replica is a copy of the primary taken after a
first player was rated, so a player rated after the copy is on the primary only, as on a replica a moment
behind. Which one a page read is shown twice: by the queries each connection ran, and by what the page
shows. Run in a fresh process, since the replica alias exists only when the variable is set at start.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

RATE = """
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.utils import timezone
from ratings.models import PROVISIONAL_MATCHES, Rating
def rate(name, display):
    user = get_user_model().objects.create_user(name, f"{name}@example.invalid", "pw-123456789")
    Rating.objects.create(user=user, game="gin", display=display, matches=PROVISIONAL_MATCHES + 5, wins=3,
                          established=True, last_rated_at=timezone.now() - timedelta(hours=1),
                          reached_at=timezone.now() - timedelta(hours=2))
"""

BEFORE_COPY = RATE + """
rate("alt_spieler", 1700)
print("OUT {}")
"""

WITH_REPLICA = RATE + """
import json
from django.db import connections, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from ginsite.routers import reading_from_replica
from ratings import selectors

def run(action):
    with CaptureQueriesContext(connections["default"]) as on_default, \\
         CaptureQueriesContext(connections["replica"]) as on_replica:
        result = action()
    return result, [q["sql"] for q in on_default.captured_queries], [q["sql"] for q in on_replica.captured_queries]

out = {"aliases": sorted(connections.settings)}
_, out["write_default"], out["write_replica"] = run(lambda: rate("neu_spieler", 1800))
page, out["board_default"], out["board_replica"] = run(lambda: Client().get("/bestenliste/gin/"))
out["board_status"] = page.status_code
out["board_html"] = page.content.decode()
page, out["profile_default"], out["profile_replica"] = run(lambda: Client().get("/profil/spieler/alt_spieler/"))
out["profile_status"] = page.status_code
# The same selector called anywhere else reads the primary.
board, out["plain_default"], out["plain_replica"] = run(lambda: selectors.leaderboard(game="gin"))
out["plain_names"] = [row["username"] for row in board["rows"]]
# Inside a transaction the reads stay with its writes, even where the replica is asked for.
def in_transaction():
    with reading_from_replica(), transaction.atomic():
        return [row["username"] for row in selectors.leaderboard(game="gin")["rows"]]
out["atomic_names"], out["atomic_default"], out["atomic_replica"] = run(in_transaction)
print("OUT " + json.dumps(out))
"""


def _python(code: str, **env: str) -> dict:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("DATABASE_URL", "SQLITE_PATH", "REDIS_URL", "DATABASE_REPLICA_URL")
                   and not k.startswith("GAMES_TEST_")}
    environment.update(DJANGO_SETTINGS_MODULE="ginsite.settings", DEBUG="1", **env)
    done = subprocess.run([sys.executable, "-c", "import django; django.setup()\n" + code], cwd=ROOT,
                          env=environment, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("OUT "))
    return json.loads(line[4:])


def _migrate(url: str) -> None:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("DATABASE_URL", "SQLITE_PATH", "REDIS_URL", "DATABASE_REPLICA_URL")}
    environment.update(DJANGO_SETTINGS_MODULE="ginsite.settings", DATABASE_URL=url)
    for command in (["migrate", "--noinput", "-v", "0"], ["createcachetable"]):
        done = subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=environment,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr


def _touches(queries: list[str], table: str) -> bool:
    return any(table in sql for sql in queries)


def test_leaderboard_and_profile_read_the_replica_and_writes_go_to_default(tmp_path):
    primary, replica = tmp_path / "primary.sqlite3", tmp_path / "replica.sqlite3"
    _migrate(f"sqlite:///{primary}")
    _python(BEFORE_COPY, DATABASE_URL=f"sqlite:///{primary}")
    shutil.copyfile(primary, replica)  # the process has ended: its write-ahead log is checkpointed
    out = _python(WITH_REPLICA, DATABASE_URL=f"sqlite:///{primary}", DATABASE_REPLICA_URL=f"sqlite:///{replica}")
    assert out["aliases"] == ["default", "replica"]

    # A write goes to default only.
    assert _touches(out["write_default"], "ratings_rating") and out["write_replica"] == []

    # The leaderboard page reads the ratings from the replica, which does not have the newest player yet.
    assert out["board_status"] == 200
    assert _touches(out["board_replica"], "ratings_rating")
    assert not _touches(out["board_default"], "ratings_rating")
    assert "alt_spieler" in out["board_html"] and "neu_spieler" not in out["board_html"]

    # The profile page reads its rating panels there too; the user it shows is looked up on default.
    assert out["profile_status"] == 200
    assert _touches(out["profile_replica"], "ratings_rating")
    assert not _touches(out["profile_default"], "ratings_rating")
    assert _touches(out["profile_default"], "auth_user") and not _touches(out["profile_replica"], "auth_user")

    # Anywhere else the same selector reads the primary, and so does any read inside a transaction.
    assert out["plain_replica"] == [] and out["plain_names"] == ["neu_spieler", "alt_spieler"]
    assert out["atomic_replica"] == [] and out["atomic_names"] == ["neu_spieler", "alt_spieler"]


def test_without_a_replica_every_query_goes_to_default(tmp_path):
    primary = tmp_path / "primary.sqlite3"
    _migrate(f"sqlite:///{primary}")
    out = _python("""
import json
from django.conf import settings
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.db import connections
with CaptureQueriesContext(connections["default"]) as on_default:
    status = Client().get("/bestenliste/gin/").status_code
print("OUT " + json.dumps({"aliases": sorted(settings.DATABASES), "status": status,
                           "rating_reads": sum("ratings_rating" in q["sql"] for q in on_default.captured_queries)}))
""", DATABASE_URL=f"sqlite:///{primary}")
    assert out["aliases"] == ["default"] and out["status"] == 200
    assert out["rating_reads"] >= 1  # the page read the ratings, from the only database there is
