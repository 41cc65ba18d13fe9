"""A move's state is compressed with lz4 on PostgreSQL instead of pglz: every move writes the table row's
state anew, and once its JSON passes ~2 KB PostgreSQL compresses it on every write (pglz_compress was 3.3 %
of the database's CPU in ``bench.move_postgres``'s moves, lz4 0.5 %). The column's storage stays
``EXTENDED``: a state still too large compressed goes out of line as before, so two versions of a row keep
fitting a page and the move's update stays HOT (migration 0011). Keeping it in the row (``STORAGE MAIN``) did
not measure better than lz4 alone and loses that for long matches (``docs/scale.md``).

Values already stored keep their compression until the row is next written (the next move). A server built
without lz4 keeps pglz (the ``ALTER`` is refused; nothing else changes). Nothing to do on SQLite.
"""

from django.db import DatabaseError, migrations, transaction

#: The column and its compression on PostgreSQL.
ALTER = "ALTER TABLE games_table ALTER COLUMN state SET COMPRESSION {}"


def _lz4(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    try:
        with transaction.atomic(using=schema_editor.connection.alias):
            schema_editor.execute(ALTER.format("lz4"))
    except DatabaseError:  # built without lz4: "compression method lz4 not supported"
        pass


def _default(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(ALTER.format("DEFAULT"))


class Migration(migrations.Migration):
    dependencies = [("games", "0012_move_match_index")]
    operations = [migrations.RunPython(_lz4, _default, elidable=False)]
