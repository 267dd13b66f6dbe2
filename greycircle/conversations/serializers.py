"""The JSON of conversations and their messages (the REST API's, and `ws/me/`'s frames')."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from greycircle.conversations.models import DirectMessage
from greycircle.games.events import jsonable


class DirectMessageSerializer(serializers.ModelSerializer):
    """A message as its viewer may see it: the text exactly as typed (plain text, never
    markup: show it as text)."""

    sender = serializers.CharField(source="sender.username", help_text="Who wrote it.")
    conversation = serializers.IntegerField(source="conversation_id")

    class Meta:
        model = DirectMessage
        fields = ["id", "conversation", "sender", "body", "created"]
        read_only_fields = fields


class ConversationSerializer(serializers.Serializer):
    """One of my conversations (a `selectors.ConversationSummary`): with whom, the last message
    I may see, how many of theirs are unread."""

    id = serializers.IntegerField(source="conversation.pk")
    with_user = serializers.CharField(source="other.username", help_text="The other person.")
    created = serializers.DateTimeField(source="conversation.created")
    last_message = DirectMessageSerializer(allow_null=True)
    unread_count = serializers.IntegerField(help_text="Their messages I have not read.")


class ConversationStartSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150, help_text="The friend to talk with.")


class DirectMessageSendSerializer(serializers.Serializer):
    body = serializers.CharField(
        trim_whitespace=False,
        allow_blank=True,
        max_length=10_000,
        help_text="Plain text (markup is shown as typed). At most 500 characters.",
    )


class MessagesQuerySerializer(serializers.Serializer):
    after = serializers.IntegerField(
        required=False, min_value=0, help_text="Only the messages after this message id."
    )


class ConversationReadSerializer(serializers.Serializer):
    up_to = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="Read up to this message id (default: the last one).",
    )


class ConversationReadResultSerializer(serializers.Serializer):
    unread_count = serializers.IntegerField(help_text="This conversation's unread messages.")
    messages_unread_count = serializers.IntegerField(
        help_text="My unread messages in all conversations."
    )


def message_json(message: DirectMessage) -> dict[str, Any]:
    """`message` as the API and `ws/me/` send it (JSON-ready)."""
    return jsonable(dict(DirectMessageSerializer(message).data))
