from games.kinds import apps


class GinConfig(apps.GameAppConfig):
    name = "games.kinds.gin"
    label = "gin"
    verbose_name = "Gin Rommé"
