from django.apps import AppConfig


class CirKisConfig(AppConfig):
    name = "cirkis"
    verbose_name = "CirKis"
