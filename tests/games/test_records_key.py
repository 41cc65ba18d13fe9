"""The key that signs exported records (issue 25): never derived from a known secret. With DEBUG off it must be
given (RECORDS_SIGNING_KEY: `check --deploy` says how to make one, and the site refuses to start without it);
with DEBUG on a random key is made once and kept in a file. The key page names the key's id, records carry
it, and the keys of a rotation stay listed and accepted."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.test import Client

from games.reads import records as records_export

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _fresh_key_cache():
    records_export._private_seed.cache_clear()
    yield
    records_export._private_seed.cache_clear()


def hkdf_of(secret: str) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=b"ginsite records",
                info=b"Ed25519 signing key for exported game records, v1").derive(secret.encode())


def test_the_development_key_is_random_kept_in_a_file_and_not_derived_from_secret_key(settings, tmp_path):
    settings.RECORDS_SIGNING_KEY = ""
    settings.RECORDS_SIGNING_KEY_FILE = str(tmp_path / "key")
    settings.SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"
    seed = records_export.site_private_key()
    assert seed != hkdf_of(settings.SECRET_KEY)
    assert (tmp_path / "key").read_text().strip() == seed.hex()
    assert (tmp_path / "key").stat().st_mode & 0o777 == 0o600
    records_export._private_seed.cache_clear()
    assert records_export.site_private_key() == seed  # kept: the same after a restart
    settings.RECORDS_SIGNING_KEY_FILE = str(tmp_path / "another")
    assert records_export.site_private_key() != seed  # another site's file: another random key


def test_without_a_key_and_without_debug_signing_refuses_and_says_how_to_make_one(settings):
    settings.RECORDS_SIGNING_KEY = ""
    settings.RECORDS_SIGNING_KEY_FILE = ""
    with pytest.raises(ImproperlyConfigured, match="RECORDS_SIGNING_KEY must be set.*manage.py records_signing_key"):
        records_export.site_private_key()


def test_check_deploy_is_an_error_without_the_key_and_names_the_command(settings):
    settings.DEBUG = False
    settings.RECORDS_SIGNING_KEY = ""
    errors = [m for m in checks.run_checks(include_deployment_checks=True) if m.id == "games.E001"]
    assert len(errors) == 1 and errors[0].level == checks.ERROR
    assert "manage.py records_signing_key" in errors[0].hint
    settings.RECORDS_SIGNING_KEY = "zz" * 32
    assert [m.id for m in checks.run_checks(include_deployment_checks=True) if m.id.startswith("games.")] == [
        "games.E002"]
    settings.RECORDS_SIGNING_KEY = records_export.new_private_key_hex()
    assert not [m for m in checks.run_checks(include_deployment_checks=True) if m.id.startswith("games.")]


def test_the_command_prints_a_new_key(capsys):
    call_command("records_signing_key")
    first = capsys.readouterr().out.strip()
    call_command("records_signing_key")
    second = capsys.readouterr().out.strip()
    assert len(bytes.fromhex(first)) == 32 and first != second


def production_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GAMES_TEST_", "RECORDS_"))}
    env.update({"DJANGO_SETTINGS_MODULE": "ginsite.settings", "DEBUG": "0", "SECRET_KEY": secrets.token_urlsafe(50),
                "ALLOWED_HOSTS": "example.org", **extra})
    return env


def test_the_production_asgi_application_refuses_to_start_without_the_key():
    """What daphne imports (``ginsite.asgi:application``) with the production settings."""
    code = "import ginsite.asgi; print('STARTED')"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=production_env(), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0 and "STARTED" not in done.stdout
    assert "ImproperlyConfigured: RECORDS_SIGNING_KEY must be set when DEBUG is off" in done.stderr
    assert "manage.py records_signing_key" in done.stderr
    started = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                             env=production_env(RECORDS_SIGNING_KEY=records_export.new_private_key_hex()))
    assert "STARTED" in started.stdout, started.stderr


def test_check_deploy_through_manage_py_fails_without_the_key_and_passes_with_one():
    command = [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"]
    refused = subprocess.run(command, cwd=ROOT, env=production_env(), capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "games.E001" in refused.stderr
    assert "records_signing_key" in refused.stderr
    key = records_export.new_private_key_hex()
    passed = subprocess.run(command, cwd=ROOT, env=production_env(RECORDS_SIGNING_KEY=key), capture_output=True,
                            text=True, timeout=120)
    assert passed.returncode == 0, passed.stderr


def test_a_rotated_key_s_records_still_hold_and_both_keys_are_on_the_key_page(settings, db):
    old_seed, new_seed = bytes(range(32)), bytes(range(40, 72))
    settings.RECORDS_SIGNING_KEY = old_seed.hex()
    old_record = records_export.record_sign({"game": "gin", "rounds": []})
    assert old_record["signature"]["key_id"] == records_export.key_id(records_export.public_key_of(old_seed))
    records_export._private_seed.cache_clear()
    settings.RECORDS_SIGNING_KEY = new_seed.hex()
    assert not records_export.record_signature_holds(old_record)  # not yet listed as retired
    settings.RECORDS_RETIRED_PUBLIC_KEYS = [records_export.public_key_of(old_seed).hex()]
    assert records_export.record_signature_holds(old_record)
    new_record = records_export.record_sign({"game": "gin", "rounds": []})
    assert records_export.record_signature_holds(new_record)
    html = Client().get("/partie/schluessel/").content.decode()
    new_public, old_public = records_export.public_key_of(new_seed), records_export.public_key_of(old_seed)
    assert f'<code id="key-id">{records_export.key_id(new_public)}</code>' in html
    assert records_export.key_id(old_public) in html and old_public.hex() in html
    assert "Frühere Schlüssel" in html
    # The paste viewer hands the browser every accepted key.
    response = Client().post("/partie/ansehen/", {"record": '{"game": "gin", "rounds": []}'})
    assert old_public.hex() in response.content.decode() and new_public.hex() in response.content.decode()
