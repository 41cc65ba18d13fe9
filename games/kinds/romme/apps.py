from games.kinds import apps


class RommeConfig(apps.GameAppConfig):
    name = "games.kinds.romme"
    label = "romme"
    verbose_name = "Rommé"
