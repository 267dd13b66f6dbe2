"""The frames of `ws/me/`, the user's stream, as components of `/api/schema/` (`MeSocketFrame`).

Beside the games' frames (greycircle.games.frames, which says why these are OpenAPI components
rather than an AsyncAPI document): `hello` on connect, a `notification` for each event with what
it did to the inbox (`inbox` is the REST API's `Notification`), `unread` when notifications are
marked read, and the `pong` and `error` frames both streams share. Published when the app is ready
(`NotificationsConfig.ready`).
"""

from __future__ import annotations

from rest_framework import serializers

from greycircle.games.frames import PongFrameSerializer, SocketErrorFrameSerializer, frame_type
from greycircle.games.models import GameSpeed, InvitationStatus
from greycircle.games.serializers import ConstField, GameOutcomeField, KindField, OneOfSerializer
from greycircle.moderation.models import SanctionKind
from greycircle.notifications.serializers import NotificationSerializer

# --- the notification events ------------------------------------------------------------


class _GameEventSerializer(serializers.Serializer):
    game = serializers.IntegerField(help_text="The game it is about.")
    kind = KindField()


class _GameVersionEventSerializer(_GameEventSerializer):
    version = serializers.IntegerField(help_text="The game's version when it happened.")


class _InvitationEventSerializer(_GameVersionEventSerializer):
    invitation = serializers.IntegerField()
    status = serializers.ChoiceField(choices=InvitationStatus.choices)


class InvitationEventSerializer(_GameVersionEventSerializer):
    """You are invited to play (`invitation`, `expires_at`: the invitation to your seat, if one
    waits for your answer)."""

    event = ConstField("invitation", enum_name="InvitationEventEnum")
    by = serializers.CharField(help_text="Who started the game.")
    invitation = serializers.IntegerField(required=False)
    expires_at = serializers.DateTimeField(required=False)


class InvitationAcceptedEventSerializer(_InvitationEventSerializer):
    event = ConstField("invitation_accepted", enum_name="InvitationAcceptedEventEnum")
    player = serializers.CharField(help_text="Who was invited.")


class InvitationDeclinedEventSerializer(_InvitationEventSerializer):
    event = ConstField("invitation_declined", enum_name="InvitationDeclinedEventEnum")
    player = serializers.CharField(help_text="Who was invited.")


class InvitationExpiredEventSerializer(_InvitationEventSerializer):
    event = ConstField("invitation_expired", enum_name="InvitationExpiredEventEnum")
    player = serializers.CharField(help_text="Who was invited.")


class InvitationCancelledEventSerializer(_InvitationEventSerializer):
    """The invitation to you was withdrawn."""

    event = ConstField("invitation_cancelled", enum_name="InvitationCancelledEventEnum")
    by = serializers.CharField(allow_null=True, help_text="Who invited you (null: account gone).")


class PlayerJoinedEventSerializer(_GameVersionEventSerializer):
    event = ConstField("player_joined", enum_name="PlayerJoinedEventEnum")
    player = serializers.CharField(help_text="Who took a seat.")


class YourTurnEventSerializer(_GameVersionEventSerializer):
    event = ConstField("your_turn", enum_name="YourTurnEventEnum")


class GameOverEventSerializer(_GameVersionEventSerializer):
    event = ConstField("game_over", enum_name="GameOverEventEnum")
    outcome = GameOutcomeField(help_text="How it ended: finished, or aborted and why.")


class GameWithdrawnEventSerializer(_GameVersionEventSerializer):
    event = ConstField("game_withdrawn", enum_name="GameWithdrawnEventEnum")
    by = serializers.CharField(help_text="Who started (and withdrew) the game.")


class ReminderEventSerializer(_GameVersionEventSerializer):
    event = ConstField("reminder", enum_name="ReminderEventEnum")
    by = serializers.CharField(help_text="Who reminds you that it is your turn.")


class TimeRunningOutEventSerializer(_GameVersionEventSerializer):
    event = ConstField("time_running_out", enum_name="TimeRunningOutEventEnum")
    deadline = serializers.DateTimeField(help_text="When your time to move runs out.")


class SeatTakenOverEventSerializer(_GameEventSerializer):
    """Your time ran out: the computer plays your seat from now on."""

    event = ConstField("seat_taken_over", enum_name="SeatTakenOverEventEnum")
    level = serializers.CharField(help_text="The computer player's level (the kind's own).")


class WinClaimableEventSerializer(_GameEventSerializer):
    """The player to move ran out of time: you may claim the win."""

    event = ConstField("win_claimable", enum_name="WinClaimableEventEnum")
    player = serializers.CharField(help_text="Who ran out of time.")


class FriendRequestEventSerializer(serializers.Serializer):
    event = ConstField("friend_request", enum_name="FriendRequestEventEnum")
    request = serializers.IntegerField(help_text="The friend request's id.")
    by = serializers.CharField(help_text="Who asks to be your friend.")


