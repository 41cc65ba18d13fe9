"""What ranked play hangs on other apps' signals: a match's end rates it, the referee's loop pairs the pool,
a deleted account leaves the pool and the leaderboards. Connected in ``RatingsConfig.ready``."""

from __future__ import annotations

from django.dispatch import receiver

from accounts.protocols import Person
from accounts.signals import account_deleted
from games.signals import match_ended, referee_tick
from ratings import pool, services
from ratings.models import PoolEntry, Rating


@receiver(match_ended, dispatch_uid="ratings.rate_ended_match")
def rate_ended_match(sender: object, match_id: int, how: str, **kwargs: object) -> None:
    # Aborted matches are never rated; everything else is judged by the match row itself (ranked, people).
    if how == "aborted":
        return
    services.match_ended_rate(match_id=match_id)


@receiver(referee_tick, dispatch_uid="ratings.pair_pool")
def pair_pool(sender: object, **kwargs: object) -> None:
    pool.pool_pair_all()


@receiver(account_deleted, dispatch_uid="ratings.forget_deleted_account")
def forget_deleted_account(sender: object, user: Person, **kwargs: object) -> None:
    # Their rating changes stay (opponents' histories and match pages show them); the name is gone, so the
    # leaderboards and the pool drop them.
    PoolEntry.objects.filter(user_id=user.pk).delete()
    Rating.objects.filter(user_id=user.pk).delete()
