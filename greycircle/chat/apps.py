from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "greycircle.chat"
    label = "chat"
    verbose_name = "Game chat"
