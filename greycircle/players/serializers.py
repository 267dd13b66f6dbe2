"""The shapes of the players' endpoints: a guest with their first game, deleting my account, and
my data (games, inbox and ratings beside the account's own rows)."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.models import User
from accounts.serializers import MeSerializer
from greycircle.games.models import GameStatus
from greycircle.games.serializers import (
    EnumField,
    GameEnvelopeSerializer,
    GameOutcomeField,
    KindField,
    MoveLogEntrySerializer,
    SeatSerializer,
)
from greycircle.lobby.models import SeekStatus
from greycircle.lobby.serializers import RatingRangeJsonSerializer, TimeControlJsonSerializer
from greycircle.push.serializers import PushDeviceDataSerializer, WebPushSubscriptionDataSerializer
from greycircle.reports.models import ReportReason, ReportStatus

# --- Guests: an account in one request, with a game against the computer ----------------------


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
        fields = [
            "show_helpers",
            "confirm_moves",
            "accept_invitations_from_anyone",
            "chat_enabled",
            *User.NOTIFICATION_PREFERENCES,
        ]


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
    outcome = GameOutcomeField(allow_null=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    moves = MoveLogField(
        help_text="The move log as I may see it: each entry as `GET /games/{id}/moves/` gives it "
        "(number, seat, at, imported and the kind's own fields; my own seat's private detail, "
        "never another's).",
    )


class SeekDataSerializer(serializers.Serializer):
    """One of my seeks in the lobby, waiting or ended (ended ones are kept a day)."""

    kind = serializers.CharField()
    pool = serializers.CharField(help_text='As the lobby names it: "circles:3+2:2:rated".')
    seats = serializers.IntegerField()
    time_control = TimeControlJsonSerializer(
        allow_null=True, help_text="A live seek's clock; null for one by days per move."
    )
    days_per_move = serializers.IntegerField(allow_null=True)
    rated = serializers.BooleanField()
    rating = serializers.IntegerField(help_text="My rating at the pool's kind and speed then.")
    rating_range = RatingRangeJsonSerializer(
        allow_null=True, help_text="A custom seek's range of opponents' ratings."
    )
    status = EnumField(SeekStatus.choices, enum_name="SeekStatusEnum")
    created_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)
    game = serializers.IntegerField(allow_null=True, help_text="The game it was matched into.")


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


class MessageDataSerializer(serializers.Serializer):
    to_user = serializers.CharField(help_text="The friend it was sent to.")
    body = serializers.CharField()
    created = serializers.DateTimeField()


class GameMessageDataSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    room = serializers.CharField(help_text="`players` or `spectators`.")
    body = serializers.CharField()
    created = serializers.DateTimeField()


class ReportDataSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(choices=ReportReason.choices)
    comment = serializers.CharField(allow_blank=True)
    about = serializers.CharField(help_text="The player I reported.")
    created = serializers.DateTimeField()
    status = serializers.ChoiceField(
        choices=ReportStatus.choices, help_text="`handled` once a moderator has looked at it."
    )


class AccountDataSerializer(serializers.Serializer):
    """Everything the site keeps about me (`GET /api/v1/me/data/`, the site's /account/data/)."""

    exported_at = serializers.DateTimeField()
    profile = ProfileDataSerializer()
    settings = SettingsDataSerializer()
    games = GameDataSerializer(many=True)
    seeks = SeekDataSerializer(many=True, help_text="My seeks in the lobby.")
    friends = NamedSinceSerializer(many=True)
    friend_requests = FriendRequestDataSerializer(many=True, help_text="Pending, either way.")
    blocks = NamedSinceSerializer(many=True, help_text="The users I blocked.")
    ratings = RatingDataSerializer(many=True)
    notifications = NotificationDataSerializer(many=True)
    messages = MessageDataSerializer(many=True, help_text="The messages I sent friends.")
    reports = ReportDataSerializer(many=True, help_text="The reports I filed.")
    game_messages = GameMessageDataSerializer(many=True, help_text="What I wrote in games' chats.")
    push_subscriptions = WebPushSubscriptionDataSerializer(
        many=True, help_text="The browsers my notifications are pushed to."
    )
    app_devices = PushDeviceDataSerializer(
        many=True, help_text="The apps my notifications are pushed to."
    )
