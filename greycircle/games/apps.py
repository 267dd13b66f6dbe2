from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "greycircle.games"
    label = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from greycircle.games import schema  # noqa: F401  (registers the schema extensions)
