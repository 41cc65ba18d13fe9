"""``manage.py records_signing_key``: prints a new random key for RECORDS_SIGNING_KEY (64 hex digits) and,
on standard error, its public key and id. Nothing is stored: set it in the environment of every daphne."""

from django.core.management.base import BaseCommand

from games.reads import records as records_export


class Command(BaseCommand):
    help = "Prints a new random RECORDS_SIGNING_KEY (64 hex digits) for exported game records."

    def handle(self, *args, **options) -> None:
        seed_hex = records_export.new_private_key_hex()
        public = records_export.public_key_of(bytes.fromhex(seed_hex))
        self.stdout.write(seed_hex)
        self.stderr.write(f"public key {public.hex()} (id {records_export.key_id(public)})")
