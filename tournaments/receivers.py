"""Where tournaments hang on the games app: the end of a match records a tournament table's result (and
may start the next stage at once), and each referee pass looks at the tournaments' clock."""

from __future__ import annotations

from django.dispatch import receiver

from games.signals import match_ended, referee_tick
from tournaments import services


@receiver(match_ended, dispatch_uid="tournaments.record_match")
def record_match(sender, match_id, how, **kwargs) -> None:
    # Synchronous on purpose: with break_minutes 0 the next stage's tables exist when the call that
    # ended the last table returns. Idempotent: a repeated announcement records nothing new.
    services.match_recorded(match_id=match_id)


@receiver(referee_tick, dispatch_uid="tournaments.clock")
def clock(sender, **kwargs) -> None:
    services.tournaments_tick()
