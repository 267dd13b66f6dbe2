from __future__ import annotations

from rest_framework import serializers


class LeaderboardEntrySerializer(serializers.Serializer):
    """One established rating on a leaderboard."""

    rank = serializers.IntegerField(help_text="1 for the best rating.")
    username = serializers.CharField(source="user.username")
    rating = serializers.IntegerField(help_text="Glicko-2 rating, rounded.")
    deviation = serializers.IntegerField(
        help_text="Rating deviation, rounded: the rating is within about twice this, 95% sure."
    )
    games = serializers.IntegerField(help_text="Rated games played at this kind.")
