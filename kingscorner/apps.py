from django.apps import AppConfig


class KingsCornerConfig(AppConfig):
    name = "kingscorner"
    verbose_name = "King's Corner"
