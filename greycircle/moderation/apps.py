from django.apps import AppConfig
from django.db.models.signals import post_migrate


class ModerationConfig(AppConfig):
    name = "greycircle.moderation"
    label = "moderation"
    verbose_name = "Moderation"

    def ready(self) -> None:
        from greycircle.moderation.permissions import moderators_group_ensure

        # After every app's migrations, not only this one's (see greycircle.moderation.permissions).
        post_migrate.connect(moderators_group_ensure, dispatch_uid="moderation.moderators_group")
