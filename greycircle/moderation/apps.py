from django.apps import AppConfig


class ModerationConfig(AppConfig):
    name = "greycircle.moderation"
    label = "moderation"
    verbose_name = "Moderation"
