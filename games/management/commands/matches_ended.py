"""The catch-up for the end-of-match announcement: lists ended matches whose ``match_ended`` was not
confirmed (a process killed between the commit and the listeners, or a listener that failed), and with
``--announce`` sends it again. Listeners are idempotent, so announcing twice changes nothing. Every referee's
clock does the same by itself (``games.services.ending.matches_catch_up``); this is the look by hand."""

from django.core.management.base import BaseCommand

from games.services import match_announce, matches_unannounced


class Command(BaseCommand):
    help = "Listet beendete Partien ohne bestätigte Ende-Meldung; --announce meldet sie erneut."

    def add_arguments(self, parser):
        parser.add_argument("--announce", action="store_true", help="send match_ended again for each")
        parser.add_argument(
            "--older-than", type=float, default=60.0, metavar="SECONDS",
            help="only matches that ended at least this long ago (default 60: leave fresh ones to their own "
                 "after-commit announcement)",
        )
        parser.add_argument("--limit", type=int, default=1000)

    def handle(self, *args, announce: bool = False, older_than: float = 60.0, limit: int = 1000, **options):
        matches = list(matches_unannounced(older_than_seconds=older_than)[:limit])
        announced = 0
        for match in matches:
            line = f"match {match.pk} table {match.table_id} {match.game} ended {match.ending} at {match.finished_at:%Y-%m-%d %H:%M:%S}"
            if announce:
                ok = match_announce(match_id=match.pk, how=match.ending)
                announced += ok
                line += " announced" if ok else " FAILED (a listener raised; see the log)"
            self.stdout.write(line)
        summary = f"{len(matches)} unannounced"
        if announce:
            summary += f", {announced} announced now"
        self.stdout.write(summary)
