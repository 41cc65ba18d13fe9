"""Seed a database with many players and rated matches, to measure the leaderboards at size.

``manage.py ratings_seed --users 100000 --matches 1000000`` makes the users (with profiles), finished ranked
tables and matches, every match's ``RatingChange`` rows and everyone's final ``Rating``. The matches are not
played card by card: each is a result drawn from hidden strengths (the stronger player wins more often),
spread over the last ``--days`` days, rated in the order they end by the same openskill model and the same
places as live play (``ratings.services``), and written with ``bulk_create`` in batches. Seeded rows are
marked (user names start with ``--prefix``, tables have preset "seed") so ``--clear`` removes them again.
"""

from __future__ import annotations

import random
import time
from datetime import timedelta
from typing import cast

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.core.management.color import no_style
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import Profile
from games import registry
from games.models import Game, Match, Table
from ratings.models import DEFAULT_MU, DEFAULT_SIGMA, PROVISIONAL_MATCHES, Rating, RatingChange, wertungszahl
from ratings.services import MODEL, seat_places

SEED_PRESET = "seed"
MATCHES_PER_TABLE = 1000


class Command(BaseCommand):
    help = "Legt viele Spieler und gewertete Partien an (für die Messung der Bestenliste)."

    def add_arguments(self, parser):
        parser.add_argument("--users", type=int, default=1000)
        parser.add_argument("--matches", type=int, default=10000)
        parser.add_argument("--days", type=int, default=60, help="spread the matches over this many days")
        parser.add_argument("--romme-share", type=float, default=0.2, help="share of Rommé lists (3–4 players)")
        parser.add_argument("--batch", type=int, default=20000, help="matches per bulk write")
        parser.add_argument("--prefix", default="seed")
        parser.add_argument("--seed", type=int, default=12)
        parser.add_argument("--clear", action="store_true", help="remove earlier seeded rows first")

    def handle(self, *args, users: int, matches: int, days: int, romme_share: float, batch: int, prefix: str,
               seed: int, clear: bool, **options):
        User = get_user_model()
        if clear:
            self._clear(prefix)
        if User.objects.filter(username__startswith=prefix).exists():
            raise CommandError(f"seeded users ({prefix}…) exist already; --clear removes them first")
        if connection.vendor == "sqlite" and not connection.in_atomic_block:
            # A bulk load: a big page cache keeps the indexes' B-trees in memory; a crash mid-seed only
            # loses seeded rows, so the file need not be synced after every batch.
            with connection.cursor() as cursor:
                cursor.execute("PRAGMA cache_size = -524288")  # 512 MB
                cursor.execute("PRAGMA synchronous = OFF")
                cursor.execute("PRAGMA temp_store = MEMORY")
        rng = random.Random(seed)
        started = time.perf_counter()
        user_ids = self._users(User, users, prefix)
        self.stdout.write(f"{len(user_ids)} users in {time.perf_counter() - started:.1f} s")

        # Hidden strength per player, and how often each plays (a few play a lot, many rarely).
        strength = {uid: rng.gauss(0, 1) for uid in user_ids}
        weights = [rng.paretovariate(1.3) for _ in user_ids]
        now = timezone.now()
        span = timedelta(days=days).total_seconds()
        ratings: dict[tuple[int, str], list] = {}  # (user, game) -> [mu, sigma, display, matches, wins, last, reached]
        next_match = (Match.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1
        next_change = (RatingChange.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1
        done = 0
        tables: dict[str, Table] = {}
        numbers: dict[str, int] = {}
        while done < matches:
            count = min(batch, matches - done)
            match_rows, change_rows = [], []
            draws = rng.choices(user_ids, weights=weights, k=count * 4)
            for i in range(count):
                index = done + i
                finished_at = now - timedelta(seconds=span * (1 - (index + 1) / matches))
                game = Game.ROMME if rng.random() < romme_share else Game.GIN
                entry = registry.get(game)
                low, high = entry.seats
                # Seeded Rommé lists have 3 or 4 players, as the pool seats them most often.
                size = low if low == high else rng.choice((3, 4))
                seated = list(dict.fromkeys(draws[i * 4: i * 4 + size]))
                while len(seated) < size:
                    extra = rng.choice(user_ids)
                    if extra not in seated:
                        seated.append(extra)
                # Results from hidden strengths with noise: lower score, better place.
                scores = [-(strength[uid] + rng.gauss(0, 1.2)) for uid in seated]
                places = [1 + sum(1 for other in scores if other < mine) for mine in scores]
                left_seats = [seat for seat in range(size) if rng.random() < 0.02]
                places = seat_places(places=places, left_seats=left_seats)
                table = self._table(game, tables, numbers)
                numbers[game] += 1
                match = Match(
                    pk=next_match, table=table, number=numbers[game], game=game, ranked=True,
                    players=[{"seat": s, "user_id": uid, "name": f"{prefix}{uid}", "bot": ""} for s, uid in enumerate(seated)],
                    status=Match.Status.FINISHED, finished_at=finished_at, announced_at=finished_at,
                    result={"winner": places.index(1) if places.count(1) == 1 else None, "places": places, "seeded": True},
                    left_seats=left_seats, ending=Match.Ending.RESIGNED if left_seats else Match.Ending.FINISHED,
                )
                match_rows.append(match)
                befores = [ratings.setdefault((uid, game), [DEFAULT_MU, DEFAULT_SIGMA, wertungszahl(DEFAULT_MU), 0, 0, None, None])
                           for uid in seated]
                teams = [[MODEL.create_rating([before[0], before[1]])] for before in befores]
                rated = MODEL.rate(teams, ranks=cast(list[float], places))
                for seat, (uid, before, team) in enumerate(zip(seated, befores, rated, strict=True)):
                    after = team[0]
                    display = wertungszahl(after.mu)
                    change_rows.append(RatingChange(
                        pk=next_change, match_id=next_match, user_id=uid, game=game, place=places[seat],
                        left=seat in left_seats, mu_before=before[0], sigma_before=before[1], display_before=before[2],
                        mu_after=after.mu, sigma_after=after.sigma, display_after=display, created_at=finished_at,
                    ))
                    next_change += 1
                    if display != before[2] or before[6] is None:
                        before[6] = finished_at
                    before[0], before[1], before[2] = after.mu, after.sigma, display
                    before[3] += 1
                    won = seat not in left_seats and entry.won(cast(dict, match.result), seat, places[seat])
                    before[4] += won
                    before[5] = finished_at
                next_match += 1
            with transaction.atomic():
                Match.objects.bulk_create(match_rows, batch_size=2000)
                RatingChange.objects.bulk_create(change_rows, batch_size=5000)
            done += count
            self.stdout.write(f"{done} matches, {next_change - 1} rating changes in {time.perf_counter() - started:.0f} s")

        with transaction.atomic():
            Rating.objects.bulk_create(
                [Rating(user_id=uid, game=game, mu=v[0], sigma=v[1], display=v[2], matches=v[3], wins=v[4],
                        established=v[3] >= PROVISIONAL_MATCHES,
                        last_rated_at=v[5], reached_at=v[6]) for (uid, game), v in ratings.items()],
                batch_size=5000,
            )
        self._reset_sequences()
        listed = sum(1 for v in ratings.values() if v[3] >= PROVISIONAL_MATCHES)
        self.stdout.write(self.style.SUCCESS(
            f"seeded {len(user_ids)} users, {matches} matches, {next_change - 1} rating changes, {len(ratings)} ratings "
            f"({listed} with {PROVISIONAL_MATCHES}+ matches) in {time.perf_counter() - started:.0f} s"
        ))

    def _users(self, User, count: int, prefix: str) -> list[int]:
        width = len(str(count))
        joined = timezone.now() - timedelta(days=365)
        for start in range(0, count, 20000):
            with transaction.atomic():
                User.objects.bulk_create(
                    [User(username=f"{prefix}{n:0{width}}", email=f"{prefix}{n}@example.org", password="!",
                          date_joined=joined) for n in range(start, min(count, start + 20000))],
                    batch_size=5000,
                )
        ids = list(User.objects.filter(username__startswith=prefix).order_by("pk").values_list("pk", flat=True))
        for start in range(0, len(ids), 20000):
            with transaction.atomic():
                Profile.objects.bulk_create(
                    [Profile(user_id=uid, display_name=f"Spieler {uid}" if uid % 3 else "") for uid in ids[start:start + 20000]],
                    batch_size=5000, ignore_conflicts=True,
                )
        return ids

    def _table(self, game: str, tables: dict, numbers: dict) -> Table:
        table = tables.get(game)
        if table is None or numbers[game] >= MATCHES_PER_TABLE:
            table = Table.objects.create(game=game, preset=SEED_PRESET, seat_count=registry.get(game).default_seats,
                                         ranked=True, status=Table.Status.FINISHED)
            tables[game] = table
            numbers[game] = 0
        return table

    def _reset_sequences(self) -> None:
        # Rows were written with explicit ids: PostgreSQL's sequences must learn where they stand.
        statements = connection.ops.sequence_reset_sql(no_style(), [Match, RatingChange])
        if statements:
            with connection.cursor() as cursor:
                for sql in statements:
                    cursor.execute(sql)

    def _clear(self, prefix: str) -> None:
        # Millions of rows: deleted with plain DELETE statements, not through the ORM's cascade collector.
        User = get_user_model()
        started = time.perf_counter()
        seeded_tables = Table.objects.filter(preset=SEED_PRESET)
        RatingChange.objects.filter(match__table__in=seeded_tables)._raw_delete(RatingChange.objects.db)
        Match.objects.filter(table__in=seeded_tables)._raw_delete(Match.objects.db)
        seeded_tables.delete()
        seeded_users = User.objects.filter(username__startswith=prefix)
        Rating.objects.filter(user__in=seeded_users)._raw_delete(Rating.objects.db)
        Profile.objects.filter(user__in=seeded_users)._raw_delete(Profile.objects.db)
        seeded_users._raw_delete(User.objects.db)
        self.stdout.write(f"cleared earlier seeded rows in {time.perf_counter() - started:.1f} s")
