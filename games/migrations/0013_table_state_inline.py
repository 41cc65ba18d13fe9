from django.db import migrations


def _inline(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE games_table ALTER COLUMN state SET STORAGE MAIN")
        schema_editor.execute("ALTER TABLE games_table ALTER COLUMN state SET COMPRESSION lz4")


def _back(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE games_table ALTER COLUMN state SET STORAGE EXTENDED")
        schema_editor.execute("ALTER TABLE games_table ALTER COLUMN state SET COMPRESSION DEFAULT")


class Migration(migrations.Migration):
    dependencies = [("games", "0012_move_match_index")]
    operations = [migrations.RunPython(_inline, _back, elidable=False)]
