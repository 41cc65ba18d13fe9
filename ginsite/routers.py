"""Where the site's queries go: everything to ``default``, except the reads of the pages that may be a moment
behind, which go to the read replica when there is one (``DATABASE_REPLICA_URL``, the ``replica`` alias).

Which reads those are is said where they are made, not per model: a rating read by the leaderboard may come
from the replica, the same rating read by the ranked pool before it writes must not. The selectors of the
leaderboard and of the profiles run inside :func:`replica_reads` (a decorator or a ``with`` block); every
other read, every write and every read inside a transaction on ``default`` goes to ``default``. Without a
replica the router changes nothing.

The selectors live in apps that may not import ``ginsite`` (tests/test_imports.py), so the block is opened
around their pages instead: :class:`ReplicaReadsMiddleware` runs the GET and HEAD requests of the views named
in ``REPLICA_READ_VIEWS`` (the leaderboard, the profiles) inside it, and even there only the site's own game
and rating tables (``REPLICA_READ_APPS``) are read from the replica: the session, the signed-in user and
allauth's rows always come from ``default`` (a person who just signed up must not look signed out because the
replica is a second behind).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Callable, Iterator
from typing import ParamSpec, TypeVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve

REPLICA = "replica"

_replica_reads: contextvars.ContextVar[bool] = contextvars.ContextVar("ginsite_replica_reads", default=False)

P = ParamSpec("P")
R = TypeVar("R")


@contextlib.contextmanager
def reading_from_replica() -> Iterator[None]:
    """Reads inside this block go to the replica (where there is one)."""
    token = _replica_reads.set(True)
    try:
        yield
    finally:
        _replica_reads.reset(token)


def replica_reads(function: Callable[P, R]) -> Callable[P, R]:
    """Run ``function`` with its reads on the replica (where there is one)."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with reading_from_replica():
            return function(*args, **kwargs)

    return wrapper


def replica_configured() -> bool:
    return REPLICA in settings.DATABASES


class ReplicaRouter:
    def db_for_read(self, model, **hints) -> str | None:
        if not _replica_reads.get() or not replica_configured():
            return None
        if model._meta.app_label not in settings.REPLICA_READ_APPS:
            return DEFAULT_DB_ALIAS
        # Inside a transaction the reads belong with its writes (and must see them).
        if connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return DEFAULT_DB_ALIAS
        return REPLICA

    def db_for_write(self, model, **hints) -> str:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints) -> bool | None:
        # Both aliases hold the same rows (the replica is a copy of default).
        aliases = {DEFAULT_DB_ALIAS, REPLICA}
        if obj1._state.db in aliases and obj2._state.db in aliases:
            return True
        return None

    def allow_migrate(self, db, app_label, model_name=None, **hints) -> bool | None:
        # A replica is migrated by replication, never by `migrate --database replica`.
        return db != REPLICA


class ReplicaReadsMiddleware:
    """Runs the reading requests of ``REPLICA_READ_VIEWS`` inside :func:`reading_from_replica` (nothing at
    all without a replica)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response
        self.views = frozenset(settings.REPLICA_READ_VIEWS)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method in ("GET", "HEAD") and replica_configured() and self._listed(request):
            with reading_from_replica():
                return self.get_response(request)
        return self.get_response(request)

    def _listed(self, request: HttpRequest) -> bool:
        try:
            return resolve(request.path_info).view_name in self.views
        except Resolver404:
            return False
