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
- In version order, at most once: each notification about a game records the game's version
  the event was made for (`game_version`). Deliveries run in task workers, several at once and
  retried, so an event may arrive late or twice: one about an older version than the
  recipient's notification about the game's play never replaces it (a "your turn" made before
  the winning move never hides "game over"), nor does one the inbox already says (the same
  version and kind; at one version "game over" outranks a reminder or "time running out", which
  outrank "your turn"). Such an event changes nothing and is told to nobody.
- A game withdrawn before it started (or an invitation withdrawn) leaves nothing new: the game's
  notifications (its invitation) are marked read, since nothing is left to do about them.
- Opening a game's page reads that game's notifications; opening the friends page reads the
  friend requests and answers.
- A kind the recipient keeps out of their inbox (greycircle.notifications.preferences) is kept
  hidden (`in_inbox` False): not listed nor counted, the frame's `inbox` null; it still orders
  the game's notifications and is pushed and mailed as the recipient asks.
- A "your turn" or "game over" of a game against computers only (texts: `Draft.quiet`) is kept
  hidden too, and neither pushed nor mailed (the player is on the game's page): it has no
  channel, but without a row nothing would tell a late or second delivery of one apart (issue
  21's audit: a task run again after a cut connection told an old "your turn" after a newer
  one). A row per game, refreshed, rather than a separate record of the last version told: the
  same order and lock then hold for every game, whoever sits at it.
- A friend's messages leave one unread notification per conversation (texts: `Draft.coalesce`):
  each new message refreshes it, as a game's play does its own; reading the conversation reads it.
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

from accounts.models import User
from greycircle.games import events
from greycircle.games.models import Game, Seat
from greycircle.notifications import mail_tasks, preferences, texts
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
    applied: bool = True
    """False: the event was older than what the inbox says, or said already; nothing changed."""

    def frame(self) -> dict[str, Any]:
        """The members a `ws/me/` notification frame carries besides the event."""
        return {
            "inbox": (
                notification_json(self.notification)
                if self.notification is not None and self.notification.in_inbox
                else None
            ),
            "removed": self.removed,
            "read": self.read,
            "unread_count": self.unread_count,
        }


def notification_deliver(*, user_id: int, event: str, data: Mapping[str, Any]) -> Delivery:
    """Keep the notification `event` leaves for user `user_id`, if any (see the module).

    Applied in version order, at most once (see the module): an event about an older version of
    the game than the recipient's notification about its play, or one the inbox already says, is
    dropped (`Delivery.applied` False: nothing changed, nothing is to be told).
    """
    game_id = data.get("game")
    version = data.get("version") if isinstance(data.get("version"), int) else None
    game, seats = None, []
    if isinstance(game_id, int) and (event in texts.GAME_EVENTS or event in SETTLES_GAME):
        game, seats = _game_with_seats(game_id)
    notification = None
    removed: list[int] = []
    read: list[int] = []
    with transaction.atomic():
        if game is not None:
            # Two workers delivering to one recipient about one game take turns, so the newer
            # event is compared with what the older one left.
            _recipient_game_lock(user_id=user_id, game_id=game.pk)
        draft = texts.draft_for(
            recipient_id=user_id, event=event, data=data, game=game, seats=seats
        )
        earlier: list[Notification] = []
        if draft is not None and draft.kind in PLAY_KINDS and draft.game_id is not None:
            earlier = list(
                Notification.objects.filter(
                    recipient_id=user_id, game_id=draft.game_id, kind__in=PLAY_KINDS
                )
                .annotate(mailed=Exists(MailSent.objects.filter(notification=OuterRef("pk"))))
                .order_by("-created", "-pk")
            )
            if earlier and _superseded(earlier[0], kind=draft.kind, version=version):
                return Delivery(
                    notification=None,
                    unread_count=notifications_unread_count(user=user_id),
                    applied=False,
                )
        elif draft is not None and draft.coalesce:
            earlier = list(
                Notification.objects.filter(
                    recipient_id=user_id, kind=draft.kind, link=draft.link, read=False
                )
                .annotate(mailed=Exists(MailSent.objects.filter(notification=OuterRef("pk"))))
                .order_by("-created", "-pk")
            )
        elif draft is not None and _already_kept(user_id=user_id, draft=draft, version=version):
            return Delivery(
                notification=None,
                unread_count=notifications_unread_count(user=user_id),
                applied=False,
            )
        if event in SETTLES_GAME and game is not None:
            read = _mark_read(Notification.objects.filter(recipient_id=user_id, game_id=game.pk))
        if draft is not None:
            # Loaded with the seats, or here: the inbox, push and mail preferences are its.
            recipient = next((seat.user for seat in seats if seat.user_id == user_id), None)
            if recipient is None:
                recipient = User.objects.filter(pk=user_id).first()
            in_inbox = not draft.quiet and (
                recipient is None
                or preferences.channel_wanted(
                    user=recipient, kind=draft.kind, channel=preferences.Channel.INBOX
                )
            )
            if earlier:
                notification, *extra = earlier
                removed = [other.pk for other in extra]  # from before one per game was kept
                if removed:
                    Notification.objects.filter(pk__in=removed).delete()
                if notification.in_inbox and not in_inbox:
                    removed.append(notification.pk)  # out of the inbox, as its kind now is
                _refresh(notification, draft, version=version, in_inbox=in_inbox)
            else:
                notification = Notification(
                    recipient_id=user_id,
                    kind=draft.kind,
                    text=_fit(draft.text),
                    link=draft.link,
                    game_id=draft.game_id,
                    game_version=version if draft.game_id is not None else None,
                    in_inbox=in_inbox,
                )
                row_insert(notification)
            if recipient is not None:
                notification.recipient = recipient
            if not draft.quiet:
                mail_tasks.notification_mail_enqueue(notification=notification)
                notification_kept.send(sender=Notification, notification=notification)
    return Delivery(
        notification=notification,
        unread_count=notifications_unread_count(user=user_id),
        removed=removed,
        read=read,
    )


# At one version of a game, what its play notification may become: a reminder or "time running
# out" is news over "your turn" of the same position, "game over" over all of them, never the
# other way round.
PLAY_RANK = {
    NotificationKind.YOUR_TURN: 0,
    NotificationKind.REMINDER: 1,
    NotificationKind.TIME_RUNNING_OUT: 1,
    NotificationKind.GAME_OVER: 2,
}


def _superseded(notification: Notification, *, kind: str, version: int | None) -> bool:
    """Whether the recipient's play `notification` is newer than an event of `kind` about
    `version`, or already says it (a second delivery of the same event)."""
    if version is None or notification.game_version is None:
        return False  # nothing to compare with: the newest event wins, as delivered
    if notification.game_version != version:
        return notification.game_version > version
    if kind == notification.kind:
        # Reminders are the one event that repeats at one version (another, minutes later):
        # each is news. The rest happen once per version: this is the same event again.
        return kind != NotificationKind.REMINDER
    return PLAY_RANK[NotificationKind(kind)] < PLAY_RANK[NotificationKind(notification.kind)]


def _already_kept(*, user_id: int, draft: texts.Draft, version: int | None) -> bool:
    """Whether the invitation `draft` about `version` of its game is already in the inbox (the
    same event delivered again). Other events carry nothing that tells two of them apart."""
    if draft.kind != NotificationKind.INVITATION or draft.game_id is None or version is None:
        return False
    return Notification.objects.filter(
        recipient_id=user_id, game_id=draft.game_id, kind=draft.kind, game_version=version
    ).exists()


def _recipient_game_lock(*, user_id: int, game_id: int) -> None:
    """Hold, until this transaction ends, the lock of `user_id`'s notifications about `game_id`.

    PostgreSQL: a transaction-scoped advisory lock (two-key, so apart from the one-key locks
    other modules take). SQLite's transactions are IMMEDIATE (settings): one at a time already."""
    connection = transaction.get_connection()
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        # The keys are int4: fold ids into range (a collision only makes two deliveries wait).
        cursor.execute(
            "SELECT pg_advisory_xact_lock(%s, %s)",
            [_int4(user_id), _int4(game_id)],
        )


def _int4(value: int) -> int:
    return (value + 2**31) % 2**32 - 2**31


def _game_with_seats(game_id: int) -> tuple[Game | None, list[Seat]]:
    """The game and its seats (with their users) in one query."""
    game = Game.objects.get_with_seats(game_id)
    return game, (list(game.seats.all()) if game is not None else [])


def _fit(text: str) -> str:
    return text[: Notification._meta.get_field("text").max_length]


def _refresh(
    notification: Notification, draft: texts.Draft, *, version: int | None, in_inbox: bool
) -> None:
    """Make the earlier `notification` say `draft`, unread and new (see the module)."""
    if getattr(notification, "mailed", False):
        MailSent.objects.filter(notification=notification).update(notification=None)
    notification.kind = draft.kind
    notification.text = _fit(draft.text)
    notification.link = draft.link
    notification.read = False
    notification.created = timezone.now()
    notification.game_version = version
    notification.in_inbox = in_inbox
    row_update(
        notification, ["kind", "text", "link", "read", "created", "game_version", "in_inbox"]
    )


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


def notifications_read_for_link(*, user: Any, kind: str, link: str) -> int:
    """`user` saw what their notifications of `kind` leading to `link` are about (a friend's
    messages, on their conversation's page): they are read. How many were not."""
    notifications = Notification.objects.filter(recipient=user, kind=kind, link=link)
    read = _mark_read(notifications)
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
