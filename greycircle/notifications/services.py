"""Every change to notifications: delivering an event to the inbox and marking notifications read.

`notification_deliver` is the one hook every user-facing event goes through
(greycircle.notifications.delivery calls it, after the change is committed, before it publishes
the event on the user's `ws/me/` stream with what it did to the inbox). It keeps a notification
for the events a person should find in their inbox (texts: greycircle.notifications.texts).

Choices:
- No pile-up: the inbox holds at most one notification per game about its play. A "your turn", a
  reminder, "time running out" or "game over" about a game refreshes the recipient's earlier one
  of these about that game (read or not: it is out of date) — new kind and text, unread again,
  moved to the top — rather than adding one each move. A refreshed notification counts as a new
  one for e-mail: its record of having been mailed (MailSent) is detached from it. The same row
  also keeps a move's cost in queries the same early and late in a game.
- A game withdrawn before it started (or an invitation withdrawn) leaves nothing new: the game's
  notifications (its invitation) are marked read, since nothing is left to do about them.
- Opening a game's page reads that game's notifications; opening the friends page reads the
  friend requests and answers.
- Marking read publishes the new unread count on `ws/me/` (`{"type": "unread"}`), so every tab
  and app of the user corrects its badge.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from greycircle.games import events
from greycircle.games.models import Game, Seat
from greycircle.notifications import mail_tasks, texts
from greycircle.notifications.errors import NotificationNotFound
from greycircle.notifications.models import MailSent, Notification, NotificationKind
from greycircle.notifications.selectors import notifications_unread_count
from greycircle.notifications.serializers import notification_json
from greycircle.notifications.signals import notification_kept
from greycircle.runtime.db_rows import row_insert, row_update

logger = logging.getLogger(__name__)

# The kinds about a game's play: the recipient has at most one of them per game.
PLAY_KINDS = (
    NotificationKind.YOUR_TURN,
    NotificationKind.REMINDER,
    NotificationKind.TIME_RUNNING_OUT,
    NotificationKind.GAME_OVER,
)
# What the friends page shows: opening it reads them.
FRIEND_KINDS = (NotificationKind.FRIEND_REQUEST, NotificationKind.FRIEND_ACCEPTED)
# Events after which a game's notifications need nothing more from the recipient.
SETTLES_GAME = frozenset({"game_withdrawn", "invitation_cancelled"})


@dataclass(frozen=True)
class Delivery:
    """What an event did to its recipient's inbox."""

    notification: Notification | None
    unread_count: int
    removed: list[int] = field(default_factory=list)
    read: list[int] = field(default_factory=list)

    def frame(self) -> dict[str, Any]:
        """The members a `ws/me/` notification frame carries besides the event."""
        return {
            "inbox": notification_json(self.notification) if self.notification else None,
            "removed": self.removed,
            "read": self.read,
            "unread_count": self.unread_count,
        }


def notification_deliver(*, user_id: int, event: str, data: Mapping[str, Any]) -> Delivery:
    """Keep the notification `event` leaves for user `user_id`, if any (see the module)."""
    game_id = data.get("game")
    game, seats = None, []
    if isinstance(game_id, int) and (event in texts.GAME_EVENTS or event in SETTLES_GAME):
        game, seats = _game_with_seats(game_id)
    read: list[int] = []
    if event in SETTLES_GAME and game is not None:
        read = _mark_read(Notification.objects.filter(recipient_id=user_id, game_id=game.pk))
    draft = texts.draft_for(recipient_id=user_id, event=event, data=data, game=game, seats=seats)
    notification = None
    removed: list[int] = []
    if draft is not None:
        earlier: list[Notification] = []
        if draft.kind in PLAY_KINDS and draft.game_id is not None:
            earlier = list(
                Notification.objects.filter(
                    recipient_id=user_id, game_id=draft.game_id, kind__in=PLAY_KINDS
                )
                .annotate(mailed=Exists(MailSent.objects.filter(notification=OuterRef("pk"))))
                .order_by("-created", "-pk")
            )
        with transaction.atomic():
            if earlier:
                notification, *extra = earlier
                removed = [other.pk for other in extra]  # from before one per game was kept
                if removed:
                    Notification.objects.filter(pk__in=removed).delete()
                _refresh(notification, draft)
            else:
                notification = Notification(
                    recipient_id=user_id,
                    kind=draft.kind,
                    text=_fit(draft.text),
                    link=draft.link,
                    game_id=draft.game_id,
                )
                row_insert(notification)
            seated = next((seat.user for seat in seats if seat.user_id == user_id), None)
            if seated is not None:  # already loaded with the seats: spare the mail check a query
                notification.recipient = seated
            mail_tasks.notification_mail_enqueue(notification=notification)
            notification_kept.send(sender=Notification, notification=notification)
    return Delivery(
        notification=notification,
        unread_count=notifications_unread_count(user=user_id),
        removed=removed,
        read=read,
    )


