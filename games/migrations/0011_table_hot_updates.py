"""A move's update of the table row becomes a HOT update on PostgreSQL (the new row version on the same page,
no index touched): no index of ``games_table`` may name a column an ordinary move changes.

``table_deadline_idx`` (``turn_deadline``) and ``table_bot_due_idx`` (``bot_due_at``) go; the referee's due
tables are found through ``table_playing_idx`` (the playing tables, by id; ``status`` changes only when a match
starts or ends) and their clocks compared in the rows (``games.reads.selectors.tables_due``). On PostgreSQL
the table also leaves room in each page for the next version of its rows (``fillfactor``; pages written from
now on, existing ones as they are rewritten).
"""

from django.db import migrations, models

#: Percent of a page that inserts fill in ``games_table``: the rest is for the rows' next versions.
FILLFACTOR = 60


def _fillfactor(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE games_table SET (fillfactor = {FILLFACTOR})")


def _fillfactor_reset(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE games_table RESET (fillfactor)")


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0010_match_analysis"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="table",
            name="table_deadline_idx",
        ),
        migrations.RemoveIndex(
            model_name="table",
            name="table_bot_due_idx",
        ),
        migrations.AddIndex(
            model_name="table",
            index=models.Index(condition=models.Q(("status", "playing")), fields=["id"], name="table_playing_idx"),
        ),
        migrations.RunPython(_fillfactor, _fillfactor_reset, elidable=False),
    ]
