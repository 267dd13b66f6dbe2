"""Notifications as the API and the `ws/me/` stream send them."""

from __future__ import annotations

from rest_framework import serializers

from greycircle.notifications.models import Notification, NotificationKind


class NotificationSerializer(serializers.ModelSerializer):
    """One notification of mine: `text` is written for me, `link` is a path on the site."""

    kind = serializers.ChoiceField(choices=NotificationKind.choices, read_only=True)
    game = serializers.IntegerField(
        source="game_id", read_only=True, allow_null=True, help_text="The game it is about, if any."
    )

    class Meta:
        model = Notification
        fields = ["id", "kind", "text", "link", "game", "read", "created"]
        read_only_fields = fields


class NotificationReadSerializer(serializers.Serializer):
    """A notification marked read, and how many of mine are still unread."""

    notification = NotificationSerializer()
    unread_count = serializers.IntegerField()


class NotificationsReadAllFilterSerializer(serializers.Serializer):
    game = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="Only the notifications about this game (as opening its page does).",
    )


class NotificationsReadAllSerializer(serializers.Serializer):
    marked = serializers.IntegerField(help_text="How many notifications this marked read.")
    unread_count = serializers.IntegerField()


class NotificationListQuerySerializer(serializers.Serializer):
    unread = serializers.BooleanField(
        required=False, help_text="Only the unread notifications (`true`)."
    )


def notification_json(notification: Notification) -> dict:
    """A notification as the API sends it (also in `ws/me/` frames)."""
    return dict(NotificationSerializer(notification).data)
