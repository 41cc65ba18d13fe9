"""``manage.py analyse``: the post-match analysis of finished matches, in this process (off the site's live path).

``manage.py analyse 12 15`` analyses those matches (again, if they have one); without ids it analyses the
matches that wait for one (finished, a person seated, no analysis yet; ``--days`` back, newest first, at most
``--limit``; one a referee is computing is left to it). ``--seconds``: each decision's wall-clock budget
(default ``GAMES_ANALYSIS_SECONDS``, or 0.5 when that is 0); a match takes at most
``games.analysis.MATCH_SECONDS`` whatever the budget.
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from games.models import Match
from games.services import analysis


class Command(BaseCommand):
    help = "Analyse finished matches: each person's decisions against the expert's, with the cost in points."

    def add_arguments(self, parser):
        parser.add_argument("match_ids", nargs="*", type=int, help="matches to analyse (default: those waiting)")
        parser.add_argument("--seconds", type=float, default=None, help="wall-clock budget of one decision")
        parser.add_argument("--limit", type=int, default=100, help="matches at most, without ids")
        parser.add_argument("--days", type=int, default=analysis.RECENT_DAYS, help="how far back, without ids")

    def handle(self, *args, match_ids: list[int], seconds: float | None, limit: int, days: int, **options):
        budget = seconds if seconds is not None else (float(settings.GAMES_ANALYSIS_SECONDS) or 0.5)
        if budget <= 0:
            raise CommandError("--seconds must be more than 0")
        if match_ids:
            matches = list(Match.objects.filter(pk__in=match_ids).order_by("pk"))
            missing = set(match_ids) - {m.pk for m in matches}
            if missing:
                raise CommandError(f"no match {', '.join(map(str, sorted(missing)))}")
        else:
            matches = analysis.pending(limit=limit, recent_days=days)
        for match in matches:
            if not match_ids and not analysis.claim(match.pk):
                continue  # a referee took it since (games.services.analysis.claim)
            try:
                row = analysis.analyse_match(match, seconds=budget)
            except ValueError as exc:
                self.stderr.write(str(exc))
                continue
            if row.error:
                self.stderr.write(f"match {match.pk}: the analysis failed: {row.error}")
                continue
            data = row.data or {}
            seats = ", ".join(f"seat {seat}: {s['accuracy']} % of {s['decisions']}" for seat, s in data["seats"].items())
            self.stdout.write(f"match {match.pk}: {len(data['decisions'])} decisions in {data['seconds']} s ({seats})")
