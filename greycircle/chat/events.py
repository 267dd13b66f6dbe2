"""Chat's live updates, through the games' groups (greycircle.games.events: one per audience),
sent once the change is committed. A group message carries what every socket of the audience
may be sent; each socket then leaves out what its own user may not see (a blocked author, a
hidden message of someone else, everything while chat is off) and says whether its links are
clickable for them (greycircle.chat.consumers).

A message carries the ids of the users on the other side of a block with its author, and of those
who turned chat off in its game, read as it is published (after its commit): a block or a switch
applies to every message published after it commits, on every open socket at once, with no
socket's cached view to wait out, and a message published while a user's chat was off never
reaches them, however late their socket reads it.
"""

from __future__ import annotations

from accounts.selectors import blocked_user_ids
from greycircle.chat.models import ChatRoom, GameMessage
from greycircle.chat.selectors import game_chat_off_user_ids, game_message_json
from greycircle.games.events import game_group, jsonable, publish
from greycircle.games.models import GAME_OVER, Game
from greycircle.games.selectors import game_audiences


def game_message_audiences(*, game: Game, room: str) -> list[int | None]:
    """The audiences (seats, None for spectators) that may read `room` of `game` now."""
    seats = [seat for seat in game_audiences(game=game) if seat is not None]
    if room == ChatRoom.PLAYERS:
        return seats
    return [*seats, None] if game.status in GAME_OVER else [None]


def game_message_published(*, message: GameMessage, game: Game) -> None:
    """Send `message` to the sockets of every audience that may read its room."""
    payload = {
        "type": "chat.message",
        "message": jsonable(game_message_json(message=message, links=False)),
        "author_id": message.author_id,
        "has_links": message.has_links,
        # One query per message rather than one per socket; read now, so a block committed
        # since the message was posted is already in it.
        "blocked_ids": sorted(blocked_user_ids(user=message.author_id)),
        "chat_off_ids": sorted(game_chat_off_user_ids(game_id=game.pk)),
    }
    publish(
        [
            (game_group(game.pk, seat), payload)
            for seat in game_message_audiences(game=game, room=message.room)
        ]
    )


def game_message_removed(*, message: GameMessage, game: Game) -> None:
    """Tell the sockets of every audience that may read its room that `message` is hidden now
    (staff acted on it): all but its author's drop it (`chat_message_removed`)."""
    payload = {
        "type": "chat.message_removed",
        "id": message.pk,
        "room": message.room,
        "author_id": message.author_id,
    }
    publish(
        [
            (game_group(game.pk, seat), payload)
            for seat in game_message_audiences(game=game, room=message.room)
        ]
    )
