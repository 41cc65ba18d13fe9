from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Spiele"

    def ready(self) -> None:
        # Connects the receivers of other apps' signals (a deleted account leaves its tables).
        from games import receivers  # noqa: F401
        # Signing out (or deleting the account) closes the person's sockets.
        from games import handshakes  # noqa: F401
