"""The table's state, written whole by every move, as PostgreSQL's ``json`` (kept as written) instead of
``jsonb`` (parsed on every write, printed on every read), and compressed with lz4 instead of pglz where the
server has it (PostgreSQL 14 and later, built with lz4 as Debian's is): a state of a few kilobytes is
compressed on every write. Measured on one row's update with an 8 KB state (docs/scale.md): ``jsonb`` and pglz
0.48 ms, ``json`` and lz4 0.13 ms. Values written before keep their compression until they are next written.
"""

from django.db import DatabaseError, migrations, transaction

import games.models


def _lz4(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor != "postgresql" or connection.pg_version < 140000:
        return
    try:
        with transaction.atomic(using=connection.alias):  # a savepoint: a server without lz4 refuses it
            schema_editor.execute("ALTER TABLE games_table ALTER COLUMN state SET COMPRESSION lz4")
    except DatabaseError:
        pass  # built without lz4: the default compression stays


def _default_compression(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor == "postgresql" and connection.pg_version >= 140000:
        schema_editor.execute("ALTER TABLE games_table ALTER COLUMN state SET COMPRESSION DEFAULT")


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0012_move_match_index"),
    ]

    operations = [
        migrations.AlterField(
            model_name="table",
            name="state",
            field=games.models.WholeJSONField(blank=True, null=True),
        ),
        migrations.RunPython(_lz4, _default_compression, elidable=False),
    ]
