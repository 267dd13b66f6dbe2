from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "greycircle.notifications"
    label = "notifications"
    verbose_name = "Notifications"

    def ready(self) -> None:
        from greycircle.api.schema import components_publish
        from greycircle.notifications import frames

        components_publish(*frames.PUBLISHED)  # `ws/me/`'s frames, in `/api/schema/`
