"""factory_boy factories for the people the tests sign up: ``UserFactory(username="anna")`` is anna with the
address anna@example.org and the password ``pw-annaanna`` (for the forms that ask for it again: deleting an
account); tests sign in with ``force_login``."""

from __future__ import annotations

import factory
from django.conf import settings


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = settings.AUTH_USER_MODEL

    username = factory.Sequence(lambda n: f"p{n:03d}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.org")
    password = factory.django.Password(factory.LazyAttribute(lambda user: f"pw-{user.username * 2}"))


#: The suite's four players (``players`` in tests/conftest.py).
PLAYERS = ("anna", "ben", "cleo", "dora")


def users(*names: str, **extra) -> list:
    """One signed-up person per name, in that order."""
    return [UserFactory(username=name, **extra) for name in names]


def many_users(n: int, prefix: str = "p") -> list:
    """``n`` people in one statement (``<prefix>000``, ``<prefix>001``, …; no password): for the tests that
    seat hundreds. Read back, so that every one has its id on every database."""
    model = UserFactory._meta.get_model_class()
    names = [f"{prefix}{i:03d}" for i in range(n)]
    model.objects.bulk_create([model(username=name, email=f"{name}@example.org") for name in names])
    return list(model.objects.filter(username__in=names).order_by("username"))
