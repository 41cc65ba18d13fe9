"""PostgreSQL keeps a table row's match state in the row itself instead of out of line (TOAST), compressed with
lz4 where the server has it (PostgreSQL 14+ built with lz4; pglz otherwise).

The state is a JSON document of a few KB to ~17 KB (~3 KB compressed); stored out of line, every move read
its chunks through the TOAST table's index and wrote new chunks and index entries. ``STORAGE MAIN``
compresses it in the row and moves it out only when the row would not fit a page. Values written from now
on; stored ones as they are rewritten (every move rewrites its table's).
"""

from django.db import migrations


def _lz4(schema_editor) -> bool:
    """Whether the server can compress with lz4 (asked, not assumed: a build without it refuses the method)."""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('server_version_num')::int >= 140000")
        if not cursor.fetchone()[0]:
            return False
        cursor.execute("SELECT count(*) FROM pg_settings WHERE name = 'default_toast_compression' "
                       "AND 'lz4' = ANY(enumvals)")
        return bool(cursor.fetchone()[0])


def _inline(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("ALTER TABLE games_table ALTER COLUMN state SET STORAGE MAIN")
    if _lz4(schema_editor):
        schema_editor.execute("ALTER TABLE games_table ALTER COLUMN state SET COMPRESSION lz4")


def _out_of_line(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("ALTER TABLE games_table ALTER COLUMN state SET STORAGE EXTENDED")
    if _lz4(schema_editor):
        schema_editor.execute("ALTER TABLE games_table ALTER COLUMN state SET COMPRESSION DEFAULT")


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0011_table_hot_updates"),
    ]

    operations = [
        migrations.RunPython(_inline, _out_of_line, elidable=False),
    ]
