"""Every change to conversations: starting one, sending a message, reading, staff's review (a
flagged message shown, or a reported one hidden when a moderator acted on it).

Choices:
- Only friends talk: starting a conversation or sending in one needs a friendship now (blocking
  ends it, and a block either way refuses with words that never say who blocked whom). A
  conversation that outlived its friendship stays readable, not writable.
- Every message is screened (greycircle.chat.screening: length, the sender's allowance, the
  classifier). A flagged one is kept `hidden`: its sender sees it as sent, the recipient neither
  sees nor is told of it until staff review it (`direct_message_review`), and
  `chat.signals.message_flagged` is sent in the message's transaction (reports file it).
- Events after commit: the message on both participants' `ws/me/` (a hidden one on the
  sender's only), the recipient's new unread count, and their notification (kind `message`)
  queued in the message's transaction like every notification (greycircle.notifications.tasks);
  the inbox keeps at most one unread of them per conversation (texts: `Draft.coalesce`).
- Sending reads the conversation up to the message sent: who answers has seen what they answer.
- A notification the task worker comes to after its message was read (on the open thread) keeps
  nothing (`message_news_out_of_date`): no unread notification of a message already read.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.urls import reverse
from django.utils import timezone

from accounts import selectors as accounts_selectors
from accounts.models import User
from greycircle.api.errors import shorten
from greycircle.chat.screening import message_allowance, message_screen
from greycircle.chat.signals import message_flagged
from greycircle.conversations import selectors
from greycircle.conversations.errors import (
    ConversationInvalid,
    ConversationNotFound,
    ConversationRefused,
)
from greycircle.conversations.models import Conversation, ConversationRead, DirectMessage
from greycircle.conversations.serializers import message_json
from greycircle.games import events
from greycircle.notifications import tasks as notification_tasks
from greycircle.notifications.models import NotificationKind
from greycircle.notifications.services import notifications_read_for_link

MESSAGE_EVENT = "message"
# The rates of settings.REST_FRAMEWORK's DEFAULT_THROTTLE_RATES that limit each sender:
# `conversations` (a burst) and `conversations_daily`.
ALLOWANCE_SCOPE = "conversations"


def thread_path(username: str) -> str:
    """The page of the conversation with `username` (the link of its notifications)."""
    return reverse("messages-thread", args=[username])


def _user_called(username: str) -> User:
    key = accounts_selectors.username_key(username)
    user = accounts_selectors.users_by_username(usernames=[username]).get(key)
    if user is None or not user.is_active:
        raise ConversationNotFound(
            "user_not_found", f"No player is called {shorten(username.strip())}."
        )
    return user


def _may_message(user: User, other: User) -> None:
    """Refuse unless `user` and `other` are friends, with no block between them either way, and
    `other`'s account is open (staff may close one that keeps its friends)."""
    if not other.is_active:
        raise ConversationRefused("closed_account", f"{other.username}'s account is closed.")
    if accounts_selectors.is_blocked_between(a=user, b=other):
        # Never which of them blocked: that would tell a blocked player they were.
        raise ConversationRefused("blocked", "You can't message this player.")
    if not accounts_selectors.are_friends(user=user, other=other):
        raise ConversationRefused(
            "not_friends", f"You can message only your friends, and {other.username} is not one."
        )


def _not_muted(user: User, now: datetime) -> None:
    until = user.chat_muted_until
    if until is not None and until > now:
        raise ConversationRefused(
            "chat_muted",
            f"The moderators muted you until {until:%Y-%m-%d %H:%M} UTC.",
            until=until.isoformat(),
        )


def conversation_start(*, user: User, username: str) -> Conversation:
    """The conversation between `user` and their friend `username`, started if need be (the
    existing one otherwise)."""
    other = _user_called(username)
    if other.pk == user.pk:
        raise ConversationInvalid("cannot_message_yourself", "You cannot message yourself.")
    _may_message(user, other)
    existing = selectors.conversation_between(user=user, other=other)
    if existing is not None:
        return existing
    low, high = sorted((user.pk, other.pk))
    try:
        with transaction.atomic():
            conversation = Conversation.objects.create(user_low_id=low, user_high_id=high)
            ConversationRead.objects.bulk_create(
                [ConversationRead(conversation=conversation, user_id=pk) for pk in (low, high)]
            )
    except IntegrityError:
        # Both started it at once: the other request's row is the conversation.
        return Conversation.objects.get(user_low_id=low, user_high_id=high)
    return conversation


def direct_message_send(
    *, user: User, conversation_id: int, body: str, now: datetime | None = None
) -> DirectMessage:
    """Send `body` from `user` in their conversation `conversation_id` (see the module)."""
    now = now or timezone.now()
    conversation = selectors.conversation_of(user=user, conversation_id=conversation_id)
    other = conversation.user_high if conversation.user_low_id == user.pk else conversation.user_low
    _not_muted(user, now)
    _may_message(user, other)
    screening = message_screen(text=body)
    # After the checks of the message itself: a refused message spends none of the allowance.
    message_allowance(user=user, scope=ALLOWANCE_SCOPE)
    with transaction.atomic():
        message = DirectMessage.objects.create(
            conversation=conversation,
            sender=user,
            body=screening.text,
            hidden=screening.flagged,
            flag_reason=screening.reason[: DirectMessage._meta.get_field("flag_reason").max_length],
        )
        message.conversation = conversation
        message.sender = user
        if screening.flagged:
            reason = screening.reason
            transaction.on_commit(
                lambda: message_flagged.send(sender=DirectMessage, message=message, reason=reason)
            )
        sender_had_unread = _read_up_to(user=user, conversation=conversation, message_id=message.pk)
        if not message.hidden:
            _notify(recipient=other, message=message)
        _publish_message(message, recipient=other, sender_had_unread=sender_had_unread)
    return message


