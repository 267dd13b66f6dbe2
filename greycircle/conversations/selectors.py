"""Reads of conversations, shaped for one viewer: what they may see of each (their own hidden
messages, nobody else's), with their unread counts.

Unread: a message from the other participant, not hidden, past the viewer's read marker.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, F, Max, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from accounts import selectors as accounts_selectors
from accounts.models import User
from greycircle.conversations.errors import ConversationNotFound
from greycircle.conversations.models import Conversation, ConversationRead, DirectMessage


@dataclass(frozen=True)
class ConversationSummary:
    """One of the viewer's conversations as their list shows it."""

    conversation: Conversation
    other: User
    last_message: DirectMessage | None
    unread_count: int


def _mine(user: User) -> Q:
    return Q(user_low=user) | Q(user_high=user)


def conversation_of(*, user: User, conversation_id: int) -> Conversation:
    """`user`'s conversation `conversation_id`, both users loaded; `conversation_not_found` for
    anyone else's (which do not exist for them)."""
    conversation = (
        Conversation.objects.filter(_mine(user), pk=conversation_id)
        .select_related("user_low", "user_high")
        .first()
    )
    if conversation is None:
        raise ConversationNotFound("conversation_not_found", "No such conversation.")
    return conversation


def conversation_between(*, user: User, other: User) -> Conversation | None:
    low, high = sorted((user.pk, other.pk))
    return Conversation.objects.filter(user_low_id=low, user_high_id=high).first()


def conversation_between_named(*, user: User, username: str) -> Conversation | None:
    """`user`'s conversation with the player called `username`, if they have one."""
    key = accounts_selectors.username_key(username)
    other = accounts_selectors.users_by_username(usernames=[username]).get(key)
    return conversation_between(user=user, other=other) if other is not None else None


def visible_to(user: User) -> Q:
    """The messages `user` may see (of a conversation of theirs): all but others' hidden ones."""
    return Q(hidden=False) | Q(sender=user)


def _unread_of(user: User) -> Q:
    """Of a conversation's messages (in a `messages__` lookup), those unread by `user`."""
    return Q(messages__hidden=False, messages__pk__gt=F("read_up_to")) & ~Q(messages__sender=user)


def _read_marker(user: User) -> Coalesce:
    marker = ConversationRead.objects.filter(conversation=OuterRef("pk"), user=user)
    return Coalesce(Subquery(marker.values("last_read_id")[:1]), 0)


def conversations_for(*, user: User) -> QuerySet[Conversation]:
    """`user`'s conversations with the id of the last message they may see (`last_id`) and how
    many are unread (`unread_count`): those with unread messages first, then the newest."""
    seen = Q(messages__hidden=False) | Q(messages__sender=user)
    return (
        Conversation.objects.filter(_mine(user))
        .select_related("user_low", "user_high")
        .annotate(read_up_to=_read_marker(user))
        .annotate(
            last_id=Max("messages__pk", filter=seen),
            unread_count=Count("messages", filter=_unread_of(user)),
        )
        .order_by(F("unread_count").desc(), F("last_id").desc(nulls_last=True), "-created", "-pk")
    )


def conversation_summaries(
    *, user: User, conversations: list[Conversation]
) -> list[ConversationSummary]:
    """`conversations` (annotated by `conversations_for`) with the other person and the last
    message, in one query for all the last messages."""
    ids = [conversation.last_id for conversation in conversations if conversation.last_id]
    last = {message.pk: message for message in DirectMessage.objects.filter(pk__in=ids)}
    summaries = []
    for conversation in conversations:
        other = (
            conversation.user_high if conversation.user_low_id == user.pk else conversation.user_low
        )
        message = last.get(conversation.last_id) if conversation.last_id else None
        if message is not None:
            message.sender = user if message.sender_id == user.pk else other
        summaries.append(
            ConversationSummary(conversation, other, message, conversation.unread_count)
        )
    return summaries


def conversation_summary(*, user: User, conversation_id: int) -> ConversationSummary:
    """One of `user`'s conversations as their list shows it."""
    conversation = conversations_for(user=user).filter(pk=conversation_id).first()
    if conversation is None:
        raise ConversationNotFound("conversation_not_found", "No such conversation.")
    return conversation_summaries(user=user, conversations=[conversation])[0]


def messages_for(
    *, user: User, conversation: Conversation, after: int | None = None
) -> QuerySet[DirectMessage]:
    """The messages of `conversation` that `user` may see, newest first; only those after the
    message id `after` if given."""
    messages = (
        DirectMessage.objects.filter(conversation=conversation)
        .filter(visible_to(user))
        .select_related("sender")
        .order_by("-pk")
    )
    if after is not None:
        messages = messages.filter(pk__gt=after)
    return messages


def messages_unread_count(*, user: User | int) -> int:
    """How many messages from friends `user` has not read, in all their conversations."""
    user_id = user if isinstance(user, int) else user.pk
    marker = ConversationRead.objects.filter(
        conversation=OuterRef("conversation"), user_id=user_id
    ).values("last_read_id")[:1]
    return (
        DirectMessage.objects.filter(
            Q(conversation__user_low_id=user_id) | Q(conversation__user_high_id=user_id),
            hidden=False,
        )
        .exclude(sender_id=user_id)
        .annotate(read_up_to=Coalesce(Subquery(marker), 0))
        .filter(pk__gt=F("read_up_to"))
        .count()
    )


def conversation_unread_count(*, user: User, conversation: Conversation) -> int:
    marker = ConversationRead.objects.filter(conversation=conversation, user=user).first()
    return (
        DirectMessage.objects.filter(
            conversation=conversation,
            hidden=False,
            pk__gt=marker.last_read_id if marker is not None else 0,
        )
        .exclude(sender=user)
        .count()
    )


def messages_sent_by(*, user: User) -> list[tuple[DirectMessage, str]]:
    """Every message `user` sent, oldest first, each with the username it was sent to (for the
    download of their data)."""
    messages = (
        DirectMessage.objects.filter(sender=user)
        .select_related("conversation__user_low", "conversation__user_high")
        .order_by("pk")
    )
    return [
        (
            message,
            (
                message.conversation.user_high
                if message.conversation.user_low_id == user.pk
                else message.conversation.user_low
            ).username,
        )
        for message in messages
    ]
