"""Who may read which room of a game's chat, and the messages each viewer sees.

A game has two rooms. Its players' room is read by the people seated (and staff). Its spectators'
room by anyone who may watch the game (greycircle.games.selectors.game_visible_to), but not by the
people seated while the game runs: spectators may discuss the position, and that would be a hint.
Once the game is over its players may read both rooms, as its replay shows them; spectators never
read the players' room.

What a viewer sees of a room they may read: never a message of someone they blocked or who blocked
them, a hidden (flagged) message only if they wrote it (staff see every one), and nothing at all
while they have chat turned off (in their settings, or for this game).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from accounts.models import User
from accounts.selectors import blocked_user_ids, friends_of
from greycircle.chat.models import ChatRoom, GameChatOff, GameMessage
from greycircle.games.models import GAME_OVER, Game
from greycircle.games.selectors import game_visible_to, seat_index_for

# The most messages one read returns: the newest this many, or this many after `after`.
GAME_MESSAGES_PAGE = 100


def game_room_readable(*, viewer: Any, game: Game, room: str, key: str = "") -> bool:
    """Whether `viewer` may read `room` of `game` (seats attached), following a link with `key`."""
    if viewer is None or not viewer.is_authenticated:
        return False
    if viewer.is_staff:
        return True
    seated = seat_index_for(game=game, viewer=viewer) is not None
    if room == ChatRoom.PLAYERS:
        return seated
    if seated:  # the spectators' room, once the game is over
        return game.status in GAME_OVER
    return game_visible_to(game=game, viewer=viewer, key=key)


def game_room_postable(*, viewer: Any, game: Game, room: str, key: str = "") -> bool:
    """Whether `viewer` may write in `room`: players in theirs, those who may watch in the
    spectators' (never the people seated)."""
    seated = seat_index_for(game=game, viewer=viewer) is not None
    if room == ChatRoom.PLAYERS:
        return seated
    return not seated and game_visible_to(game=game, viewer=viewer, key=key)


def game_chat_off_for(*, user: Any, game_id: int) -> bool:
    """Whether `user` has chat off in this game: in their settings, or for this game alone."""
    return not user_chat_enabled(user=user) or game_chat_off_here(user=user, game_id=game_id)


def user_chat_enabled(*, user: Any) -> bool:
    """Whether `user` has chat on in their settings (as stored now, not as `user` was read)."""
    return bool(User.objects.filter(pk=user.pk).values_list("chat_enabled", flat=True).first())


def game_chat_off_here(*, user: Any, game_id: int) -> bool:
    """Whether `user` turned chat off for this game alone (the page's switch)."""
    return GameChatOff.objects.filter(user_id=user.pk, game_id=game_id).exists()


def game_messages_for(
    *, viewer: Any, game: Game, room: str, after: int | None = None, key: str = ""
) -> QuerySet[GameMessage]:
    """The messages of `room` that `viewer` sees, oldest first: the newest GAME_MESSAGES_PAGE, or
    that many after the message `after`. Empty for a room they may not read (ask
    `game_room_readable` to tell them why)."""
    if not game_room_readable(viewer=viewer, game=game, room=room, key=key):
        return GameMessage.objects.none()
    if not viewer.is_staff and game_chat_off_for(user=viewer, game_id=game.pk):
        return GameMessage.objects.none()
    messages = GameMessage.objects.filter(game=game, room=room).select_related("author")
    if not viewer.is_staff:
        messages = messages.filter(Q(hidden=False) | Q(author_id=viewer.pk))
        messages = messages.exclude(author_id__in=blocked_user_ids(user=viewer))
    if after is not None:
        return messages.filter(pk__gt=after).order_by("pk")[:GAME_MESSAGES_PAGE]
    newest = list(messages.order_by("-pk").values_list("pk", flat=True)[:GAME_MESSAGES_PAGE])
    return messages.filter(pk__in=newest).order_by("pk")


def friend_ids_of(*, user: Any) -> set[int]:
    """Ids of `user`'s friends: whose links `user`'s page makes clickable."""
    return set(friends_of(user=user).values_list("friend_id", flat=True))


def game_chat_off_user_ids(*, game_id: int) -> set[int]:
    """The users who turned chat off for this game alone (the page's switch)."""
    return set(GameChatOff.objects.filter(game_id=game_id).values_list("user_id", flat=True))


def game_message_json(*, message: GameMessage, links: bool) -> dict[str, Any]:
    """A message as the API and the sockets send it; `links`: whether the viewer's client may make
    its links clickable (the author is the viewer or their friend, and it has some)."""
    return {
        "id": message.pk,
        "room": message.room,
        "author": {"id": message.author_id, "username": message.author.username},
        "body": message.body,
        "created": message.created,
        "hidden": message.hidden,
        "links": links and message.has_links,
    }


def game_messages_json(
    *, viewer: Any, messages: QuerySet[GameMessage] | list[GameMessage]
) -> list[dict[str, Any]]:
    """`messages` as `viewer` gets them (one query for their friends)."""
    trusted = friend_ids_of(user=viewer) | {viewer.pk}
    return [
        game_message_json(message=message, links=message.author_id in trusted)
        for message in messages
    ]


def game_messages_data_of(*, user: Any) -> list[dict[str, Any]]:
    """What `user` wrote in games' chats, oldest first: for their data (greycircle.players)."""
    return [
        {"game": game_id, "room": room, "body": body, "created": created}
        for game_id, room, body, created in GameMessage.objects.filter(author_id=user.pk)
        .order_by("pk")
        .values_list("game_id", "room", "body", "created")
    ]
