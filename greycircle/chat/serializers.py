"""The shapes of game chat, in the REST API and on the game's socket."""

from __future__ import annotations

from rest_framework import serializers

from accounts.serializers import UserRefSerializer
from greycircle.chat.models import CLIENT_ID_MAX, CLIENT_ID_PATTERN, ChatRoom
from greycircle.chat.screening import CHAT_MESSAGE_MAX_CHARS
from greycircle.games.serializers import EnumField

ROOM_HELP = (
    "`players`: the people seated (spectators never read it); `spectators`: whoever may watch the "
    "game but the people seated, who read it once the game is over."
)


def room_field(**kwargs) -> EnumField:
    return EnumField(ChatRoom.choices, enum_name="ChatRoomEnum", help_text=ROOM_HELP, **kwargs)


def client_id_field(**kwargs) -> serializers.RegexField:
    """A client's id for a message: its idempotency key (`GameMessage.client_id`)."""
    return serializers.RegexField(
        CLIENT_ID_PATTERN,
        max_length=CLIENT_ID_MAX,
        help_text="My own id for this message, unique among my messages (e.g. 16 random bytes in "
        "hex; 1 to 64 letters, digits and `_.:-`): the same message sent again with it, on the "
        "game's socket or over HTTP, is posted once and answered with the message posted; "
        "another message with it is refused `message_id_reused`.",
        **kwargs,
    )


class GameMessageSerializer(serializers.Serializer):
    """A message of a game's chat, as I may see it."""

    id = serializers.IntegerField()
    room = room_field()
    author = UserRefSerializer()
    body = serializers.CharField(
        help_text="Plain text (markup is not markup: show it as text, escaped), at most "
        f"{CHAT_MESSAGE_MAX_CHARS} characters."
    )
    created = serializers.DateTimeField()
    hidden = serializers.BooleanField(
        help_text="Flagged by the screening: nobody but me (its author) and staff sees it until "
        "staff have looked at it."
    )
    links = serializers.BooleanField(
        help_text="Whether to make its web addresses clickable: only in messages of mine or my "
        "friends' that have some (a stranger's stay plain text)."
    )


class GameChatSerializer(serializers.Serializer):
    """One room of a game's chat, as I may read it."""

    room = room_field()
    messages = GameMessageSerializer(
        many=True,
        help_text="Oldest first: the newest 100, or up to 100 after `after`. None while my chat "
        "is off.",
    )
    chat_on = serializers.BooleanField(
        help_text="Whether I have chat on here (in my settings and for this game)."
    )
    chat_on_here = serializers.BooleanField(
        help_text="Whether I have chat on for this game (`PUT .../chat/switch/`); it also takes my "
        "settings' `chat_enabled`."
    )


class GameChatQuerySerializer(serializers.Serializer):
    room = room_field(required=False, default=ChatRoom.PLAYERS)
    after = serializers.IntegerField(
        required=False, min_value=0, max_value=2**63 - 1, help_text="Only messages after this id."
    )
    key = serializers.CharField(
        required=False, max_length=64, help_text="An unlisted game's link key."
    )


class GameMessagePostSerializer(serializers.Serializer):
    id = client_id_field(required=False)
    room = room_field()
    body = serializers.CharField(
        trim_whitespace=False,
        allow_blank=True,
        help_text=f"Plain text; kept NFC-normalised, invisible characters removed and white space "
        f"collapsed, at most {CHAT_MESSAGE_MAX_CHARS} characters then.",
    )


class GameChatSwitchSerializer(serializers.Serializer):
    on = serializers.BooleanField(help_text="Chat on (true) or off (false) for me in this game.")
