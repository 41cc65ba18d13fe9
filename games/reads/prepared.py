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

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import connections
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators  # type: ignore[attr-defined]

M = TypeVar("M", bound=Model)
R = TypeVar("R", bound=Model)

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

    def _ready(self, using: str) -> _Compiled:
        connection = connections[using]
        key = (using, connection.vendor)
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = self._compiled[key] = self._compile(using)
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
        with connections[using].cursor() as cursor:
            compiled = self._send(cursor, values, using)
            rows = cursor.fetchall()
        return self._objects(compiled, rows, using)


def fetch_together(first: tuple[Prepared[M], tuple[object, ...]], second: tuple[Prepared[R], tuple[object, ...]],
                   *, using: str = "default") -> tuple[list[M], list[R]]:
    """Two reads in one round trip to the database where it can (PostgreSQL's pipeline mode: the transaction's
    BEGIN, both statements and their answers go together), one after the other elsewhere. The database runs
    them in order, so the second sees what the first locked. What each returns is its ``fetch``'s."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        return first[0].fetch(*first[1], using=using), second[0].fetch(*second[1], using=using)
    connection.ensure_connection()
    with (connection.wrap_database_errors, connection.connection.pipeline(), connection.cursor() as one,
          connection.cursor() as two):
        compiled_one = first[0]._send(one, first[1], using)
        compiled_two = second[0]._send(two, second[1], using)
        rows_one, rows_two = one.fetchall(), two.fetchall()
    return first[0]._objects(compiled_one, rows_one, using), second[0]._objects(compiled_two, rows_two, using)


def evaluate_together(*querysets: QuerySet, using: str = "default") -> list[list]:
    """What ``list(queryset)`` gives for each of ``querysets``, their statements sent to PostgreSQL in one
    round trip (pipeline mode: every statement, then every answer); one after the other elsewhere. The
    database runs them in the order given, each as it would alone (in autocommit each sees what was
    committed when it began, as a statement sent on its own would). Each queryset's SQL, rows and
    objects are Django's own: its compiler is asked for the SQL and handed the rows, and the queryset's own
    iterable makes of them what it would have made of its cursor's (``select_related``, annotations,
    ``values_list``, converters). For the reads of a handshake batch (``selectors.table_openings_many``):
    through PgBouncer each round trip is a wake-up of three processes, on a busy machine a few ms each."""
    connection = connections[using]
    if connection.vendor != "postgresql" or len(querysets) < 2:
        return [list(queryset) for queryset in querysets]
    from django.core.exceptions import EmptyResultSet

    prepared: list[tuple[QuerySet, Any, str, Any]] = []
    for queryset in querysets:
        queryset = queryset.all()  # a copy whose query this call may hand its rows
        compiler = queryset.query.get_compiler(using=using)
        try:
            sql, params = compiler.as_sql()
        except EmptyResultSet:  # Django sends nothing for it (``pk__in=[]``): nor does this
            sql, params = "", None
        prepared.append((queryset, compiler, sql, params))
    connection.ensure_connection()
    rows: list[list | None] = []
    with connection.wrap_database_errors, connection.connection.pipeline():
        cursors = []
        for _queryset, _compiler, sql, params in prepared:
            cursor = None
            if sql:
                cursor = connection.cursor()  # Django's wrapper: logged and counted as every statement
                cursor.execute(sql, params)
            cursors.append(cursor)
        for cursor in cursors:
            if cursor is None:
                rows.append(None)
                continue
            rows.append(cursor.fetchall())
            cursor.close()
    out: list[list] = []
    for (queryset, compiler, _sql, _params), fetched in zip(prepared, rows, strict=True):
        if fetched is None:
            out.append([])
            continue
        if compiler.has_extra_select:  # as ``cursor_iter`` trims the columns only ordering asked for
            fetched = [row[: compiler.col_count] for row in fetched]
        # The queryset's iterable asks its query for a compiler and that compiler for the rows: this one,
        # set up by ``as_sql`` above (its select, related classes, annotations), answers with those fetched.
        compiler.execute_sql = lambda *args, _rows=fetched, **kwargs: [_rows]
        queryset.query.get_compiler = lambda *args, _compiler=compiler, **kwargs: _compiler  # type: ignore[method-assign]
        out.append(list(queryset))
    return out
