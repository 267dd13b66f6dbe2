from django.apps import AppConfig


class CirclesConfig(AppConfig):
    name = "circles"
    verbose_name = "Circles"
