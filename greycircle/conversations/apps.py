from django.apps import AppConfig


class ConversationsConfig(AppConfig):
    name = "greycircle.conversations"
    label = "conversations"
    verbose_name = "Messages between friends"

    def ready(self) -> None:
        from greycircle.conversations.frames import ME_FRAMES
        from greycircle.conversations.services import MESSAGE_EVENT, message_news_out_of_date
        from greycircle.notifications.frames import me_frames_add
        from greycircle.notifications.texts import out_of_date_check_register

        me_frames_add(ME_FRAMES)  # `ws/me/`'s frames of messages, in `/api/schema/`
        out_of_date_check_register(event=MESSAGE_EVENT, check=message_news_out_of_date)
