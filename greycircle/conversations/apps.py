from django.apps import AppConfig


class ConversationsConfig(AppConfig):
    name = "greycircle.conversations"
    label = "conversations"
    verbose_name = "Messages between friends"
