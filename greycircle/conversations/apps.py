from django.apps import AppConfig


class ConversationsConfig(AppConfig):
    name = "greycircle.conversations"
    label = "conversations"
    verbose_name = "Messages between friends"

    def ready(self) -> None:
        from greycircle.conversations.frames import ME_FRAMES
        from greycircle.notifications.frames import me_frames_add

        me_frames_add(ME_FRAMES)  # `ws/me/`'s frames of messages, in `/api/schema/`
