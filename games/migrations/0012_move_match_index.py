"""The move log's index of ``match_id`` goes: ``move_unique_seq`` (match, seq) serves every look-up by match
(and the cascade from a deleted match), and each index of the log is one more entry written with every move.

Only the index is dropped (the same name on every backend: Django's name for the field's index); the foreign
key stays as it was, so the migration does not re-check the whole log.
"""

import django.db.models.deletion
from django.db import migrations, models

INDEX = "games_move_match_id_b9c0e951"


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0011_table_hot_updates"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="move",
                    name="match",
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE,
                                            related_name="moves", to="games.match"),
                ),
            ],
            database_operations=[
                migrations.RunSQL(f"DROP INDEX IF EXISTS {INDEX}",
                                  f"CREATE INDEX {INDEX} ON games_move (match_id)"),
            ],
        ),
    ]
