"""Every write of live play, one module per domain, as Zulip's ``zerver/actions/``:

- ``tables``: open tables (from presets, or with the seats given, one or a whole stage's at once), take and
  give up seats, computer players, start;
- ``play``: moves, "ready" between rounds, resign, abort, rematch, and the staff's steps;
- ``referee``: timeout moves, the next deal after a break, computer players' moves;
- ``chat``: table chat;
- ``ending``: the one end of every match, announced after commit (``games.signals.match_ended``).

Each public function runs in one transaction with the table row locked (``select_for_update``; on SQLite
the IMMEDIATE transaction takes the write lock at BEGIN instead), checks seat, turn and version, applies the
engine, appends to the move log, bumps the version and schedules the fan-out for after the commit. Any
refusal raises :class:`ServiceError` before anything is written, so nothing changes on an error.

Callers write ``from games import services`` and call ``services.move_apply(...)``; the modules are the
code's layout, not a second way in.
"""

from games.services._common import (
    ACTION_MAX_BYTES,
    ServiceError,
    TablePolicy,
    deal_hash,
    ranked_seat_guard_add,
    table_policy,
)
from games.services._course import ROUND_BREAK_SECONDS
from games.services.chat import CHAT_MAX_LENGTH, CHAT_RATE_COUNT, CHAT_RATE_SECONDS, chat_post
from games.services.ending import match_announce, match_end, matches_unannounced
from games.services.play import (
    LATE_GRACE_SECONDS,
    match_abort,
    match_rematch,
    match_resign,
    move_apply,
    round_ready,
    seat_remove,
    table_close,
)
from games.services.referee import TIMEOUTS_TO_LEAVE, bot_move, referee_pass, seat_timeout_move, turn_timeout
from games.services.tables import (
    SeatedTable,
    table_create,
    table_create_seated,
    table_fill_with_bots,
    table_join,
    table_leave,
    table_start,
    tables_create_seated_many,
)

__all__ = [
    "ACTION_MAX_BYTES", "CHAT_MAX_LENGTH", "CHAT_RATE_COUNT", "CHAT_RATE_SECONDS",
    "LATE_GRACE_SECONDS", "ROUND_BREAK_SECONDS", "TIMEOUTS_TO_LEAVE", "SeatedTable", "ServiceError", "TablePolicy",
    "bot_move", "chat_post", "deal_hash", "match_abort", "match_announce", "match_end", "match_rematch",
    "match_resign", "matches_unannounced", "move_apply", "ranked_seat_guard_add", "referee_pass", "round_ready", "seat_remove",
    "seat_timeout_move", "table_close", "table_create", "table_create_seated", "table_fill_with_bots",
    "table_join", "table_leave", "table_policy", "table_start", "tables_create_seated_many", "turn_timeout",
]
