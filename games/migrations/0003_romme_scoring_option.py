"""The Rommé option ``tournament: bool`` is now ``scoring: "casual" | "masters"``: stored tables and matches
are rewritten so that every reader sees one name. (Engine states in ``Table.state`` read the old flag
themselves.)"""

from django.db import migrations


def _renamed(options: dict) -> dict:
    options = dict(options)
    old = options.pop("tournament", None)
    if "scoring" not in options:
        options["scoring"] = "masters" if old else "casual"
    return options


def forwards(apps, schema_editor):
    for name in ("Table", "Match"):
        model = apps.get_model("games", name)
        for row in model.objects.filter(game="romme").only("pk", "options").iterator():
            options = row.options or {}
            if "tournament" in options or "scoring" not in options:
                model.objects.filter(pk=row.pk).update(options=_renamed(options))


def backwards(apps, schema_editor):
    for name in ("Table", "Match"):
        model = apps.get_model("games", name)
        for row in model.objects.filter(game="romme").only("pk", "options").iterator():
            options = dict(row.options or {})
            options["tournament"] = options.pop("scoring", "casual") == "masters"
            model.objects.filter(pk=row.pk).update(options=options)


class Migration(migrations.Migration):
    dependencies = [("games", "0002_match_ending_and_tournament_tables")]
    operations = [migrations.RunPython(forwards, backwards)]
