from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "greycircle.reports"
    label = "reports"
    verbose_name = "Reports"

    def ready(self) -> None:
        from greycircle.chat.signals import message_flagged
        from greycircle.games.signals import game_changed
        from greycircle.moderation.flags import flag_raised
        from greycircle.reports import automatic

        message_flagged.connect(
            automatic.message_flagged_received, dispatch_uid="reports.message_flagged"
        )
        flag_raised.connect(automatic.flag_raised_received, dispatch_uid="reports.flag_raised")
        game_changed.connect(automatic.game_changed_received, dispatch_uid="reports.stalling")
