"""The referee: keeps time for every table. It plays the timeout move of overdue turns, deals the next round
when a break ends, and plays computer players' moves once their pause is over, all through the services.
Several referees may run at once; each change is applied exactly once.

With Redis (``REDIS_URL``) this command is the referee: run one or more beside the web processes. Without
Redis the channel layer is in memory, so a referee process could not reach the sockets; the referee then runs
inside the daphne process (games/web/timekeeper.py) and this command, looping, says so and exits (``--once``
still plays one pass, and ``--force`` loops anyway, e.g. for a site that polls).

Like the referee inside daphne, every pass also ticks the other clocks (``games.web.timekeeper.clock_tick``: the
catch-up of lost match-end announcements and ``games.signals.referee_tick``), at most once every
``GAMES_TICK_SECONDS``; ``--once`` ticks once (without the post-match analysis's hand-over: that needs a
process that stays). Looping, computer players that search think in a worker process
(``games.thinking``), so one table's search never holds up another table's move."""

import logging
import time

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import DatabaseError, close_old_connections

from games.services import referee_pass
from games.thinking import Thinker
from games.web import timekeeper

logger = logging.getLogger(__name__)


class Command(BaseCommand):
    help = "Spielt Zeitüberschreitungen und Computerzüge aus (Schleife; --once für einen Durchgang)."
    # No system checks at start-up: a referee (re)started beside the web processes should keep time at once,
    # and the checks (the URL conf, the models, the settings) run in ``manage.py check`` and ``migrate``.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="one pass, then exit")
        parser.add_argument("--interval", type=float, default=0.5, help="seconds between passes (default 0.5)")
        parser.add_argument("--force", action="store_true",
                            help="loop even when the referee runs inside the web process (no Redis)")

    def handle(self, *args, once: bool = False, interval: float = 0.5, force: bool = False, **options):
        if not once and not force and timekeeper.wanted():
            self.stdout.write(
                "Ohne Redis läuft der Schiedsrichter im daphne-Prozess (GAMES_REFEREE_IN_PROCESS); "
                "hier ist nichts zu tun. (--force: trotzdem laufen.)"
            )
            return
        next_tick = time.monotonic()
        # Looping, searching bots think in a worker process, off the pass; --once plays them in the pass.
        thinker = None if once else Thinker(float(settings.GAMES_BOT_THINK_SECONDS))
        while True:
            try:
                played = referee_pass(thinker=thinker)
            except DatabaseError:
                if once:
                    raise
                # The database is away (a restart, a failover): wait and try again rather than stop keeping time.
                logger.exception("referee pass failed")
                played = 0
            if once or time.monotonic() >= next_tick:
                next_tick = time.monotonic() + timekeeper.tick_every()
                # --once: no analysis (its worker process would end with this one, the match claimed for nothing).
                timekeeper.clock_tick(analyse=not once)
            if once:
                self.stdout.write(f"{played} played")
                return
            if not played:
                if thinker is not None:
                    thinker.wait(interval)
                else:
                    time.sleep(interval)
            # A long-running loop must not hold on to a connection the database has dropped.
            close_old_connections()
