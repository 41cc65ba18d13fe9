"""The browser tests' remembering hasher (tests/browser/hashers.py) writes what the server's real hasher checks."""

from django.contrib.auth.hashers import PBKDF2PasswordHasher, check_password, make_password

REMEMBERING = ["tests.browser.hashers.RememberingPBKDF2PasswordHasher"]


def test_its_hash_is_a_real_pbkdf2_hash_that_the_real_hasher_accepts_as_it_is(settings):
    settings.PASSWORD_HASHERS = REMEMBERING
    encoded = make_password("Herz-Dame-23!")
    real = PBKDF2PasswordHasher()
    assert encoded.startswith(f"pbkdf2_sha256${real.iterations}$")
    assert real.verify("Herz-Dame-23!", encoded) and not real.verify("Herz-Dame-24!", encoded)
    assert not real.must_update(encoded)  # the server keeps it: no re-hash at sign-in


def test_the_same_password_again_is_the_same_hash_and_a_real_hash_still_checks(settings):
    settings.PASSWORD_HASHERS = REMEMBERING
    assert make_password("pw-annaanna") == make_password("pw-annaanna") != make_password("pw-benben")
    elsewhere = PBKDF2PasswordHasher().encode("pw-cleocleo", PBKDF2PasswordHasher().salt())
    assert check_password("pw-cleocleo", elsewhere) and not check_password("pw-doradora", elsewhere)
