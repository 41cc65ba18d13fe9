"""When a player deletes their account, they leave every table they sit at, so nobody waits for a ghost.

At an open table (or one whose match is over) the seat is given up; during a running match the player
resigns, which ends the match (gin: the opponent wins) or leaves the Rommé list to the others, as the
rulebooks say. Everything goes through ``games.services``; a table that refuses (or fails) is logged and
skipped, so it stops neither the other tables nor the deletion itself.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.dispatch import receiver

from accounts.protocols import Person
from accounts.signals import account_deleted
from games import services
from games.models import Seat, Table

logger = logging.getLogger(__name__)


@receiver(account_deleted, dispatch_uid="games.leave_tables_of_deleted_account")
def leave_tables_of_deleted_account(sender: object, user: Person, **kwargs: object) -> None:
    tables_leave_all(user=user)


def tables_leave_all(*, user: Person) -> list[int]:
    """Give up or resign every seat ``user`` holds where play is not over for them. Returns the table ids
    that were left (tables that refused are logged, not raised)."""
    seats = (
        Seat.objects.filter(user_id=user.pk)
        .exclude(table__status=Table.Status.ABORTED)
        .values_list("table_id", "table__status", "left")
        .order_by("table_id")
    )
    left_tables = []
    for table_id, status, already_left in seats:
        if status == Table.Status.PLAYING and already_left:
            continue  # resigned (or timed out) already: the seat keeps its place in the record
        try:
            # A savepoint per table: whatever one table does wrong is undone there and only there.
            with transaction.atomic():
                _leave(table_id=table_id, user=user, playing=status == Table.Status.PLAYING)
        except services.ServiceError as error:
            logger.warning("deleted account %s could not leave table %s: %s", user.pk, table_id, error)
        except Exception:
            logger.exception("deleted account %s could not leave table %s", user.pk, table_id)
        else:
            left_tables.append(table_id)
    return left_tables


def _leave(*, table_id: int, user: Person, playing: bool) -> None:
    # The status was read without a lock: a table may have started or finished since. The service's
    # refusal says which, and the other way out is taken.
    try:
        if playing:
            services.match_resign(table_id=table_id, user=user)
        else:
            services.table_leave(table_id=table_id, user=user)
    except services.ServiceError as error:
        if error.code == "match_running":
            services.match_resign(table_id=table_id, user=user)
        elif error.code == "not_playing":
            services.table_leave(table_id=table_id, user=user)
        else:
            raise
