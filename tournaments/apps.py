from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Turniere"

    def ready(self) -> None:
        # The end of a tournament table's match and the referee's clock (games.signals); the tournament on the
        # match page (games.panels); entrants wait for no ranked table meanwhile, and a refused abort names the
        # forfeit rule (hooks.py).
        from games.delivery.notices import table_tournament_add
        from games.reads.policy import abort_refusal_note_add
        from ratings.pool import pool_guard_add
        from tournaments import hooks, notices, panels, receivers  # noqa: F401

        panels.register()
        table_tournament_add(notices.table_tournaments)  # the lobby and the notices name a table's tournament
        pool_guard_add(hooks.pool_guard)
        abort_refusal_note_add(hooks.abort_refusal_note)
