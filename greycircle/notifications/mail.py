"""E-mail for notifications: which are mailed to whom, the message, and one-click unsubscribing.

A notification is mailed when its recipient is active, has a verified primary address, wants
mail of its kind (the `email_*` preference of PREFERENCE_OF_KIND; greycircle.notifications
.preferences) and is not on the site, unless they want mail then too (`email_only_away` off).
"Your turn" is mailed only in games with at least two people, and at most once per game an
hour. Mail goes through the task queue (mail_tasks.notification_mail_enqueue queues
mail_tasks.notification_mail_send, whose body is `notification_mail_deliver`), which checks all
of this again when it sends. The daily digest is greycircle.notifications.digest.

Only verified addresses get mail: verification is optional on this site, and mailing an address
nobody confirmed would let anyone make the site write to a stranger.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from allauth.account.models import EmailAddress
from django.conf import settings
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from greycircle.games.models import GameStatus, Seat
from greycircle.notifications.models import MailSent, Notification, NotificationKind
from greycircle.notifications.preferences import Channel, away_refusal

logger = logging.getLogger(__name__)

# The preference (a field of accounts.User) that asks for mail of each kind; kinds not here are
# never mailed (they are in the inbox, and pushed).
PREFERENCE_OF_KIND: dict[str, str] = {
    kind: channels[Channel.EMAIL]
    for kind, channels in User.NOTIFICATION_CHANNELS.items()
    if Channel.EMAIL in channels
}

# What each preference is about, as the mail's footer and the unsubscribe page say it.
PREFERENCE_TOPIC: dict[str, str] = {
    "email_friend_request": "friend requests",
    "email_game_invitation": "invitations to games",
    "email_your_turn": "your turn in a game",
    "email_game_over": "games that are over",
    "email_reminder": "reminders of your games",
    "email_time_running_out": "time running out in your games",
    "email_message": "messages from your friends",
    "email_moderation_notice": "notices from the moderators",
    "email_digest": "the games waiting on you, once a day",
}

# The button of each kind's mail.
ACTION_OF_KIND: dict[str, str] = {
    NotificationKind.FRIEND_REQUEST: "Answer the request",
    NotificationKind.INVITATION: "Answer the invitation",
    NotificationKind.YOUR_TURN: "Make your move",
    NotificationKind.GAME_OVER: "See the game",
    NotificationKind.REMINDER: "Make your move",
    NotificationKind.TIME_RUNNING_OUT: "Make your move",
    NotificationKind.MESSAGE: "Read the message",
    NotificationKind.MODERATION_NOTICE: "Go to the site",
}

# At most one "your turn" mail per game and recipient in this time.
YOUR_TURN_INTERVAL = timedelta(hours=1)

UNSUBSCRIBE_SALT = "greycircle.notifications.unsubscribe"
SUBJECT_MAX = 120


# --- who gets mail -------------------------------------------------------------------------------


def mail_address(user: User) -> str | None:
    """The address `user`'s mail goes to: their verified primary address, or None."""
    return (
        EmailAddress.objects.filter(user=user, primary=True, verified=True)
        .values_list("email", flat=True)
        .first()
    )


def _human_seats(game_id: int) -> int:
    return Seat.objects.filter(game_id=game_id, user__isnull=False).count()


def _your_turn_mailed_recently(*, user_id: int, game_id: int) -> bool:
    return MailSent.objects.filter(
        recipient_id=user_id,
        kind=NotificationKind.YOUR_TURN,
        game_id=game_id,
        sent_at__gt=timezone.now() - YOUR_TURN_INTERVAL,
    ).exists()


def mail_refusal(notification: Notification) -> str | None:
    """Why `notification` is not to be mailed (a few words, for the log), or None to mail it."""
    preference = PREFERENCE_OF_KIND.get(notification.kind)
    if preference is None:
        return "kind not mailed"
    user = notification.recipient
    # A deactivated account is still told why by the moderators: by mail, since it cannot sign in.
    if not user.is_active and notification.kind != NotificationKind.MODERATION_NOTICE:
        return "recipient inactive"
    if not getattr(user, preference):
        return "recipient opted out"
    if notification.kind == NotificationKind.YOUR_TURN and (
        notification.game_id is None or _human_seats(notification.game_id) < 2
    ):
        return "not a game between people"
    away = away_refusal(user=user, channel=Channel.EMAIL)
    if away is not None:
        return away
    if notification.kind == NotificationKind.YOUR_TURN and _your_turn_mailed_recently(
        user_id=user.pk, game_id=notification.game_id
    ):
        return "mailed about this game within the hour"
    if mail_address(user) is None:
        return "no verified primary address"
    return None


def _your_turn_passed(notification: Notification) -> bool:
    """Whether the turn a "your turn" notification announced is no longer the recipient's."""
    game = notification.game
    if game is None or game.status != GameStatus.ACTIVE or game.to_move is None:
        return True
    return not Seat.objects.filter(
        game=game, index=game.to_move, user_id=notification.recipient_id
    ).exists()


