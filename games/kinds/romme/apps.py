from django.apps import AppConfig


class RommeConfig(AppConfig):
    """Rommé as an app of its own: its entry joins the registry when the app is ready (the registry imports no
    game), and its templates, static files and words are found as any app's."""

    name = "games.kinds.romme"
    label = "romme"
    verbose_name = "Rommé"

    def ready(self) -> None:
        from games import registry
        from games.kinds.romme.entry import ENTRY

        registry.register(ENTRY)
