"""What a player is told: each notification kept for the inbox, the badge and e-mail."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class NotificationKind(models.TextChoices):
    """Every kind of notification. The preferences (accounts.User.NOTIFICATION_CHANNELS) name
    each, per channel (greycircle.notifications.preferences)."""

    FRIEND_REQUEST = "friend_request", "Friend request"
    FRIEND_ACCEPTED = "friend_accepted", "Friend request accepted"
    INVITATION = "invitation", "Invitation to a game"
    INVITATION_ANSWERED = "invitation_answered", "Answer to an invitation"
    YOUR_TURN = "your_turn", "Your turn"
    GAME_OVER = "game_over", "Game over"
    REMINDER = "reminder", "Reminder"
    TIME_RUNNING_OUT = "time_running_out", "Time running out"
    MESSAGE = "message", "Message from a friend"
    MODERATION_NOTICE = "moderation_notice", "Notice from the moderators"
    REPORT_HANDLED = "report_handled", "Report handled"


class Notification(models.Model):
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=32, choices=NotificationKind.choices)
    text = models.CharField(max_length=300, help_text="Written for the recipient.")
    link = models.CharField(max_length=200, blank=True, help_text="A path on this site.")
    game = models.ForeignKey(
        "games.Game", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    game_version = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="The version of the game the event it says was made for (None: not about a "
        "game's play, or kept before versions were recorded): an older event never replaces it.",
    )
    read = models.BooleanField(default=False)
    in_inbox = models.BooleanField(
        default=True,
        help_text="False: its recipient wants no inbox for its kind; kept for push, e-mail and "
        "the game's order only (greycircle.notifications.preferences).",
    )
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created", "-pk"]
        indexes = [
            models.Index(
                fields=["recipient", "created"],
                name="notification_unread",
                condition=models.Q(read=False),
            ),
            models.Index(fields=["recipient", "-created", "-id"], name="notification_inbox"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} for {self.recipient_id}: {self.text}"


class MailSent(models.Model):
    """An e-mail sent for a notification: "your turn" mail is limited per game and hour by these
    rows, and a notification is never mailed twice (greycircle.notifications.mail)."""

    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    kind = models.CharField(max_length=32, choices=NotificationKind.choices)
    game = models.ForeignKey(
        "games.Game", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    notification = models.OneToOneField(
        Notification, on_delete=models.SET_NULL, null=True, blank=True, related_name="mail"
    )
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            models.Index(fields=["recipient", "kind", "game", "sent_at"], name="mail_sent_recent")
        ]

    def __str__(self) -> str:
        return f"{self.kind} mail to {self.recipient_id} at {self.sent_at:%Y-%m-%d %H:%M}"


class DigestSent(models.Model):
    """When a player's daily digest was last sent (greycircle.notifications.digest): one row per
    player, claimed before each digest, so that one goes at most once in DIGEST_INTERVAL."""

    recipient = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    sent_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"digest to {self.recipient_id} at {self.sent_at:%Y-%m-%d %H:%M}"


class DeliveryReceipt(models.Model):
    """A queued notification delivered, by the key its receiver gave it
    (greycircle.notifications.delivery): written in the transaction that delivers it, so that
    its task run again (retried after a failure past the delivery, or a dead worker's task
    queued again) applies it at most once. Pruned once no task can run again (`RECEIPTS_KEPT`)."""

    key = models.UUIDField(primary_key=True)
    delivered_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"{self.key} delivered at {self.delivered_at:%Y-%m-%d %H:%M}"
