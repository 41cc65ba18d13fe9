"""High card as an app of its own, as a game of the site is (``games.kinds.apps.GameAppConfig``): a server that
lists it in ``INSTALLED_APPS`` registers its entry when ready and finds its client module under ``static/``.
Only the browser tests' server does (``LIVE_SERVER_EXTRA_APPS``); the other tests register it by hand."""

from games.kinds.apps import GameAppConfig


class HighCardConfig(GameAppConfig):
    name = "tests.games.highcard"
    label = "highcard"
    verbose_name = "Höchste Karte"
