from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS
from django.db import models
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.settings import api_settings

from accounts.forms import GuestUpgradeForm
from accounts.models import FriendRequest, Friendship, User
from greycircle.games.models import GameStatus
from greycircle.games.serializers import (
    GameEnvelopeSerializer,
    KindField,
    MoveLogEntrySerializer,
    OutcomeSerializer,
    SeatSerializer,
)
from greycircle.notifications.presence import user_is_online


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
            "accept_invitations_from_anyone",
            *User.EMAIL_PREFERENCES,
        ]
        read_only_fields = ["id", "username", "email", "date_joined", "is_guest"]


# --- Guests: an account in one request, and becoming a full account ---------------------------


class GuestCreateSerializer(serializers.Serializer):
    """`POST /api/v1/guest/`: a guest account, optionally with a game against the computer."""

    kind = KindField(
        required=False,
        help_text="Also start a game of this kind against the easiest computer player, as the "
        'site\'s "Play now as a guest" does. Leave out for the account alone.',
    )


class GuestSessionSerializer(serializers.Serializer):
    """The new guest, signed in: its session token, itself and the game it started, if any."""

    session_token = serializers.CharField(
        help_text="Send it as `X-Session-Token` on every API request and on the WebSocket "
        "handshake, as a token from allauth headless. It is the guest's only way in: it lasts "
        "`GUESTS_IDLE_DAYS` (default 30) and each day's first request renews it."
    )
    user = MeSerializer()
    game = GameEnvelopeSerializer(
        allow_null=True, help_text="The game started against the computer; null without `kind`."
    )


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


# --- My account: deletion and my data ---------------------------------------------------------


class AccountDeleteSerializer(serializers.Serializer):
    """Confirmation of `DELETE /api/v1/me/`: my password, or `confirm` for a guest (who has
    none)."""

    password = serializers.CharField(
        required=False, allow_blank=True, max_length=4096, trim_whitespace=False
    )
    confirm = serializers.BooleanField(
        required=False, default=False, help_text="Guests only: yes, delete my account."
    )


class EmailAddressDataSerializer(serializers.Serializer):
    email = serializers.EmailField()
    primary = serializers.BooleanField()
    verified = serializers.BooleanField()


class ProfileDataSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    email = serializers.CharField(allow_blank=True)
    email_addresses = EmailAddressDataSerializer(many=True)
    is_guest = serializers.BooleanField()
    date_joined = serializers.DateTimeField()
    last_login = serializers.DateTimeField(allow_null=True)


class SettingsDataSerializer(serializers.ModelSerializer):
    class Meta:
        model = User
        fields = ["show_helpers", "accept_invitations_from_anyone", *User.EMAIL_PREFERENCES]


@extend_schema_field(MoveLogEntrySerializer(many=True))
class MoveLogField(serializers.ListField):
    """Log entries as the games selectors make them, each kind's fields and all (a serializer
    would keep only the platform's); documented as the kinds' log entries."""

    child = serializers.DictField()


class GameDataSerializer(serializers.Serializer):
    """One of my games, with its move log as I may see it."""

    id = serializers.IntegerField()
    kind = serializers.CharField()
    status = serializers.ChoiceField(choices=GameStatus.choices)
    your_seat = serializers.IntegerField()
    seats = SeatSerializer(many=True)
    outcome = OutcomeSerializer(allow_null=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    moves = MoveLogField(
        help_text="The move log as I may see it: each entry as `GET /games/{id}/moves/` gives it "
        "(number, seat, at, imported and the kind's own fields; my own seat's private detail, "
        "never another's).",
    )


class NamedSinceSerializer(serializers.Serializer):
    username = serializers.CharField()
    since = serializers.DateTimeField()


class FriendRequestDataSerializer(serializers.Serializer):
    from_user = serializers.CharField()
    to_user = serializers.CharField()
    created_at = serializers.DateTimeField()


class RatingDataSerializer(serializers.Serializer):
    kind = serializers.CharField()
    rating = serializers.FloatField()
    deviation = serializers.FloatField()
    games = serializers.IntegerField()


class NotificationDataSerializer(serializers.Serializer):
    kind = serializers.CharField()
    text = serializers.CharField()
    link = serializers.CharField(allow_blank=True)
    read = serializers.BooleanField()
    created = serializers.DateTimeField()


class AccountDataSerializer(serializers.Serializer):
    """Everything the site keeps about me (`GET /api/v1/me/data/`, the site's /account/data/)."""

    exported_at = serializers.DateTimeField()
    profile = ProfileDataSerializer()
    settings = SettingsDataSerializer()
    games = GameDataSerializer(many=True)
    friends = NamedSinceSerializer(many=True)
    friend_requests = FriendRequestDataSerializer(many=True, help_text="Pending, either way.")
    blocks = NamedSinceSerializer(many=True, help_text="The users I blocked.")
    ratings = RatingDataSerializer(many=True)
    notifications = NotificationDataSerializer(many=True)
