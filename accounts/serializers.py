from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS
from django.db import models
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.settings import api_settings

from accounts.forms import GuestUpgradeForm
from accounts.models import FriendRequest, Friendship, User
from greycircle.presence import user_is_online


class MeSerializer(serializers.ModelSerializer):
    class Meta:
        model = User
        fields = [
            "id",
            "username",
            "email",
            "date_joined",
            "is_guest",
            "show_helpers",
            "confirm_moves",
            "accept_invitations_from_anyone",
            "chat_enabled",
            *User.NOTIFICATION_PREFERENCES,
        ]
        read_only_fields = ["id", "username", "email", "date_joined", "is_guest"]


# --- Guests: becoming a full account (greycircle.players makes them, with their first game) ----

# The upgrade form's fields -> the API's (its two password boxes are one `password` here).
_UPGRADE_FORM_FIELDS = {"password1": "password", "password2": "password"}


class GuestUpgradeSerializer(serializers.Serializer):
    """A guest's new username, e-mail address and password, checked as sign-up checks them."""

    # Checked by the site's own upgrade form (accounts.forms.GuestUpgradeForm), so exactly as
    # the site does: look-alike and reserved names, the address as sign-up treats it, Django's
    # password validators. Needs `user` (the guest) in the context.

    username = serializers.CharField(max_length=User._meta.get_field("username").max_length)
    email = serializers.EmailField()
    password = serializers.CharField(max_length=4096, trim_whitespace=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, str]:
        password = attrs["password"]
        form = GuestUpgradeForm(
            data={
                "username": attrs["username"],
                "email": attrs["email"],
                "password1": password,
                "password2": password,
            },
            user=self.context["user"],
        )
        if not form.is_valid():
            errors: dict[str, list[str]] = {}
            for name, messages in form.errors.items():
                key = _UPGRADE_FORM_FIELDS.get(name, name)
                if key == NON_FIELD_ERRORS:
                    key = api_settings.NON_FIELD_ERRORS_KEY
                errors.setdefault(key, []).extend(str(message) for message in messages)
            raise serializers.ValidationError(errors)
        return {
            "username": form.cleaned_data["username"],
            "email": form.cleaned_data["email"],
            "password": form.cleaned_data["password1"],
        }


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
    """One of my friends (a `Friendship` row seen from my side).

    `online` comes from the context's `online` (the ids of the friends online, read for a whole
    page at once), else it is looked up for this friend.
    """

    user = UserRefSerializer(source="friend")
    since = serializers.DateTimeField(source="created_at")
    online = serializers.SerializerMethodField()

    @extend_schema_field(
        serializers.BooleanField(help_text="Online now: has a live connection to the site.")
    )
    def get_online(self, friendship: Friendship) -> bool:
        online = self.context.get("online")
        if online is None:
            return user_is_online(friendship.friend_id)
        return friendship.friend_id in online


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
