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

#: Sent by the referee after each of its passes (no arguments but ``sender``, the referee's function), so
#: other apps can do their timed work in the referee's loop (the ranked pool's pairing, a tournament's next
#: stage) without the games app knowing them. Listeners must be quick, idempotent and safe to run in several
#: referees at once.
referee_tick = Signal()
