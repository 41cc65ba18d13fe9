"""A Rommé seat that resigned between rounds is noted at the end of the record of the round just ended
(``docs/records-romme.md``), but until now only the table's state got it, never the ``Round`` row, so the record
the site exports lacked it and replayed to a list in which the seat had not left. The move log has every
resignation: each one of a Rommé match that its round's stored record lacks goes at the end of that record, in
the order they were logged. (A resignation in the middle of a round is in its record already.)"""

from django.db import migrations


#: Matches whose rounds are read in one statement.
CHUNK = 500


def add_missing_resignations(apps, schema_editor):
    Move = apps.get_model("games", "Move")
    Round = apps.get_model("games", "Round")
    resignations = list(Move.objects.filter(match__game="romme", action__action="resign")
                        .order_by("match_id", "seq").values_list("match_id", "round_number", "seat"))
    match_ids = sorted({match_id for match_id, _, _ in resignations})
    rounds = {}
    for start in range(0, len(match_ids), CHUNK):
        for played in Round.objects.filter(match_id__in=match_ids[start:start + CHUNK], record__isnull=False):
            rounds[played.match_id, played.number] = played
    changed = {}
    for match_id, number, seat in resignations:
        played = rounds.get((match_id, number))
        move = {"seat": seat, "action": "resign"}
        if played is None or move in played.record.get("moves", []):
            continue
        played.record = {**played.record, "moves": [*played.record.get("moves", []), move]}
        changed[played.pk] = played
    Round.objects.bulk_update(list(changed.values()), ["record"], batch_size=CHUNK)


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0012_move_match_index"),
    ]

    operations = [
        migrations.RunPython(add_missing_resignations, migrations.RunPython.noop),
    ]
