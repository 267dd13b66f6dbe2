"""`/api/v1/games/{id}/chat/`: a game's chat for apps (the page and apps also get it live on
`ws/games/{id}/`: `chat_message` frames, and `chat` frames to post).

Thin: parse, call a selector or service (greycircle.chat), serialise. A game the viewer may not
see is `game_not_found`, as every read of a game by id answers it.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from greycircle.api.errors import ApiError
from greycircle.api.schema import error_response
from greycircle.chat import selectors, services
from greycircle.chat.serializers import (
    GameChatQuerySerializer,
    GameChatSerializer,
    GameChatSwitchSerializer,
    GameMessagePostSerializer,
    GameMessageSerializer,
)
from greycircle.games.models import Game
from greycircle.games.selectors import game_get, game_visible_to

NOT_FOUND = error_response("No such game that I may see.", "game_not_found")
NOT_READABLE = error_response(
    "Not a room I may read: the players' room is for the people seated, and the spectators' room "
    "is theirs only once the game is over.",
    "not_a_player",
    "spectators_room_closed",
)


def _key(request: Request) -> str:
    key = request.query_params.get("key", "")
    return key if len(key) <= 64 else ""


def _game_for(request: Request, game_id: int) -> Game:
    game = game_get(game_id=game_id)
    if game is None or not game_visible_to(game=game, viewer=request.user, key=_key(request)):
        raise ApiError(code="game_not_found", detail="No such game.", status_code=404)
    return game


class GameChatView(GenericAPIView):
    serializer_class = GameMessageSerializer

    @extend_schema(
        summary="Read a room of a game's chat",
        description="Its messages as I may see them: never those between me and someone blocked "
        "either way, flagged (`hidden`) ones only if they are mine, none while my chat is off. "
        "Poll with `after` the last id I have (or follow `ws/games/{id}/`).",
        parameters=[GameChatQuerySerializer],
        responses={200: GameChatSerializer, 403: NOT_READABLE, 404: NOT_FOUND},
    )
    def get(self, request: Request, game_id: int) -> Response:
        query = GameChatQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        room, key = query.validated_data["room"], query.validated_data.get("key", "")
        game = _game_for(request, game_id)
        if not selectors.game_room_readable(viewer=request.user, game=game, room=room, key=key):
            # Seen, but not this room: a spectator at the players', or a player at the spectators'.
            spectators = room == "spectators"
            raise ApiError(
                code="spectators_room_closed" if spectators else "not_a_player",
                detail="The spectators' chat opens to the players when the game is over."
                if spectators
                else "Only the game's players read its players' chat.",
                status_code=403,
            )
        messages = selectors.game_messages_for(
            viewer=request.user,
            game=game,
            room=room,
            after=query.validated_data.get("after"),
            key=key,
        )
        off = selectors.game_chat_off_for(user=request.user, game_id=game.pk)
        chat = {
            "room": room,
            "messages": selectors.game_messages_json(viewer=request.user, messages=messages),
            "chat_on": not off,
            "chat_on_here": not selectors.game_chat_off_here(user=request.user, game_id=game.pk),
        }
        return Response(GameChatSerializer(chat).data)

    @extend_schema(
        summary="Write in a game's chat",
        description="Players in the `players` room, whoever may watch (not the players) in the "
        "`spectators` room. At most 500 characters, 5 messages in 10 s and 200 a day "
        "(`THROTTLE_CHAT`, `THROTTLE_CHAT_DAILY`). A message the screening flags is kept but "
        "`hidden`: I still see it, others do not until staff have looked. With `id` (the "
        "idempotency key a `chat` frame on the game's socket also carries), the same message "
        "sent again is answered with the message posted the first time, not posted twice.",
        request=GameMessagePostSerializer,
        responses={
            201: GameMessageSerializer,
            400: error_response(
                "Not a message to post.",
                "invalid",
                "invalid_room",
                "message_empty",
                "message_too_long",
            ),
            422: error_response(
                "My `id` names another message of mine: a new message needs a new id.",
                "message_id_reused",
            ),
            403: error_response(
                "I may not write here: not a player (`not_a_player`), a player in the spectators' "
                "room (`not_a_spectator`), my chat is off (`chat_off`), or a moderator muted me "
                "(`chat_muted`, with `until`).",
                "not_a_player",
                "not_a_spectator",
                "chat_off",
                "chat_muted",
            ),
            404: NOT_FOUND,
            429: error_response(
                "Too many messages: wait the seconds in `Retry-After` (also `retry_after`).",
                "too_many_messages",
            ),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        sent = GameMessagePostSerializer(data=request.data)
        sent.is_valid(raise_exception=True)
        message = services.game_message_post(
            user=request.user,
            game_id=game_id,
            room=sent.validated_data["room"],
            body=sent.validated_data["body"],
            client_id=sent.validated_data.get("id"),
            key=_key(request),
        )
        return Response(
            GameMessageSerializer(selectors.game_message_json(message=message, links=True)).data,
            status=status.HTTP_201_CREATED,
        )


class GameChatSwitchView(GenericAPIView):
    serializer_class = GameChatSwitchSerializer

    @extend_schema(
        summary="Turn a game's chat on or off for me",
        description="Off, I see none of its messages (in either room) and post none; my open "
        "sockets of the game stop or start getting them. My settings' `chat_enabled` turns it "
        "off everywhere.",
        request=GameChatSwitchSerializer,
        responses={200: GameChatSwitchSerializer, 404: NOT_FOUND},
    )
    def put(self, request: Request, game_id: int) -> Response:
        switch = GameChatSwitchSerializer(data=request.data)
        switch.is_valid(raise_exception=True)
        on = services.game_chat_switch(
            user=request.user, game_id=game_id, on=switch.validated_data["on"], key=_key(request)
        )
        return Response({"on": on})
