from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Spiele"

    def ready(self) -> None:
        # Connects the receivers of other apps' signals (a deleted account leaves its tables; signing out or
        # deleting the account closes the person's sockets) and the deployment checks (the signing key).
        from games import checks  # noqa: F401
        from games.delivery import receivers  # noqa: F401
        from games.web import handshakes  # noqa: F401
