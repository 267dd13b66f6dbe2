"""The moderation log (one row per action on one user or game, written once, never changed), the
flags that point staff at what may need an action (patterns found by other apps), and the
sanctions staff impose on players (greycircle.moderation.sanctions)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models


class ModerationActionKind(models.TextChoices):
    USER_DEACTIVATE = "user_deactivate", "Deactivated an account"
    USER_REACTIVATE = "user_reactivate", "Reactivated an account"
    USER_CHANGE = "user_change", "Changed an account"
    USER_PASSWORD = "user_password", "Changed an account's password"
    USER_DELETE = "user_delete", "Deleted an account"
    GAME_ABORT = "game_abort", "Aborted a game"
    FLAG_REVIEW = "flag_review", "Reviewed a flag"
    SANCTION_WARN = "sanction_warn", "Warned a player"
    SANCTION_MUTE = "sanction_mute", "Muted a player's chat"
    SANCTION_RATED_BAR = "sanction_rated_bar", "Barred a player from rated games"
    SANCTION_RENAME = "sanction_rename", "Renamed an offensive username"
    SANCTION_LIFT = "sanction_lift", "Lifted a sanction"
    REPORTS_DISMISS = "reports_dismiss", "Dismissed reports"


class ModerationAction(models.Model):
    """`actor` (staff) did `action` to `user` and/or `game` at `created`, because `reason`.

    `description` says what was done in words, naming the user or game as they were then, so the
    entry still reads right once a deleted user's or game's link is gone (`SET_NULL`). The actor
    is kept (`PROTECT`): a staff account that has moderated is deactivated, never deleted.
    """

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="moderation_actions_taken",
        help_text="The staff member who acted.",
    )
    action = models.CharField(max_length=32, choices=ModerationActionKind.choices)
    description = models.CharField(max_length=300, help_text="What was done, in words.")
    reason = models.TextField(help_text="Why, in the staff member's words.")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="moderation_actions",
        help_text="The user acted on, if any.",
    )
    game = models.ForeignKey(
        "games.Game",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="moderation_actions",
        help_text="The game acted on, if any.",
    )
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(reason=""), name="moderation_action_has_a_reason"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.description} ({self.created:%Y-%m-%d %H:%M})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise ValueError("The moderation log is written once: entries are never changed.")
        super().save(*args, **kwargs)


class FlagKind(models.TextChoices):
    """What looked suspicious (`greycircle.ratings.suspicion` says exactly when)."""

    QUICK_LOSSES = "quick_losses", "Loses quickly to the same account again and again"
    QUICK_WINS = "quick_wins", "Wins many games that the loser gave up at once"


class Flag(models.Model):
    """A pattern staff should look at: `user` (the account that gains) and maybe `other_user`
    (the account that loses to it), `games` matching games so far, the latest being `game`.

    Raised by the apps that see the pattern (`flags.flag_raise`), never by hand. While it is open
    (not reviewed) the same pattern updates it rather than raising another: `key` names the
    pattern, unique among open flags. Staff review it with a reason (`services.flags_review`),
    recorded in the moderation log; the pattern going on afterwards raises a new flag.
    """

    kind = models.CharField(max_length=32, choices=FlagKind.choices)
    key = models.CharField(max_length=100, help_text="The kind and the accounts, as one string.")
    description = models.CharField(max_length=300, help_text="What was seen, in words.")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="flags",
        help_text="The account the pattern favours.",
    )
    other_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The account that loses to it, for a pattern between two accounts.",
    )
    games = models.PositiveIntegerField(help_text="Games that match the pattern so far.")
    game = models.ForeignKey(
        "games.Game",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The latest game that matched.",
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(db_index=True, help_text="When a game last matched.")
    reviewed_at = models.DateTimeField(null=True, blank=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["-updated", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["key"],
                condition=models.Q(reviewed_at__isnull=True),
                name="flag_one_open_per_pattern",
            ),
        ]

    def __str__(self) -> str:
        return self.description


class SanctionKind(models.TextChoices):
    WARN = "warn", "Warning"
    MUTE = "mute", "Chat muted"
    RATED_BAR = "rated_bar", "Barred from rated games"
    RENAME = "rename", "Username changed"
    DEACTIVATE = "deactivate", "Account deactivated"


class Sanction(models.Model):
    """What staff (`created_by`) did to a player (`user`) about their conduct, and why.

    `reason` is staff's and stays internal; `notice` is what the player is told. A mute and a
    rated bar last `until`; a warning and a rename are notices the player acknowledges
    (`acknowledged_at`); each is lifted (`lifted_at`, by `lifted_by`, for `lift_reason`) to undo
    it. A rename keeps the username it replaced, to give it back when lifted. The effect itself
    lives on the user (`chat_muted_until`, `rated_barred_until`, the username, `is_active`), where
    every check reads it; the services here keep the two in step.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sanctions"
    )
    kind = models.CharField(max_length=16, choices=SanctionKind.choices)
    reason = models.TextField(help_text="Why, in staff's words (never shown to the player).")
    notice = models.TextField(help_text="What the player is told.")
    until = models.DateTimeField(
        null=True, blank=True, help_text="When a mute or a rated bar ends."
    )
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    acknowledged_at = models.DateTimeField(
        null=True, blank=True, help_text="When the player dismissed the notice."
    )
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    lift_reason = models.TextField(blank=True)
    old_username = models.CharField(max_length=150, blank=True)
    new_username = models.CharField(max_length=150, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(kind__in=["mute", "rated_bar"], until__isnull=False)
                | (~models.Q(kind__in=["mute", "rated_bar"]) & models.Q(until__isnull=True)),
                name="sanction_until_for_timed_kinds_only",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk} ({self.created:%Y-%m-%d %H:%M})"
