"""The format is a name of the format registry (tournaments.formats), checked against the registry by the
services and the staff's forms, instead of a choices list fixed here: a new format needs no migration. The
stored names (series, swiss, knockout, round_robin) are the registered formats' names, so every existing row
stays valid as it is."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0002_game_choices_from_registry'),
    ]

    operations = [
        migrations.AlterField(
            model_name='tournament',
            name='format',
            field=models.CharField(max_length=12),
        ),
    ]
