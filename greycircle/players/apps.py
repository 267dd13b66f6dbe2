from django.apps import AppConfig


class PlayersConfig(AppConfig):
    name = "greycircle.players"
    label = "players"
    verbose_name = "Players"
