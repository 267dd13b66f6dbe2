"""Messages between friends: one conversation per pair of users, its messages, and how far each
of the two has read.

A conversation's pair is kept in id order (`user_low` < `user_high`), so the pair has one row
whatever the order they are named in. A message the screening flagged (greycircle.chat.screening)
is `hidden`: its sender still sees it, nobody else does until staff review it (the admin), as
lichess's shadow mode keeps a flagged message from the person it was meant for.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q


class Conversation(models.Model):
    user_low = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    user_high = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user_low", "user_high"], name="conversation_pair"),
            models.CheckConstraint(
                condition=Q(user_low__lt=F("user_high")), name="conversation_pair_ordered"
            ),
        ]

    def __str__(self) -> str:
        return f"conversation {self.pk} between {self.user_low_id} and {self.user_high_id}"

    def other_id(self, user_id: int) -> int:
        """The id of the participant who is not `user_id`."""
        return self.user_high_id if user_id == self.user_low_id else self.user_low_id


class DirectMessage(models.Model):
    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="messages"
    )
    sender = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    body = models.TextField(help_text="Plain text as typed: shown escaped, never as markup.")
    created = models.DateTimeField(auto_now_add=True)
    hidden = models.BooleanField(
        default=False,
        help_text="Flagged by the screening: the sender sees it, the recipient does not until "
        "staff review it.",
    )
    flag_reason = models.CharField(max_length=100, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["conversation", "id"], name="conversation_messages")]

    def __str__(self) -> str:
        return f"message {self.pk} from {self.sender_id} in conversation {self.conversation_id}"


class ConversationRead(models.Model):
    """How far `user` has read `conversation`: every message up to `last_read_id` (0: none)."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="reads")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    last_read_id = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["conversation", "user"], name="conversation_read_once")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} read conversation {self.conversation_id} to {self.last_read_id}"
