from django.apps import AppConfig


class PushConfig(AppConfig):
    name = "greycircle.push"
    label = "push"
    verbose_name = "Push"

    def ready(self) -> None:
        # Imported here: receivers reads the models, which are not loaded when apps.py is.
        from greycircle.notifications.signals import notification_kept
        from greycircle.push import receivers

        notification_kept.connect(
            receivers.notification_kept_received, dispatch_uid="push.notification_kept"
        )
