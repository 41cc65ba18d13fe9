"""What the other apps' functions mean by "who asks", for the type checker: a :class:`Person`."""

from __future__ import annotations

from typing import Any, Protocol


class Person(Protocol):
    """A signed-in user, an anonymous one, or anything else with a ``pk`` and ``is_authenticated`` (a socket's
    scope user, a test's stand-in): what reads and writes take when they only ask who it is and whether they
    are signed in. Django's ``User`` and ``AnonymousUser`` are both one; a function that needs a stored user
    (a foreign key) stores its ``pk``.

    >>> from django.contrib.auth.models import AnonymousUser
    >>> def signed_in(person: Person) -> bool:
    ...     return bool(person.is_authenticated)
    >>> signed_in(AnonymousUser())
    False
    """

    @property
    def pk(self) -> Any: ...

    @property
    def is_authenticated(self) -> bool: ...
