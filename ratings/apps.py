from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Wertungen"

    def ready(self) -> None:
        # The end of a match rates it, the referee's loop pairs the pool, and nobody who must wait after
        # abandoning rated matches takes a ranked seat; the match page and the exported record show the rating
        # changes (games.panels).
        from games.services import ranked_seat_guard_add
        from ratings import panels, pool, receivers  # noqa: F401

        ranked_seat_guard_add(pool.abandon_guard)
        panels.register()