def _game_with_seats(game_id: int) -> tuple[Game | None, list[Seat]]:
    """The game and its seats (with their users) in one query."""
    game = Game.objects.get_with_seats(game_id)
    return game, (list(game.seats.all()) if game is not None else [])


def _fit(text: str) -> str:
    return text[: Notification._meta.get_field("text").max_length]


def _refresh(notification: Notification, draft: texts.Draft) -> None:
    """Make the earlier `notification` say `draft`, unread and new (see the module)."""
    if getattr(notification, "mailed", False):
        MailSent.objects.filter(notification=notification).update(notification=None)
    notification.kind = draft.kind
    notification.text = _fit(draft.text)
    notification.link = draft.link
    notification.read = False
    notification.created = timezone.now()
    row_update(notification, ["kind", "text", "link", "read", "created"])


def notification_mark_read(*, user: Any, notification_id: int) -> Notification:
    """Mark one of `user`'s notifications read (another user's is not found)."""
    notification = Notification.objects.filter(recipient=user, pk=notification_id).first()
    if notification is None:
        raise NotificationNotFound("not_found", "No such notification.")
    if not notification.read:
        _mark_read(Notification.objects.filter(pk=notification.pk))
        notification.read = True
        _unread_changed(user_id=user.pk, read=[notification.pk])
    return notification


def notifications_mark_all_read(*, user: Any, game_id: int | None = None) -> int:
    """Mark all of `user`'s notifications read (or those about game `game_id`); how many."""
    notifications = Notification.objects.filter(recipient=user)
    if game_id is not None:
        notifications = notifications.filter(game_id=game_id)
    read = _mark_read(notifications)
    if read:
        _unread_changed(user_id=user.pk, read=read)
    return len(read)


def notifications_read_for_game(*, user: Any, game_id: int) -> int:
    """`user` opened game `game_id`: its notifications are read. How many were not."""
    if not user.is_authenticated:
        return 0
    return notifications_mark_all_read(user=user, game_id=game_id)


def notifications_read_for_friends(*, user: Any) -> int:
    """`user` opened their friends page: friend requests and answers are read. How many were
    not."""
    if not user.is_authenticated:
        return 0
    read = _mark_read(Notification.objects.filter(recipient=user, kind__in=FRIEND_KINDS))
    if read:
        _unread_changed(user_id=user.pk, read=read)
    return len(read)


def _mark_read(notifications: Any) -> list[int]:
    """Mark the unread ones of `notifications` read; their ids."""
    ids = list(notifications.filter(read=False).values_list("pk", flat=True))
    if ids:
        Notification.objects.filter(pk__in=ids).update(read=True)
    return ids


def _unread_changed(*, user_id: int, read: list[int]) -> None:
    """Tell the user's streams, once committed, that notifications `read` (their ids) were marked
    read."""

    def publish() -> None:
        message = {
            "type": "user.unread",
            "unread_count": notifications_unread_count(user=user_id),
            "read": list(read),
        }
        events.publish([(events.user_group(user_id), message)])

    transaction.on_commit(publish)