# --- sending ------------------------------------------------------------------------------------


def notification_mail_deliver(*, notification_id: int) -> bool:
    """Send the e-mail of a notification if it is (still) wanted; True if sent.

    Each notification is mailed at most once: a MailSent row is claimed first, in a short
    transaction that holds the recipient's row, so two workers never both mail one notification
    or both send a game's hourly "your turn"; the mail is sent after that commits (no lock is held
    while talking to the mail server). If sending fails the claim is withdrawn and the error
    raised: the task fails and is not retried (a crash between claim and send loses that mail
    rather than risking it twice).
    """
    with transaction.atomic():
        notification = (
            Notification.objects.select_related("game").filter(pk=notification_id).first()
        )
        if notification is None:
            return False
        # Senders to one recipient take turns while the claim is checked and written (and read
        # the preferences under the lock). NO KEY UPDATE: rows that merely refer to the user (a
        # notification written meanwhile by a move) are not held up, so no deadlock with them.
        recipient = (
            User.objects.select_for_update(no_key=True).filter(pk=notification.recipient_id).first()
        )
        if recipient is None:
            return False
        notification.recipient = recipient
        reason = mail_refusal(notification)
        if reason is None and MailSent.objects.filter(notification=notification).exists():
            reason = "already mailed"
        if (
            reason is None
            and notification.kind == NotificationKind.YOUR_TURN
            and _your_turn_passed(notification)
        ):
            reason = "the turn has passed"
        if reason is not None:
            logger.info("notification %s not mailed: %s", notification.pk, reason)
            return False
        address = mail_address(notification.recipient)
        assert address is not None  # mail_refusal checked it
        claim = MailSent.objects.create(
            recipient=notification.recipient,
            kind=notification.kind,
            game=notification.game,
            notification=notification,
        )
    try:
        notification_mail_message(notification, address=address).send()
    except Exception:
        MailSent.objects.filter(pk=claim.pk).delete()
        raise
    logger.info("notification %s mailed", notification.pk)
    return True


# --- the message ---------------------------------------------------------------------------------


def site_url(path: str = "/") -> str:
    """The absolute URL of a path on this site (SITE_URL + path); the home page for anything that
    is not a path."""
    if not path.startswith("/") or path.startswith("//"):
        path = "/"
    return settings.SITE_URL.rstrip("/") + path


def notification_mail_subject(notification: Notification) -> str:
    subject = " ".join(notification.text.split())
    if len(subject) > SUBJECT_MAX:
        subject = subject[: SUBJECT_MAX - 1].rstrip() + "…"
    return subject


def notification_mail_message(
    notification: Notification, *, address: str
) -> EmailMultiAlternatives:
    """The e-mail of `notification` to `address`: plain text and HTML, with one-click unsubscribe
    (RFC 8058) from mail of its kind."""
    preference = PREFERENCE_OF_KIND[notification.kind]
    unsubscribe = site_url(
        reverse(
            "unsubscribe",
            args=[unsubscribe_token(user_id=notification.recipient_id, preference=preference)],
        )
    )
    context = {
        "user": notification.recipient,
        "text": notification.text,
        "url": site_url(notification.link or "/"),
        "action": ACTION_OF_KIND[notification.kind],
        "topic": PREFERENCE_TOPIC[preference],
        "unsubscribe_url": unsubscribe,
        "settings_url": site_url(reverse("settings")),
        "site_url": site_url("/"),
    }
    return mail_message(
        template="notifications/email/notification",
        subject=notification_mail_subject(notification),
        address=address,
        context=context,
    )


def mail_message(
    *, template: str, subject: str, address: str, context: dict[str, Any]
) -> EmailMultiAlternatives:
    """An automatic e-mail to `address` from `template` (its .txt and its .html, both given
    `context`, which holds the `unsubscribe_url`), with one-click unsubscribe (RFC 8058)."""
    message = EmailMultiAlternatives(
        subject=subject,
        body=render_to_string(f"{template}.txt", context),
        to=[address],
        headers={
            "List-Unsubscribe": f"<{context['unsubscribe_url']}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Auto-Submitted": "auto-generated",
        },
    )
    message.attach_alternative(render_to_string(f"{template}.html", context), "text/html")
    return message


# --- unsubscribing -------------------------------------------------------------------------------


def unsubscribe_token(*, user_id: int, preference: str) -> str:
    """A signed token that turns off `preference` of user `user_id`; it does not expire."""
    return signing.dumps([user_id, preference], salt=UNSUBSCRIBE_SALT)


def unsubscribe_token_read(token: str) -> tuple[int, str] | None:
    """`(user_id, preference)` of a token made by unsubscribe_token, or None if it is not one."""
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    match data:
        case [int() as user_id, str() as preference] if preference in PREFERENCE_TOPIC:
            return user_id, preference
    return None