def _read_up_to(*, user: User, conversation: Conversation, message_id: int) -> bool:
    """Move `user`'s read marker of `conversation` up to `message_id` (never back); whether it
    read anything of the other participant's on the way."""
    marker = ConversationRead.objects.filter(conversation=conversation, user=user)
    read_before = marker.values_list("last_read_id", flat=True).first() or 0
    if message_id <= read_before:
        return False
    newly_read = (
        DirectMessage.objects.filter(
            conversation=conversation, hidden=False, pk__gt=read_before, pk__lte=message_id
        )
        .exclude(sender=user)
        .exists()
    )
    updated = marker.update(last_read_id=Greatest(F("last_read_id"), message_id))
    if not updated:
        ConversationRead.objects.create(
            conversation=conversation, user=user, last_read_id=message_id
        )
    return newly_read


def _notify(*, recipient: User, message: DirectMessage) -> None:
    """Queue `recipient`'s notification of `message`, in its transaction (a `key` of its own: it
    is applied at most once however often its task runs)."""
    data = {
        "by": message.sender.username,
        "conversation": message.conversation_id,
        "message": message.pk,
    }
    notification_tasks.notifications_enqueue(
        news=[
            {"user_id": recipient.pk, "event": MESSAGE_EVENT, "data": data, "key": uuid.uuid4().hex}
        ]
    )


def message_news_out_of_date(recipient_id: int, data: Mapping[str, Any]) -> bool:
    """Whether the news of the message in `data` is out of date for `recipient_id` when the task
    worker comes to it: read already (the thread was open), or no longer to be seen (hidden
    again, or gone with its sender's account). Registered with the notifications' texts."""
    message_id = data.get("message")
    if not isinstance(message_id, int):
        return False
    message = DirectMessage.objects.filter(pk=message_id, hidden=False).first()
    if message is None:
        return True
    return ConversationRead.objects.filter(
        conversation_id=message.conversation_id, user_id=recipient_id, last_read_id__gte=message_id
    ).exists()


def _publish_message(message: DirectMessage, *, recipient: User, sender_had_unread: bool) -> None:
    """Once committed: `message` on the streams of its sender and (unless hidden) its recipient,
    with the new unread counts of whoever's changed."""
    frame = {
        "type": "user.direct_message",
        "conversation_id": message.conversation_id,
        "message": message_json(message),
    }
    sender_id, recipient_id = message.sender_id, recipient.pk
    told = [sender_id] if message.hidden else [sender_id, recipient_id]
    counted = ([] if message.hidden else [recipient_id]) + (
        [sender_id] if sender_had_unread else []
    )

    def publish() -> None:
        events.publish(
            [(events.user_group(user_id), frame) for user_id in told]
            + [_unread_frame(user_id) for user_id in counted]
        )

    transaction.on_commit(publish)


def _unread_frame(user_id: int) -> tuple[str, dict]:
    return events.user_group(user_id), {
        "type": "user.messages_unread",
        "count": selectors.messages_unread_count(user=user_id),
    }


def conversation_read(*, user: User, conversation_id: int, up_to: int | None = None) -> int:
    """`user` has read their conversation `conversation_id` up to the message `up_to` (default:
    the last one they may see); its `message` notifications are read too. The conversation's
    unread count left."""
    conversation = selectors.conversation_of(user=user, conversation_id=conversation_id)
    if up_to is None:
        up_to = (
            selectors.messages_for(user=user, conversation=conversation)
            .values_list("pk", flat=True)
            .first()
        )
    other = conversation.user_high if conversation.user_low_id == user.pk else conversation.user_low
    with transaction.atomic():
        if up_to is not None and _read_up_to(
            user=user, conversation=conversation, message_id=up_to
        ):
            user_id = user.pk
            transaction.on_commit(lambda: events.publish([_unread_frame(user_id)]))
        notifications_read_for_link(
            user=user, kind=NotificationKind.MESSAGE, link=thread_path(other.username)
        )
    return selectors.conversation_unread_count(user=user, conversation=conversation)


def direct_message_review(
    *, message_id: int, visible: bool, now: datetime | None = None
) -> DirectMessage:
    """Staff looked at message `message_id`: record it, and show it to its recipient if
    `visible` (a hidden message then reaches them, as if just sent, and they are notified); else
    hide it from them as a flagged one is (a moderator acted on it): their open pages drop it
    (`direct_message_removed` on ws/me/) once this commits, and their unread count follows."""
    with transaction.atomic():
        message = (
            DirectMessage.objects.select_for_update()
            .select_related("conversation__user_low", "conversation__user_high", "sender")
            .get(pk=message_id)
        )
        revealed = visible and message.hidden
        removed = not visible and not message.hidden
        message.reviewed_at = now or timezone.now()
        message.hidden = not visible
        message.save(update_fields=["reviewed_at", "hidden"])
        conversation = message.conversation
        recipient_id = conversation.other_id(message.sender_id)
        if removed:
            removal = {
                "type": "user.direct_message_removed",
                "conversation_id": conversation.pk,
                "id": message.pk,
            }
            transaction.on_commit(
                lambda: events.publish(
                    [(events.user_group(recipient_id), removal), _unread_frame(recipient_id)]
                )
            )
        if revealed:
            recipient = (
                conversation.user_high
                if conversation.user_low_id == message.sender_id
                else conversation.user_low
            )
            _notify(recipient=recipient, message=message)
            frame = {
                "type": "user.direct_message",
                "conversation_id": conversation.pk,
                "message": message_json(message),
            }
            transaction.on_commit(
                lambda: events.publish(
                    [(events.user_group(recipient_id), frame), _unread_frame(recipient_id)]
                )
            )
    return message
