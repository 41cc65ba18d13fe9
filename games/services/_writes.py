"""The writes every move makes, their SQL compiled once per process and database: the move's log rows and the
table row's save. Private to ``games.services``.

On PostgreSQL a plain move writes both in **one statement** (the log rows inserted in a ``WITH`` clause of
the table row's ``UPDATE``), so a move is three round trips inside its transaction (the locked read, the
seats, the writes) instead of four, and its values travel beside the statement (server-side binding)
instead of quoted into its text: the table's state is ~4 KB of JSON that psycopg's client-side binding
escaped character by character, about 4 % of a move's CPU in the service (measured A/B, alternating per
move, on the load test's database), and prepared once per connection where the connection keeps its server
connection (``games.reads.prepared.server_cursor``). SQLite runs the same writes one statement each, with
Django's cursor.

Like ``QuerySet.update``, nothing here sends model signals: no receiver listens on ``Move`` or ``Table``, and
one added later would be bypassed on the move path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from django.db import connections
from django.db.models import Model

from games.reads.prepared import server_cursor

M = TypeVar("M", bound=Model)
R = TypeVar("R", bound=Model)


class PreparedInsert(Generic[M]):
    """Rows of ``model`` inserted with their SQL compiled once per database, values prepared per field as
    ``Model.save()`` prepares them (``pre_save``: ``auto_now_add`` included; ``get_db_prep_save``: JSON and
    dates). For rows whose primary key nobody reads back: the objects' ``pk`` stays unset."""

    def __init__(self, model: type[M]):
        self.model = model
        self.fields = [f for f in model._meta.concrete_fields if not f.primary_key or not f.auto_created]
        self._heads: dict[str, str] = {}

    def head(self, alias: str) -> str:
        """``INSERT INTO t (a, b, ...) VALUES``, as Django's insert compiler writes it for this database."""
        head = self._heads.get(alias)
        if head is None:
            from django.db.models.sql import InsertQuery

            query = InsertQuery(self.model)
            query.insert_values(self.fields, [self.model()], raw=False)
            compiler = query.get_compiler(using=alias)
            compiler.returning_fields = None
            (sql, _params), = compiler.as_sql()
            head = self._heads[alias] = sql[: sql.rindex("VALUES") + len("VALUES")]
        return head

    def rows(self, objs: Sequence[M], alias: str) -> tuple[str, list[Any]]:
        """The ``VALUES`` rows of ``objs`` and their parameters, each object marked as saved."""
        connection = connections[alias]
        row = "(" + ", ".join(["%s"] * len(self.fields)) + ")"
        params: list[Any] = []
        for obj in objs:
            params += [field.get_db_prep_save(field.pre_save(obj, True), connection=connection)
                       for field in self.fields]
            obj._state.adding = False
            obj._state.db = alias
        return ", ".join([row] * len(objs)), params

    def insert(self, *objs: M, using: str = "default") -> None:
        values, params = self.rows(objs, using)
        with server_cursor(connections[using]) as cursor:
            cursor.execute(f"{self.head(using)} {values}", params)


class PreparedUpdate(Generic[M]):
    """``obj.save(update_fields=names)`` for rows known to exist, its SQL compiled once per database and set of
    columns: values prepared per field as ``save()`` prepares them (``auto_now`` included). Returns the number
    of rows updated."""

    def __init__(self, model: type[M]):
        self.model = model
        self._sql: dict[tuple[str, tuple[str, ...]], tuple[str, list[Any]]] = {}

    def _compiled(self, alias: str, names: tuple[str, ...]) -> tuple[str, list[Any]]:
        """``UPDATE t SET a = %s, ... WHERE pk = %s``: what Django's update compiler writes for plain values."""
        compiled = self._sql.get((alias, names))
        if compiled is None:
            quote = connections[alias].ops.quote_name
            meta = self.model._meta
            fields: list[Any] = [meta.get_field(name) for name in names]
            assigned = ", ".join(f"{quote(field.column)} = %s" for field in fields)
            pk: Any = meta.pk
            sql = f"UPDATE {quote(meta.db_table)} SET {assigned} WHERE {quote(pk.column)} = %s"
            compiled = self._sql[(alias, names)] = (sql, fields)
        return compiled

    def update(self, obj: M, names: list[str], *, using: str = "default",
               inserting: tuple[PreparedInsert[R], Sequence[R]] | None = None) -> int:
        """Save ``names`` of ``obj``; ``inserting`` (an insert and its rows) goes first, in the same statement
        on PostgreSQL (a ``WITH`` clause), as statements of their own elsewhere."""
        connection = connections[using]
        sql, fields = self._compiled(using, tuple(names))
        params = [field.get_db_prep_save(field.pre_save(obj, False), connection=connection) for field in fields]
        params.append(obj.pk)
        with server_cursor(connection) as cursor:
            if inserting is not None and inserting[1]:
                insert, objs = inserting
                values, inserted = insert.rows(objs, using)
                if connection.vendor == "postgresql":
                    sql, params = f"WITH logged AS ({insert.head(using)} {values}) {sql}", inserted + params
                else:
                    cursor.execute(f"{insert.head(using)} {values}", inserted)
            cursor.execute(sql, params)
            return cursor.rowcount
