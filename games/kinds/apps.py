"""What every game's app does when Django is ready: its entry (``<app>.entry.ENTRY``) joins the registry."""

from importlib import import_module

from django.apps import AppConfig


class GameAppConfig(AppConfig):
    """A game as an app of its own: the registry imports no game, each game registers itself, and its
    templates, static files and words are found as any app's. A game's ``apps.py`` names itself only."""

    def ready(self) -> None:
        from games import registry

        registry.register(import_module(f"{self.name}.entry").ENTRY)
