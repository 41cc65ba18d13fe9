"""The signals the games app sends for other apps to hang their work on.

``match_ended`` is sent once a match's end is committed (from ``transaction.on_commit``), never inside the
transaction, so a listener's failure can never undo the last move. Listeners (ratings, tournaments) must be
idempotent: the catch-up command ``manage.py matches_ended --announce`` sends it again for ended matches
whose announcement was not confirmed.
"""

from django.dispatch import Signal

#: Sent with ``match_id`` (int) and ``how`` (one of ``games.models.Match.Ending``: "finished", "resigned",
#: "timeouts", "aborted"). ``sender`` is ``games.models.Match``.
match_ended = Signal()
