from __future__ import annotations

from rest_framework import serializers

from greycircle.ratings.models import UnratedReason


class RatingChangeSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    before = serializers.IntegerField(help_text="The seat's rating before the game, rounded.")
    after = serializers.IntegerField(help_text="Its rating after the game, rounded.")


class GameRatingSerializer(serializers.Serializer):
    """Whether a finished game moved its players' ratings, and if not, why."""

    rated = serializers.BooleanField()
    reason = serializers.ChoiceField(
        choices=UnratedReason.choices,
        allow_null=True,
        help_text="Why it is not rated (null when it is): `casual` (a casual game, which "
        "rates nobody), `computers` (fewer than two people played), `too_short` (a person made "
        "fewer than the kind's minimum of moves: 2, King's Corner 3), `pair_limit` (two of its "
        "players already have 5 rated games of the kind, at either speed, against each other in "
        "the last 24 hours).",
    )
    detail = serializers.CharField(help_text='The verdict in words, e.g. "Not rated: ...".')
    changes = RatingChangeSerializer(
        many=True, help_text="Each person's rating before and after (empty when not rated)."
    )


class LeaderboardEntrySerializer(serializers.Serializer):
    """One rating on a leaderboard."""

    rank = serializers.IntegerField(help_text="1 for the best rating.")
    username = serializers.CharField(source="user.username")
    rating = serializers.IntegerField(help_text="Glicko-2 rating, rounded.")
    deviation = serializers.IntegerField(
        help_text="Rating deviation, rounded: the rating is within about twice this, 95% sure."
    )
    games = serializers.IntegerField(help_text="Rated games played at this kind and speed.")
    provisional = serializers.BooleanField(
        help_text='Too few rated games to trust (the deviation is above 110): shown as "1650?".'
    )
