"""Reports: a player (or one of the site's automatic signals) asks staff to look at a player.

A report points at the reported `user` and at most one thing of theirs: a game, a chat message
in a game, or a direct message (none: their profile, or a pattern across games). `target` names
that thing as one string, so that one open report per reporter and target (and one open
automatic report per kind, user and target) is a unique constraint, not a race.

The reporter sees only `status` (open or handled), never the `outcome` or the moderation action
taken: what happened to the reported player is staff's business.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class ReportSource(models.TextChoices):
    PLAYER = "player", "A player"
    SCREENING = "screening", "The chat classifier flagged a message"
    SIGNAL = "signal", "A pattern found"


class ReportReason(models.TextChoices):
    ABUSIVE_CHAT = "abusive_chat", "Abusive chat"
    CHEATING = "cheating", "Cheating"
    SANDBAGGING = "sandbagging", "Sandbagging or rating manipulation"
    STALLING = "stalling", "Stalling"
    OFFENSIVE_USERNAME = "offensive_username", "Offensive username"
    SPAM = "spam", "Spam"
    OTHER = "other", "Other"


class ReportStatus(models.TextChoices):
    OPEN = "open", "Open"
    HANDLED = "handled", "Handled"


class ReportOutcome(models.TextChoices):
    DISMISSED = "dismissed", "Dismissed"
    ACTIONED = "actioned", "Actioned"


COMMENT_MAX = 1000


class Report(models.Model):
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="reports_filed",
        help_text="Who reported; empty for an automatic report or a deleted account.",
    )
    source = models.CharField(max_length=16, choices=ReportSource.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="reports_about",
        help_text="The reported player.",
    )
    reason = models.CharField(max_length=32, choices=ReportReason.choices)
    comment = models.TextField(max_length=COMMENT_MAX, blank=True)
    game = models.ForeignKey(
        "games.Game", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    game_message = models.ForeignKey(
        "chat.GameMessage",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    direct_message = models.ForeignKey(
        "conversations.DirectMessage",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    target = models.CharField(
        max_length=64,
        blank=True,
        help_text='What is reported, as one string ("game:12", "game_message:3", ...); '
        "empty: the player themself.",
    )
    created = models.DateTimeField(default=timezone.now, db_index=True)
    status = models.CharField(
        max_length=16, choices=ReportStatus.choices, default=ReportStatus.OPEN
    )
    assigned_to = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="reports_assigned",
        help_text="The staff member looking at it.",
    )
    handled_at = models.DateTimeField(null=True, blank=True)
    # As the moderation log's actor: a staff account that has moderated is deactivated, never
    # deleted.
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="reports_handled",
    )
    outcome = models.CharField(max_length=16, choices=ReportOutcome.choices, blank=True)
    moderation_action = models.ForeignKey(
        "moderation.ModerationAction",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="reports",
    )

    class Meta:
        ordering = ["-created", "-pk"]
        indexes = [
            # The desk's queue: open reports grouped by the reported player, oldest first.
            models.Index(fields=["status", "user", "created"], name="report_queue"),
            models.Index(fields=["reporter", "created"], name="report_by_reporter"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["reporter", "user", "target"],
                condition=models.Q(status="open", source="player", reporter__isnull=False),
                name="report_one_open_per_reporter_and_target",
            ),
            models.UniqueConstraint(
                fields=["user", "reason", "source", "target"],
                condition=models.Q(status="open") & ~models.Q(source="player"),
                name="report_one_open_automatic_per_kind_and_target",
            ),
            models.CheckConstraint(
                condition=models.Q(status="open", outcome="")
                | (models.Q(status="handled") & ~models.Q(outcome="")),
                name="report_outcome_once_handled",
            ),
        ]

    def __str__(self) -> str:
        return f"Report #{self.pk}: {self.get_reason_display()} ({self.get_status_display()})"
