"""The cache's table comes with the migrations: sign-in counts live in the cache (ACCOUNT_RATE_LIMITS), and
without Redis the cache is a table of the site's database. So `manage.py migrate` alone leaves a site whose
sign-in works, as the Django habit expects (`createcachetable` does nothing where the table exists or the
cache is Redis)."""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_profiles_for_existing_users")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
