"""Where tournaments hang on the games app: the end of a match records a tournament table's result (and
may start the next stage at once), and each referee pass looks at the tournaments' clock."""

from __future__ import annotations

from django.dispatch import receiver

from games.signals import match_ended, referee_tick
from tournaments import services


@receiver(match_ended, dispatch_uid="tournaments.record_match")
def record_match(sender: object, match_id: int, how: str, **kwargs: object) -> None:
    # Runs after ratings (settings.GAMES_MATCH_ENDED_ORDER: seeding reads ratings) and after the last
    # move's frames are out; with break_minutes 0 it starts the next stage at once. Idempotent: a repeated
    # announcement (the clock's catch-up) records nothing new.
    services.match_recorded(match_id=match_id)


@receiver(referee_tick, dispatch_uid="tournaments.clock")
def clock(sender: object, **kwargs: object) -> None:
    services.tournaments_tick()
