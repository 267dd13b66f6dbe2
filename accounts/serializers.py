from django.db import models
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.models import FriendRequest, User


class MeSerializer(serializers.ModelSerializer):
    class Meta:
        model = User
        fields = [
            "id",
            "username",
            "email",
            "date_joined",
            "show_helpers",
            "accept_invitations_from_anyone",
            *User.EMAIL_PREFERENCES,
        ]
        read_only_fields = ["id", "username", "email", "date_joined"]


# --- Friends and blocks -----------------------------------------------------------------------

USERNAME_MAX_LENGTH = User._meta.get_field("username").max_length


class UserRefSerializer(serializers.Serializer):
    """Another user, as friends and blocks name them."""

    id = serializers.IntegerField()
    username = serializers.CharField()


class UsernameSerializer(serializers.Serializer):
    """Whom to ask or block, by username (matched ignoring case)."""

    username = serializers.CharField(max_length=USERNAME_MAX_LENGTH)


class FriendSerializer(serializers.Serializer):
    """One of my friends (a `Friendship` row seen from my side)."""

    user = UserRefSerializer(source="friend")
    since = serializers.DateTimeField(source="created_at")


class FriendRequestDirection(models.TextChoices):
    INCOMING = "incoming", "sent to me"
    OUTGOING = "outgoing", "sent by me"


class FriendRequestSerializer(serializers.Serializer):
    """A pending friend request I sent or received. Needs `viewer` in the context."""

    id = serializers.IntegerField()
    direction = serializers.SerializerMethodField()
    from_user = UserRefSerializer()
    to_user = UserRefSerializer()
    created_at = serializers.DateTimeField()

    @extend_schema_field(serializers.ChoiceField(choices=FriendRequestDirection.choices))
    def get_direction(self, request: FriendRequest) -> str:
        viewer = self.context["viewer"]
        if request.to_user_id == viewer.pk:
            return FriendRequestDirection.INCOMING
        return FriendRequestDirection.OUTGOING


class FriendRequestQuerySerializer(serializers.Serializer):
    direction = serializers.ChoiceField(
        choices=FriendRequestDirection.choices,
        required=False,
        help_text="Only requests sent to me (`incoming`) or by me (`outgoing`).",
    )


class FriendRequestSentStatus(models.TextChoices):
    REQUESTED = "requested", "the request waits for their answer"
    FRIENDS = "friends", "they had asked me: we are friends now"


class FriendRequestSentSerializer(serializers.Serializer):
    """What sending a request did: `requested` with the pending `request`, or `friends` with the
    new `friend` when they had already asked me (their request is accepted)."""

    status = serializers.ChoiceField(choices=FriendRequestSentStatus.choices)
    request = FriendRequestSerializer(allow_null=True)
    friend = FriendSerializer(allow_null=True)


class BlockSerializer(serializers.Serializer):
    """A user I blocked."""

    user = UserRefSerializer(source="blocked")
    created_at = serializers.DateTimeField()
