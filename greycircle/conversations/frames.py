"""The frames conversations send on `ws/me/`, and the `hello` with the messages' count that
replaces the platform's (typed in `MeSocketFrame` by
greycircle.notifications.frames.me_frames_add, from `ConversationsConfig.ready`)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from greycircle.conversations.serializers import DirectMessageSerializer
from greycircle.games.frames import frame_type
from greycircle.notifications.frames import HelloFrameSerializer


@extend_schema_serializer(component_name="HelloFrame")
class MessagesHelloFrameSerializer(HelloFrameSerializer):
    """Sent on connect: a client that reconnects corrects its badges with `unread_count` (its
    notifications) and `messages_unread_count` (its messages from friends)."""

    messages_unread_count = serializers.IntegerField(
        help_text="How many messages from friends you have not read (as `messages_unread`'s "
        "`count`)."
    )


class DirectMessageFrameSerializer(serializers.Serializer):
    """A message in one of your conversations: one you received, or one you sent (from another
    tab or app as well)."""

    type = frame_type("direct_message")
    conversation_id = serializers.IntegerField()
    message = DirectMessageSerializer()


class MessagesUnreadFrameSerializer(serializers.Serializer):
    """How many messages from friends you have not read, whenever it changes."""

    type = frame_type("messages_unread")
    count = serializers.IntegerField()


class DirectMessageRemovedFrameSerializer(serializers.Serializer):
    """The moderators hid a message you received (they acted on a report of it): drop it."""

    type = frame_type("direct_message_removed")
    conversation_id = serializers.IntegerField()
    id = serializers.IntegerField(help_text="The message's `id`.")


ME_FRAMES = {
    "hello": MessagesHelloFrameSerializer,
    "direct_message": DirectMessageFrameSerializer,
    "direct_message_removed": DirectMessageRemovedFrameSerializer,
    "messages_unread": MessagesUnreadFrameSerializer,
}
