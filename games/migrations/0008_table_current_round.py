"""Tables keep their current match's rounds and move count beside the state (a move reads them with the
locked row); stored tables get them from their rounds and move log."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import Max


def fill_from_rounds_and_moves(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    Round = apps.get_model("games", "Round")
    Move = apps.get_model("games", "Move")
    for table in Table.objects.filter(current_match__isnull=False).only("pk", "current_match_id").iterator():
        rounds = list(Round.objects.filter(match_id=table.current_match_id).order_by("-number")[:2])
        current = rounds[0] if rounds else None
        last = next((r for r in rounds if r.finished_at is not None), None)
        top = Move.objects.filter(match_id=table.current_match_id).aggregate(top=Max("seq"))["top"]
        Table.objects.filter(pk=table.pk).update(
            current_round=current, last_round=last, moves_logged=0 if top is None else top + 1
        )


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0007_bot_level_advanced'),
    ]

    operations = [
        migrations.AddField(
            model_name='table',
            name='current_round',
            field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='games.round'),
        ),
        migrations.AddField(
            model_name='table',
            name='last_round',
            field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='games.round'),
        ),
        migrations.AddField(
            model_name='table',
            name='moves_logged',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunPython(fill_from_rounds_and_moves, migrations.RunPython.noop),
    ]
