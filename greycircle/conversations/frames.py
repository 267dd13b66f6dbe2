"""The frames conversations send on `ws/me/` (typed in `MeSocketFrame` by
greycircle.notifications.frames.me_frames_add, from `ConversationsConfig.ready`)."""

from __future__ import annotations

from rest_framework import serializers

from greycircle.conversations.serializers import DirectMessageSerializer
from greycircle.games.frames import frame_type


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
    "direct_message": DirectMessageFrameSerializer,
    "direct_message_removed": DirectMessageRemovedFrameSerializer,
    "messages_unread": MessagesUnreadFrameSerializer,
}
