"""The real password hasher, remembered: for the browser tests, whose server is another process that checks
passwords with the real settings (PBKDF2, a million rounds: over half a second per hash on the CI machine).

:class:`RememberingPBKDF2PasswordHasher` writes exactly what Django's :class:`PBKDF2PasswordHasher` writes (same
algorithm name, rounds and salt length), so the server checks its hashes as any other; only it takes one salt per
test process and remembers each hash it computed. The same password set again (``PASSWORD`` of
``tests/browser/people.py`` for every confirmed user, ``pw-annaanna`` for every test's anna) costs nothing after
the first time."""

from __future__ import annotations

import functools

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class RememberingPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    def salt(self) -> str:
        return _salt()

    def encode(self, password, salt, iterations=None):
        return _encoded(password, salt, iterations or self.iterations)


@functools.cache
def _salt() -> str:
    # One per process (not per instance: Django makes new hasher instances whenever a test changes settings).
    return PBKDF2PasswordHasher().salt()


@functools.cache
def _encoded(password: str, salt: str, iterations: int) -> str:
    return PBKDF2PasswordHasher().encode(password, salt, iterations)
