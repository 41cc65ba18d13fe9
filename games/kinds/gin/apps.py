from django.apps import AppConfig


class GinConfig(AppConfig):
    """Gin Rommé as an app of its own: its entry joins the registry when the app is ready (the registry imports no
    game), and its templates, static files and words are found as any app's."""

    name = "games.kinds.gin"
    label = "gin"
    verbose_name = "Gin Rommé"

    def ready(self) -> None:
        from games import registry
        from games.kinds.gin.entry import ENTRY

        registry.register(ENTRY)
