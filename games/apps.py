from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Spiele"

    def ready(self) -> None:
        # Connects the account_deleted receiver: a deleted account leaves its tables.
        from games import signals  # noqa: F401
