from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "greycircle.notifications"
    label = "notifications"
    verbose_name = "Notifications"

    def ready(self) -> None:
        from accounts.signals import friend_news
        from greycircle.api.schema import components_publish
        from greycircle.games import signals
        from greycircle.moderation import signals as moderation_signals
        from greycircle.notifications import delivery, digest, frames, mail_tasks, receivers
        from greycircle.runtime.sweeps import sweep_register

        components_publish(*frames.PUBLISHED)  # `ws/me/`'s frames, in `/api/schema/`
        # What happened, told to whom it concerns (greycircle.notifications.receivers).
        signals.game_changed.connect(
            receivers.game_changed_received, dispatch_uid="notifications.game_changed"
        )
        signals.invitation_changed.connect(
            receivers.invitation_changed_received, dispatch_uid="notifications.invitation_changed"
        )
        signals.game_news.connect(receivers.news_received, dispatch_uid="notifications.game_news")
        friend_news.connect(receivers.news_received, dispatch_uid="notifications.friend_news")
        moderation_signals.moderation_notice.connect(
            receivers.news_received, dispatch_uid="notifications.moderation_notice"
        )
        sweep_register(
            name="daily digests", run=mail_tasks.digests_send, every=digest.digest_sweep_period
        )
        # Receipts of delivered notifications, kept while their task may run again.
        sweep_register(
            name="notification receipts",
            run=delivery.delivery_receipts_prune,
            every=lambda: delivery.RECEIPTS_SWEEP_EVERY,
        )
