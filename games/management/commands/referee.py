"""The referee: keeps time for every table. It plays the timeout move of overdue turns, deals the next round
when a break ends, and plays computer players' moves once their pause is over, all through the services.
Several referees may run at once; each change is applied exactly once."""

import time

from django.core.management.base import BaseCommand
from django.db import close_old_connections

from games.services import referee_pass


class Command(BaseCommand):
    help = "Spielt Zeitüberschreitungen und Computerzüge aus (Schleife; --once für einen Durchgang)."

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="one pass, then exit")
        parser.add_argument("--interval", type=float, default=0.5, help="seconds between passes (default 0.5)")

    def handle(self, *args, once: bool = False, interval: float = 0.5, **options):
        while True:
            played = referee_pass()
            if once:
                self.stdout.write(f"{played} played")
                return
            if not played:
                time.sleep(interval)
            # A long-running loop must not hold on to a connection the database has dropped.
            close_old_connections()
