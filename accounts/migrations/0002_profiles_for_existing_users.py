"""Gives users that existed before profiles (e.g. an admin made with createsuperuser) their profile."""

from django.conf import settings
from django.db import migrations


def create_missing_profiles(apps, schema_editor):
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    Profile = apps.get_model("accounts", "Profile")
    Profile.objects.bulk_create(
        [Profile(user_id=pk) for pk in User.objects.filter(profile__isnull=True).values_list("pk", flat=True)]
    )


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]

    operations = [migrations.RunPython(create_missing_profiles, migrations.RunPython.noop)]
