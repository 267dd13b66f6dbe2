"""The JSON shapes of `/api/v1/reports/`: a report as filed, and as its reporter sees it."""

from __future__ import annotations

from rest_framework import serializers

from greycircle.reports.models import COMMENT_MAX, ReportReason, ReportStatus


class ReportCreateSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(choices=ReportReason.choices)
    comment = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=COMMENT_MAX,
        trim_whitespace=True,
        help_text="What happened, in the reporter's words (optional).",
    )
    username = serializers.CharField(
        required=False,
        allow_null=True,
        default=None,
        max_length=150,
        help_text="The player reported: alone, their profile; with `game`, which of its players "
        "(needed when it has more than one other person).",
    )
    game = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=1, help_text="A game's id."
    )
    game_message = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        help_text="A message of a game's chat (its author is reported).",
    )
    direct_message = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        help_text="A message from a friend (its sender is reported).",
    )


class ReportSerializer(serializers.Serializer):
    """A report as its reporter sees it: whether staff handled it, never what they did."""

    id = serializers.IntegerField()
    reason = serializers.ChoiceField(choices=ReportReason.choices)
    created = serializers.DateTimeField()
    status = serializers.ChoiceField(
        choices=ReportStatus.choices, help_text="`handled` once a moderator has looked at it."
    )
