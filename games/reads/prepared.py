"""Reads that every move makes, with their SQL compiled once per process and database.

Django compiles a queryset's SQL anew each time it is evaluated, and for the small reads of a move that is
most of their cost: measured with py-spy in the daphne process of `make loadtest`'s ceiling, compiling and
setting up the row converters took about 70 % of the table row's and the seats' reads, the database itself
the rest. A :class:`Prepared` read is an ordinary queryset, built once with marker values where the
parameters go; its SQL, its columns and its row converters are kept, and each call runs that SQL with the
call's values and makes the model instances the way Django's ``ModelIterable`` does (``select_related``
objects included). The statements, and so the database's answers, are exactly the queryset's own: the tests
that count a move's statements see the same ones.
"""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import connections
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators  # type: ignore[attr-defined]

M = TypeVar("M", bound=Model)
R = TypeVar("R", bound=Model)

#: Every prepared read of the process (``compile_all``).
_instances: weakref.WeakSet[Prepared] = weakref.WeakSet()

#: Where a read's parameter goes when its queryset is built (``Prepared(build, MARK)``): a value no query of
#: the site has of its own.
MARK = -918_273_645


@dataclass
class _Compiled:
    sql: str
    params: tuple[Any, ...]
    slots: list[int | None]  # per parameter: which call value goes there (None: the queryset's own)
    model: type[Model]
    start: int
    end: int
    init_list: list[str]
    populators: list[Any]
    converters: dict[int, Any]
    for_update: bool


class Prepared(Generic[M]):
    """``build(*markers)`` returns the queryset; ``fetch(*values)`` runs it with ``values`` in the markers'
    places. Markers must be values that occur nowhere else in the query's parameters."""

    def __init__(self, build: Callable[..., QuerySet[M]], *markers: object):
        self.build = build
        self.markers = markers
        self._compiled: dict[tuple[str, str], _Compiled] = {}
        _instances.add(self)

    def _compile(self, alias: str) -> _Compiled:
        queryset = self.build(*self.markers)
        compiler = queryset.query.get_compiler(using=alias)
        sql, params = compiler.as_sql()
        slots: list[int | None] = []
        for value in params:
            slots.append(next((i for i, marker in enumerate(self.markers) if value == marker
                               and type(value) is type(marker)), None))
        assert sorted(s for s in slots if s is not None) == list(range(len(self.markers))), (
            "every marker once among the query's parameters")
        klass_info = compiler.klass_info
        select = compiler.select
        start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        fields = [column[0] for column in select[: compiler.col_count]]
        return _Compiled(
            sql=sql, params=tuple(params), slots=slots, model=klass_info["model"], start=start, end=end,
            init_list=[column[0].target.attname for column in select[start:end]],
            populators=get_related_populators(klass_info, select, alias),
            converters=compiler.get_converters(fields),
            for_update=queryset.query.select_for_update,
        )

    def compiled(self, using: str = "default") -> _Compiled:
        """The read's SQL and converters for ``using``, compiled on first use."""
        key = (using, connections[using].vendor)
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = self._compiled[key] = self._compile(using)
        return compiled

    def _ready(self, using: str) -> _Compiled:
        connection = connections[using]
        compiled = self.compiled(using)
        if compiled.for_update and not connection.in_atomic_block:
            # What Django's compiler says for a queryset's select_for_update() outside a transaction.
            from django.db.transaction import TransactionManagementError

            raise TransactionManagementError("select_for_update cannot be used outside of a transaction.")
        return compiled

    def _send(self, cursor: Any, values: tuple[object, ...], using: str) -> _Compiled:
        compiled = self._ready(using)
        params = [compiled.params[i] if slot is None else values[slot] for i, slot in enumerate(compiled.slots)]
        cursor.execute(compiled.sql, params)
        return compiled

    def _objects(self, compiled: _Compiled, rows: Any, using: str) -> list[M]:
        connection = connections[using]
        converters = compiled.converters
        out: list[M] = []
        for row in rows:
            if converters:  # as the compiler's apply_converters, with this thread's connection
                row = list(row)
                for position, (functions, expression) in converters.items():
                    value = row[position]
                    for function in functions:
                        value = function(value, expression, connection)
                    row[position] = value
            obj = compiled.model.from_db(using, compiled.init_list, row[compiled.start:compiled.end])
            for populator in compiled.populators:
                populator.populate(row, obj)
            out.append(obj)  # type: ignore[arg-type]
        return out

    def fetch(self, *values: object, using: str = "default") -> list[M]:
        with server_cursor(connections[using]) as cursor:
            compiled = self._send(cursor, values, using)
            rows = cursor.fetchall()
        return self._objects(compiled, rows, using)


