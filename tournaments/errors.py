"""The tournaments app's own refusal: raised by ``tournaments.services`` and the format classes before
anything is written, and shown to people by the views (the ``message`` is German)."""

from __future__ import annotations


class TournamentError(Exception):
    """A refused tournament request: ``code`` is stable for programs, ``message`` is for people (German)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"
