from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "greycircle.games"
    label = "games"
    verbose_name = "Games"
