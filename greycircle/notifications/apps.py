from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "greycircle.notifications"
    label = "notifications"
    verbose_name = "Notifications"
