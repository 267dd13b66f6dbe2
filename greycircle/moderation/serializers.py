"""What a player sees of their own sanctions: the notices in force, on `/api/v1/me/` (never
another player's: staff read those in the admin). The reason staff gave is never sent."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.serializers import MeSerializer
from greycircle.moderation.models import Sanction
from greycircle.moderation.sanctions import sanctions_active


class SanctionNoticeSerializer(serializers.ModelSerializer):
    """A sanction in force on me: a warning or rename not yet acknowledged
    (`POST /api/v1/me/sanctions/{id}/acknowledge/`), a chat mute or a bar from rated games
    until `until`."""

    class Meta:
        model = Sanction
        fields = ["id", "kind", "notice", "until"]
        read_only_fields = fields
        extra_kwargs = {
            "notice": {"help_text": "What the moderators tell you."},
            "until": {"help_text": "When a mute or bar ends (null for the other kinds)."},
        }


class MeWithSanctionsSerializer(MeSerializer):
    """Me and my settings, with the sanctions in force on me."""

    sanctions = serializers.SerializerMethodField(
        help_text="The moderators' sanctions in force on me, newest first (usually none)."
    )

    class Meta(MeSerializer.Meta):
        fields = [*MeSerializer.Meta.fields, "sanctions"]
        read_only_fields = [*MeSerializer.Meta.read_only_fields, "sanctions"]

    @extend_schema_field(SanctionNoticeSerializer(many=True))
    def get_sanctions(self, user: Any) -> list[dict[str, Any]]:
        return SanctionNoticeSerializer(sanctions_active(user=user), many=True).data
