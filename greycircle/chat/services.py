"""Posting in a game's chat, turning it off, and staff's review of messages (flagged or reported).

Every refusal is a `MessageRefused` with its code: `game_not_found` (no such game, or one the
poster may not see), `invalid_room`, `not_a_player` (the players' room is for the people seated),
`not_a_spectator` (the spectators' room is not for them), `chat_off` (the poster turned chat off,
in their settings or for this game), `chat_muted` (by a moderator, `until` when),
`message_empty`, `message_too_long`, `too_many_messages` (429, `retry_after`), `invalid_message_id`
(not a `client_id`: 1 to 64 letters, digits, `_.:-`) and `message_id_reused` (422: the poster's
`client_id` names another message of theirs). A refused message
changes nothing. What the poster is checked against is read afresh (a socket's user may be
hours old: muted since, or chat turned off in another tab).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from greycircle.chat import events
from greycircle.chat.errors import (
    MessageForbidden,
    MessageIdReused,
    MessageNotFound,
    MessageRefused,
)
from greycircle.chat.models import CLIENT_ID, ChatRoom, GameChatOff, GameMessage
from greycircle.chat.screening import message_allowance, message_screen
from greycircle.chat.selectors import game_chat_off_here
from greycircle.chat.signals import message_flagged
from greycircle.games.models import Game
from greycircle.games.selectors import game_get, game_visible_to, seat_index_for

# The rate limits' scope (settings: `chat` and `chat_daily`).
CHAT_SCOPE = "chat"
FLAG_REASON_MAX = GameMessage._meta.get_field("flag_reason").max_length


def game_message_post(
    *,
    user: Any,
    game_id: int,
    room: str,
    body: Any,
    client_id: str | None = None,
    key: str = "",
    now: datetime | None = None,
) -> GameMessage:
    """Post `body` in `room` of game `game_id` as `user` (who followed a link with `key`); a
    flagged message is kept hidden (shown to its author) and `message_flagged` sent. Everyone who
    may read it gets it live once it is committed (greycircle.chat.events).

    `client_id`, the poster's own id for the message, is its idempotency key: posted again with
    it (the socket's answer came late, the client tried over HTTP), the message posted the first
    time is returned and nobody gets it twice; with another message, refused `message_id_reused`.
    """
    now = now or timezone.now()
    if client_id is not None and not CLIENT_ID.fullmatch(client_id):
        raise MessageRefused(
            "invalid_message_id", "A message's id is 1 to 64 letters, digits and `_.:-`."
        )
    game = _game_seen(user=user, game_id=game_id, key=key)
    if room not in ChatRoom.values:
        raise MessageRefused("invalid_room", "The room is `players` or `spectators`.")
    seated = seat_index_for(game=game, viewer=user) is not None
    if room == ChatRoom.PLAYERS and not seated:
        raise MessageForbidden(
            "not_a_player", "Only the game's players write in its players' chat."
        )
    if room == ChatRoom.SPECTATORS and seated:
        raise MessageForbidden(
            "not_a_spectator", "The game's players do not write in its spectators' chat."
        )
    _may_talk(user=user, game=game, now=now)
    screening = message_screen(text=body)
    with transaction.atomic():
        # The key is looked up only when the (author, client_id) constraint refuses the row: a
        # first post costs no query more, and two posts at once with one id keep one message.
        try:
            with transaction.atomic():
                message = GameMessage.objects.create(
                    game=game,
                    room=room,
                    author=user,
                    body=screening.text,
                    created=now,
                    has_links=screening.has_links,
                    hidden=screening.flagged,
                    flag_reason=screening.reason[:FLAG_REASON_MAX],
                    client_id=client_id,
                )
        except IntegrityError:
            posted = _posted_before(user=user, client_id=client_id) if client_id else None
            if not posted:
                raise
            if (posted.game_id, posted.room, posted.body) != (game.pk, room, screening.text):
                raise MessageIdReused(
                    "message_id_reused",
                    "You gave this id to another message: send a new message with a new id.",
                ) from None
            return posted
        # Spent once the message is new (a repeat spends nothing); refused, it is rolled back.
        message_allowance(user=user, scope=CHAT_SCOPE)
        if screening.flagged:
            transaction.on_commit(
                lambda: message_flagged.send(
                    sender=GameMessage, message=message, reason=screening.reason
                )
            )
        transaction.on_commit(lambda: events.game_message_published(message=message, game=game))
    return message


def _posted_before(*, user: Any, client_id: str) -> GameMessage | None:
    return GameMessage.objects.filter(author_id=user.pk, client_id=client_id).first()


def game_chat_switch(*, user: Any, game_id: int, on: bool, key: str = "") -> bool:
    """Turn chat on or off for `user` in this game (their settings' switch stays as it is);
    returns whether it is now on here. Every message published after this commits reaches their
    open sockets of the game or not by it (greycircle.chat.events)."""
    game = _game_seen(user=user, game_id=game_id, key=key)
    if on:
        GameChatOff.objects.filter(user_id=user.pk, game=game).delete()
    else:
        GameChatOff.objects.get_or_create(user_id=user.pk, game=game)
    return not game_chat_off_here(user=user, game_id=game.pk)


def game_message_review(
    *, message: GameMessage, visible: bool = True, now: datetime | None = None
) -> GameMessage:
    """Staff looked at `message`: record it, and show it to everyone who may read its room from
    now on if `visible`; else hide it from everyone but its author and staff, as a flagged one
    is (a moderator acted on it): the open pages that show it drop it once this commits."""
    removed = not visible and not message.hidden
    message.hidden = not visible
    message.reviewed_at = now or timezone.now()
    message.save(update_fields=["hidden", "reviewed_at"])
    if removed:
        game = message.game
        transaction.on_commit(lambda: events.game_message_removed(message=message, game=game))
    return message


def game_chat_forget(*, user: Any) -> None:
    """Delete what `user` wrote in games' chats and their switches (their account is deleted:
    greycircle.players.deletion)."""
    GameMessage.objects.filter(author_id=user.pk).delete()
    GameChatOff.objects.filter(user_id=user.pk).delete()


def _game_seen(*, user: Any, game_id: int, key: str) -> Game:
    game = game_get(game_id=game_id)
    if game is None or not game_visible_to(game=game, viewer=user, key=key):
        raise MessageNotFound("game_not_found", "No such game.")
    return game


def _may_talk(*, user: Any, game: Game, now: datetime) -> None:
    enabled, muted_until = (
        User.objects.filter(pk=user.pk).values_list("chat_enabled", "chat_muted_until").get()
    )
    if not enabled or game_chat_off_here(user=user, game_id=game.pk):
        raise MessageForbidden("chat_off", "You turned chat off: turn it on to write.")
    if muted_until is not None and muted_until > now:
        raise MessageForbidden(
            "chat_muted",
            f"A moderator muted your chat until {muted_until:%Y-%m-%d %H:%M} UTC.",
            until=muted_until.isoformat(),
        )