class MessageEventSerializer(serializers.Serializer):
    """A friend sent you a message (the message itself comes in a `direct_message` frame)."""

    event = ConstField("message", enum_name="MessageEventEnum")
    by = serializers.CharField(help_text="Who sent it.")
    conversation = serializers.IntegerField(help_text="The conversation's id.")
    message = serializers.IntegerField(help_text="The message's id.")


class FriendAcceptedEventSerializer(serializers.Serializer):
    event = ConstField("friend_accepted", enum_name="FriendAcceptedEventEnum")
    by = serializers.CharField(help_text="Who accepted your friend request.")
    user = serializers.IntegerField(help_text="Their user id.")


class ModerationNoticeEventSerializer(serializers.Serializer):
    """The moderators sanctioned you, or lifted a sanction (`lifted`); `/api/v1/me/`'s
    `sanctions` lists those in force."""

    event = ConstField("moderation_notice", enum_name="ModerationNoticeEventEnum")
    sanction = serializers.IntegerField(help_text="The sanction's id.")
    sanction_kind = serializers.ChoiceField(choices=SanctionKind.choices)
    lifted = serializers.BooleanField(help_text="True: the sanction was lifted.")
    notice = serializers.CharField(help_text="What the moderators tell you.")
    until = serializers.DateTimeField(
        allow_null=True, help_text="When a mute or bar ends (null: lifted, or another kind)."
    )


class NotificationEventSerializer(OneOfSerializer):
    """What happened, told apart by `event`."""

    discriminator = "event"
    variants = {
        serializer._declared_fields["event"].value: serializer
        for serializer in (
            InvitationEventSerializer,
            InvitationAcceptedEventSerializer,
            InvitationDeclinedEventSerializer,
            InvitationExpiredEventSerializer,
            InvitationCancelledEventSerializer,
            PlayerJoinedEventSerializer,
            YourTurnEventSerializer,
            GameOverEventSerializer,
            GameWithdrawnEventSerializer,
            ReminderEventSerializer,
            TimeRunningOutEventSerializer,
            SeatTakenOverEventSerializer,
            WinClaimableEventSerializer,
            FriendRequestEventSerializer,
            FriendAcceptedEventSerializer,
            MessageEventSerializer,
            ModerationNoticeEventSerializer,
        )
    }


# --- ws/me/ ------------------------------------------------------------------------------------


class HelloFrameSerializer(serializers.Serializer):
    """Sent on connect: a client that reconnects corrects its badge with `unread_count`."""

    type = frame_type("hello")
    user = serializers.CharField(help_text="Your username.")
    unread_count = serializers.IntegerField()


class NotificationFrameSerializer(serializers.Serializer):
    """Something happened that concerns you, with what it did to your inbox. The inbox members
    are absent when the inbox could not be reached (the database failed): the event still goes
    out."""

    type = frame_type("notification")
    notification = NotificationEventSerializer()
    inbox = NotificationSerializer(
        allow_null=True,
        required=False,
        help_text="The notification the event left in your inbox (null: one it keeps none of).",
    )
    removed = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        help_text="Ids of the notifications `inbox` replaced (a game's turns and result are one).",
    )
    read = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        help_text="Ids of the notifications the event marked read.",
    )
    unread_count = serializers.IntegerField(required=False, help_text="Your new unread count.")


class UnreadFrameSerializer(serializers.Serializer):
    """Notifications were marked read (in another tab, an app, by opening a game)."""

    type = frame_type("unread")
    unread_count = serializers.IntegerField()
    read = serializers.ListField(
        child=serializers.IntegerField(), help_text="Ids of the notifications marked read."
    )


class GameStartedFrameSerializer(serializers.Serializer):
    """The lobby paired your seek (`seek`) into `game`, which has started: open it (the site's
    pages open a live game at once, wherever the player is)."""

    type = frame_type("game_started")
    game = serializers.IntegerField()
    kind = KindField()
    speed = serializers.ChoiceField(choices=GameSpeed.choices)
    version = serializers.IntegerField(help_text="The game's version as it started.")
    seek = serializers.IntegerField(help_text="Your seek it matched (`/api/v1/seeks/{id}/`).")


class MeSocketFrameSerializer(OneOfSerializer):
    """A frame `ws/me/` sends."""

    discriminator = "type"
    variants = {
        "hello": HelloFrameSerializer,
        "notification": NotificationFrameSerializer,
        "unread": UnreadFrameSerializer,
        "game_started": GameStartedFrameSerializer,
        "pong": PongFrameSerializer,
        "error": SocketErrorFrameSerializer,
    }


def me_frames_add(variants: dict[str, type[serializers.Serializer]]) -> None:
    """Type frames that an app above the platform sends on `ws/me/` (greycircle.conversations:
    `direct_message`, `messages_unread`, and a `hello` with more in it than this one), with its
    own serializers, which this layer may not import; called from that app's `ready()`, before
    any schema is built."""
    MeSocketFrameSerializer.variants = {**MeSocketFrameSerializer.variants, **variants}


# What `/api/schema/` publishes as components (with every component they reference).
PUBLISHED = (MeSocketFrameSerializer,)