class PreparedIn(Prepared[M]):
    """A read whose one parameter is a list of values (``build(values)`` filters ``field__in=values``), its SQL
    compiled once: the list goes as one parameter, so the statement is the same however many values it gets;
    on PostgreSQL an array (``field = ANY(%s)``), on SQLite a JSON array the statement unpacks (``field IN
    (SELECT value FROM json_each(%s))``). Django compiles a filtered queryset anew on every evaluation, and for
    a handshake batch's reads (``selectors.table_openings_many``) that was about half their CPU. Elsewhere
    ``fetch`` evaluates ``build(values)`` as it is."""

    #: The databases whose statement takes the whole list as one parameter.
    VENDORS = ("postgresql", "sqlite")

    def __init__(self, build: Callable[[list], QuerySet[M]]):
        super().__init__(lambda marker: build([marker]), MARK)
        self.build_in = build

    def _compile(self, alias: str) -> _Compiled:
        compiled = super()._compile(alias)
        # The marker's placeholder: the n-th ``%s`` of the SQL (``%%`` is a literal percent sign).
        position = compiled.slots.index(0)
        placeholders = [m for m in re.finditer(r"%%|%s", compiled.sql) if m.group() == "%s"]
        start, end = placeholders[position].span()
        sql = compiled.sql
        assert sql[:start].endswith(" IN (") and sql[end:].startswith(")"), "the values' placeholder is IN (%s)"
        if connections[alias].vendor == "postgresql":
            compiled.sql = f"{sql[:start - len(' IN (')]} = ANY({sql[start:end]}){sql[end + 1:]}"
        else:
            compiled.sql = f"{sql[:start]}SELECT value FROM json_each({sql[start:end]}){sql[end:]}"
        return compiled

    def _send(self, cursor: Any, values: tuple[object, ...], using: str) -> _Compiled:
        if connections[using].vendor == "sqlite":  # json_each's one parameter: the values as a JSON array
            values = (json.dumps(values[0]),)
        return super()._send(cursor, values, using)

    def fetch(self, *values: object, using: str = "default") -> list[M]:
        if connections[using].vendor not in self.VENDORS:
            return list(self.build_in(list(values[0])))  # type: ignore[call-overload]
        return super().fetch(list(values[0]), using=using)  # type: ignore[call-overload]


def server_cursor(connection: Any) -> Any:
    """The cursor the statements of this module and ``games.services._writes`` run on: on PostgreSQL one that
    binds values on the server, so that the statement's text is the same on every call (its values travel
    beside it, not quoted into it) and the connection can keep it prepared: planned once per connection, not
    on every call (psycopg prepares a statement run again where ``prepare_threshold`` allows it: where a
    connection keeps its server connection, ``DATABASE_POOL_MODE=session``; see ``ginsite.settings``). Its
    planning was a third of PostgreSQL's CPU in the scaled load test: a move's locked read (four tables
    joined) took 0.3 ms to plan and 0.07 ms to run. Elsewhere Django's own cursor. Django's wrapper either way,
    so the statements are logged and counted as every other."""
    if connection.vendor != "postgresql":
        return connection.cursor()
    from django.db.backends.postgresql.base import ServerBindingCursor  # type: ignore[attr-defined]

    connection.ensure_connection()
    with connection.wrap_database_errors:
        return connection._prepare_cursor(ServerBindingCursor(connection.connection))


def compile_all(using: str = "default") -> int:
    """Compile every prepared read of the process for ``using`` now rather than in the first move or handshake
    that needs it (a serving process at its start, ``games.web.warmup``); returns how many there are."""
    from django.db import transaction

    reads = list(_instances)
    with transaction.atomic(using=using):  # Django compiles a locking read (select_for_update) only inside one
        for read in reads:
            read.compiled(using)
    return len(reads)


def fetch_in_together(*reads: tuple[PreparedIn, Sequence[object]], using: str = "default") -> list[list]:
    """``read.fetch(values)`` of each of ``reads``, in one round trip to PostgreSQL (pipeline mode: every
    statement, then every answer; the database runs them in the order given, each as it would alone), one
    after the other elsewhere."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        return [read.fetch(values, using=using) for read, values in reads]
    connection.ensure_connection()
    sent = []
    with connection.wrap_database_errors, connection.connection.pipeline():
        cursors = [server_cursor(connection) for _ in reads]
        try:
            for cursor, (read, values) in zip(cursors, reads, strict=True):
                sent.append(read._send(cursor, (list(values),), using))
            fetched = [cursor.fetchall() for cursor in cursors]
        finally:
            for cursor in cursors:
                cursor.close()
    return [read._objects(compiled, rows, using)
            for (read, _values), compiled, rows in zip(reads, sent, fetched, strict=True)]


def fetch_together(first: tuple[Prepared[M], tuple[object, ...]], second: tuple[Prepared[R], tuple[object, ...]],
                   *, using: str = "default") -> tuple[list[M], list[R]]:
    """Two reads in one round trip to the database where it can (PostgreSQL's pipeline mode: the transaction's
    BEGIN, both statements and their answers go together), one after the other elsewhere. The database runs
    them in order, so the second sees what the first locked. What each returns is its ``fetch``'s."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        return first[0].fetch(*first[1], using=using), second[0].fetch(*second[1], using=using)
    connection.ensure_connection()
    with (connection.wrap_database_errors, connection.connection.pipeline(), server_cursor(connection) as one,
          server_cursor(connection) as two):
        compiled_one = first[0]._send(one, first[1], using)
        compiled_two = second[0]._send(two, second[1], using)
        rows_one, rows_two = one.fetchall(), two.fetchall()
    return first[0]._objects(compiled_one, rows_one, using), second[0]._objects(compiled_two, rows_two, using)

