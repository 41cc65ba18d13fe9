from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Spiele"

    def ready(self) -> None:
        # Connects the receivers of other apps' signals (a deleted account leaves its tables).
        from games import checks, receivers  # noqa: F401
