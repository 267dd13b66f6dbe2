"""Chat's frames on `ws/games/{id}/`, added to the games' (greycircle.games.frames) when the app
is ready: a client sends `chat` (`ChatFrame`), answered `chat_ack` or `chat_error`; every socket
whose user may read the room gets `chat_message`, and `chat_message_removed` when staff hide one."""

from __future__ import annotations

from rest_framework import serializers

from greycircle.api.serializers import ErrorSerializer
from greycircle.chat.models import CLIENT_ID_MAX
from greycircle.chat.serializers import GameMessageSerializer, client_id_field, room_field
from greycircle.games.frames import frame_type

# A frame's `id`: the client's own, echoed in the answer, and the message's idempotency key.
CHAT_ID_MAX = CLIENT_ID_MAX


class ChatFrameSerializer(serializers.Serializer):
    """A message to post in the game's chat, as `POST /games/{id}/chat/` posts it."""

    type = frame_type("chat")
    id = client_id_field()
    room = room_field()
    body = serializers.CharField(
        trim_whitespace=False, allow_blank=True, help_text="As `POST /games/{id}/chat/` takes it."
    )


class ChatAckFrameSerializer(serializers.Serializer):
    """My message `id` is posted (its `chat_message` follows, as to everyone else), or was
    already: then `message` is the one posted, and no `chat_message` follows again."""

    type = frame_type("chat_ack")
    id = serializers.CharField()
    message = GameMessageSerializer()


class ChatErrorFrameSerializer(ErrorSerializer):
    """My message `id` was refused, as `POST /games/{id}/chat/` would refuse it: not posted."""

    type = frame_type("chat_error")
    id = serializers.CharField(
        allow_null=True, help_text="The frame's `id`; null if it had none that is valid."
    )
    code = serializers.CharField(
        help_text="Those of `POST /games/{id}/chat/`: `invalid` (the frame: see `fields`), "
        "`invalid_room`, `not_a_player`, `not_a_spectator`, `chat_off`, `chat_muted` (with "
        "`until`), `message_empty`, `message_too_long`, `too_many_messages` (with "
        "`retry_after`), `message_id_reused` (`id` names another message of mine), "
        "`game_not_found`; `server_error`."
    )
    until = serializers.DateTimeField(
        required=False, help_text="With chat_muted: when the mute ends."
    )


class ChatMessageFrameSerializer(serializers.Serializer):
    """A new message in a room I may read (not one of someone blocked either way, nor a hidden
    one of someone else's, nor any while my chat is off here)."""

    type = frame_type("chat_message")
    message = GameMessageSerializer()


class ChatMessageRemovedFrameSerializer(serializers.Serializer):
    """The moderators hid a message of someone else's (they acted on a report of it): drop it
    from the room. Sent to everyone who may read the room but its author."""

    type = frame_type("chat_message_removed")
    id = serializers.IntegerField(help_text="The message's `id`.")
    room = room_field()


SENT = {
    "chat_ack": ChatAckFrameSerializer,
    "chat_error": ChatErrorFrameSerializer,
    "chat_message": ChatMessageFrameSerializer,
    "chat_message_removed": ChatMessageRemovedFrameSerializer,
}
RECEIVED = {"chat": ChatFrameSerializer}
