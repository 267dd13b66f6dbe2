from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "greycircle.chat"
    label = "chat"
    verbose_name = "Game chat"

    def ready(self) -> None:
        from greycircle.chat import frames
        from greycircle.games.frames import game_socket_frames_add

        # The chat frames of `ws/games/{id}/` (greycircle.chat.consumers), in its `oneOf`s.
        game_socket_frames_add(sent=frames.SENT, received=frames.RECEIVED)
