"""The people of the browser tests: signed up with a confirmed address (allauth's ``EmailAddress``) and a
password the server checks with its real hashers (``conftest._the_servers_password_hashers``)."""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress

from tests.factories import UserFactory

PASSWORD = "Herz-Dame-23!"


def confirmed_user(name: str, **extra: Any) -> Any:
    """``name`` with the address ``<name>@example.com``, confirmed, and :data:`PASSWORD`."""
    user = UserFactory(username=name, email=f"{name}@example.com", password=PASSWORD, **extra)
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    return user
