from __future__ import annotations

from rest_framework import serializers

from greycircle.games.models import GameSpeed
from greycircle.games.serializers import GameSummarySerializer


class TallySerializer(serializers.Serializer):
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    lost = serializers.IntegerField()
    tied = serializers.IntegerField(help_text="Nobody won, or the win was shared.")


class LevelTallySerializer(TallySerializer):
    level = serializers.CharField(help_text="The strongest computer player at the table.")


class RatingSummarySerializer(serializers.Serializer):
    speed = serializers.ChoiceField(
        choices=GameSpeed.choices, help_text="Live and correspondence games are rated apart."
    )
    rating = serializers.IntegerField()
    deviation = serializers.IntegerField()
    provisional = serializers.BooleanField(
        help_text='Too few rated games to trust (the deviation is above 110): shown as "1650?".'
    )
    games = serializers.IntegerField(help_text="Rated games (between people) at this speed.")


class KindStatisticsSerializer(serializers.Serializer):
    kind = serializers.CharField()
    title = serializers.CharField()
    all = TallySerializer(help_text="Every finished game of this kind.")
    against_people = TallySerializer()
    against_computer = LevelTallySerializer(many=True)
    head_to_head = TallySerializer(
        allow_null=True,
        help_text="Games between this player and you, counted from your side; null on your own "
        "profile or signed out.",
    )
    ratings = RatingSummarySerializer(
        many=True,
        help_text="A rating per speed the player has rated games at: correspondence, then live "
        "(empty when none).",
    )


class ProfileSerializer(serializers.Serializer):
    """A player as anyone may see them. Statistics count finished games only."""

    username = serializers.CharField()
    joined = serializers.DateTimeField()
    online = serializers.BooleanField(help_text="Has a live connection to the site right now.")
    statistics = KindStatisticsSerializer(many=True)
    recent_games = GameSummarySerializer(many=True)
