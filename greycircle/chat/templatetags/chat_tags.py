"""The game's chat on its replay page: both rooms, each to those who may read it
(greycircle.chat.selectors), drawn by the server as escaped text."""

from __future__ import annotations

from typing import Any

from django import template

from greycircle.chat import selectors
from greycircle.chat.models import ChatRoom
from greycircle.games.models import Game
from greycircle.games.selectors import game_get

register = template.Library()

ROOM_TITLES = {ChatRoom.PLAYERS: "Players' chat", ChatRoom.SPECTATORS: "Spectators' chat"}


@register.inclusion_tag("chat/replay_rooms.html", takes_context=True)
def chat_replay(context: dict[str, Any], game: Game) -> dict[str, Any]:
    request = context["request"]
    viewer, key = request.user, request.GET.get("key", "")[:64]
    seated = game_get(game_id=game.pk)
    rooms = []
    for room in ChatRoom.values:
        if seated is None or not selectors.game_room_readable(
            viewer=viewer, game=seated, room=room, key=key
        ):
            continue
        messages = selectors.game_messages_for(viewer=viewer, game=seated, room=room, key=key)
        rooms.append(
            {
                "room": room,
                "title": ROOM_TITLES[room],
                "messages": selectors.game_messages_json(viewer=viewer, messages=messages),
            }
        )
    return {"rooms": rooms}
