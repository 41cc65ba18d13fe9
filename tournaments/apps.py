from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Turniere"

    def ready(self) -> None:
        # The end of a tournament table's match and the referee's clock (games.signals); the tournament on the
        # match page (games.panels).
        from tournaments import panels, receivers  # noqa: F401

        panels.register()
