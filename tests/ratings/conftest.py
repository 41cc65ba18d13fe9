"""Fixtures for the ratings tests: the live-play settings with the folder's deal seed; ``players`` and
``staff`` are the suite's (tests/conftest.py)."""

import pytest

from tests.play import play_settings


@pytest.fixture(autouse=True)
def _live_play_settings(settings, request):
    play_settings(settings, request, seed="ratings-tests")
