"""Django's PostgreSQL backend, with its health check at most once a second per connection, and its prepared
statements forgotten after an error.

With ``CONN_HEALTH_CHECKS`` Django checks a persistent connection before the first query of every request,
and channels counts every ``database_sync_to_async`` call as one: so every move of a live table paid a
``SELECT 1`` round trip of its own before its transaction (one of seven round trips a move made to
PostgreSQL, through PgBouncer). Here a connection checked within the last ``HEALTH_CHECK_SECONDS`` is taken
as it is. A connection that died inside that second fails its next call once (Django marks the error, and
the next call's ``close_old_connections`` closes it and connects anew), as any connection that dies between
its check and its query does; the fault tests restart PostgreSQL under running matches to show that the
site carries on.

The live layer's statements are prepared once per connection (``games.reads.prepared.server_cursor``). A
migration run by another process that changes what one of them returns (a column's type) makes PostgreSQL
refuse the prepared statement from then on ("cached plan must not change result type"). Inside a transaction
the ROLLBACK that follows makes psycopg forget its prepared statements; outside one (a handshake's reads)
psycopg kept using it, failing on every call until the process restarted. So after any error that is not the
data's own, the connection forgets its prepared statements (``DEALLOCATE ALL``, which psycopg notices and
forgets them too) before Django checks it, and the next call prepares them anew.
"""

from __future__ import annotations

import contextlib
import time

import psycopg
from django.db.backends.postgresql import base, operations

#: How long a passed health check counts for a connection.
HEALTH_CHECK_SECONDS = 1.0


class DatabaseOperations(operations.DatabaseOperations):
    def last_executed_query(self, cursor, sql, params):
        """As Django's, and for a statement bound on the server and sent in pipeline mode
        (``games.reads.prepared``), whose text psycopg does not keep until its results come: the statement with
        its values, as Django shows a server-bound one (what the debug cursor and the query log show)."""
        query = super().last_executed_query(cursor, sql, params)
        if query is None and sql is not None:
            try:
                return self.compose_sql(sql, params)
            except Exception:  # noqa: BLE001 - a value psycopg cannot quote: the statement without its values
                return sql
        return query


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
    _checked_at = float("-inf")

    def close_if_health_check_failed(self) -> None:
        if (self.connection is not None and self.health_check_enabled and not self.health_check_done  # type: ignore[attr-defined,has-type]
                and time.monotonic() - self._checked_at < HEALTH_CHECK_SECONDS):
            self.health_check_done = True
            return
        super().close_if_health_check_failed()
        if self.connection is not None:
            self._checked_at = time.monotonic()

    def connect(self) -> None:
        super().connect()
        self._checked_at = time.monotonic()  # a new connection is as fresh as a check

    def close_if_unusable_or_obsolete(self) -> None:
        if (self.connection is not None and self.errors_occurred and not self.in_atomic_block
                and self.get_autocommit() == self.settings_dict["AUTOCOMMIT"]):
            # A connection that cannot run it is closed by Django's check below.
            with contextlib.suppress(psycopg.Error):
                self.connection.execute("DEALLOCATE ALL")
        super().close_if_unusable_or_obsolete()
