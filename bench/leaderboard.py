"""Leaderboard benchmark: the ``/bestenliste/`` page at size, answered through Django's test Client (the
whole view, template and middleware; no network), warm, as p50 / p95 / max in milliseconds and queries per
page. Goal: p95 under 50 ms with 100,000 players and 1,000,000 rated matches.

Run ``make bench-leaderboard`` (an SQLite file in artifacts/, seeded once with ``manage.py ratings_seed``), or
against any database with ``DATABASE_URL=... .venv/bin/python -m bench.leaderboard``. Figures, no pass/fail.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")
    import django

    django.setup()


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def measure(client, url: str, *, warm: int, runs: int) -> tuple[list[float], int]:
    from django.db import connection

    for _ in range(warm):
        assert client.get(url).status_code == 200
    queries = []
    with connection.execute_wrapper(lambda execute, sql, *rest: queries.append(sql) or execute(sql, *rest)):
        client.get(url)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200
    return times, len(queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed-users", type=int, default=100_000, help="seed this many users if the database has none")
    parser.add_argument("--seed-matches", type=int, default=1_000_000)
    parser.add_argument("--warm", type=int, default=20)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--keep-connection", action="store_true",
                        help="reuse one database connection across requests (the site opens one per request)")
    args = parser.parse_args()
    _setup()
    if args.keep_connection:
        from django.conf import settings

        settings.DATABASES["default"]["CONN_MAX_AGE"] = None

    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.urls import reverse
    from django.utils import timezone

    from ratings.models import Rating, RatingChange
    from ratings.selectors import ACTIVE_DAYS

    if not get_user_model().objects.filter(username__startswith="seed").exists():
        print(f"seeding {args.seed_users} users and {args.seed_matches} matches (once) ...", flush=True)
        call_command("ratings_seed", users=args.seed_users, matches=args.seed_matches)

    users = get_user_model().objects.count()
    changes = RatingChange.objects.count()
    cutoff = timezone.now() - timezone.timedelta(days=ACTIVE_DAYS)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          f"{'one connection kept' if args.keep_connection else 'a new database connection per page, as the site runs'}")
    print(f"database: {connection.vendor}; {users} users, {Rating.objects.count()} ratings, {changes} rating changes")
    for game in ("gin", "romme"):
        listed = Rating.objects.filter(game=game, matches__gte=10, last_rated_at__gte=cutoff).count()
        print(f"  {game}: {listed} players on the leaderboard")

    # Someone far down the gin board (their own place is counted), and someone in its top 100.
    eligible = Rating.objects.filter(game="gin", matches__gte=10, last_rated_at__gte=cutoff)
    low = eligible.order_by("display").select_related("user").first()
    high = eligible.order_by("-display").select_related("user").first()
    anonymous = Client()
    scenarios = [
        ("gin, signed out", anonymous, reverse("leaderboard")),
        ("romme, signed out", anonymous, reverse("leaderboard_game", args=["romme"])),
    ]
    # The public API's leaderboard (/api/v1/leaderboards/...): its first page, a middle one and its last (each
    # page one offset query). The limit per address is lifted for the run: this measures the board, not the 429.
    from django.conf import settings

    from api.api import PER_PAGE

    settings.API_RATE_LIMIT = 10**9
    pages = max(1, -(-Rating.objects.filter(game="gin", matches__gte=10, last_rated_at__gte=cutoff).count() // PER_PAGE))
    scenarios += [
        (f"api gin, page {page}", anonymous, f"/api/v1/leaderboards/gin?page={page}")
        for page in sorted({1, max(1, pages // 2), pages})
    ]
    if low is not None:
        far = Client()
        far.force_login(low.user)
        near = Client()
        near.force_login(high.user)
        scenarios += [
            ("gin, signed in far below the top 100", far, reverse("leaderboard")),
            ("gin, signed in within the top 100", near, reverse("leaderboard")),
        ]
    print(f"\n{'page':42} {'p50':>8} {'p95':>8} {'max':>8} {'queries':>8}   ({args.runs} runs, {args.warm} warm-up)")
    for name, client, url in scenarios:
        times, queries = measure(client, url, warm=args.warm, runs=args.runs)
        print(f"{name:42} {statistics.median(times):7.1f}ms {_percentile(times, 0.95):7.1f}ms "
              f"{max(times):7.1f}ms {queries:8}")
    print(f"\ngoal: p95 < 50 ms (load average now {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
