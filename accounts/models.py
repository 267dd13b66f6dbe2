from django.contrib.auth.models import AbstractUser, UserManager
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower

from accounts.usernames import normalize_username, username_skeleton

LOOKALIKE_USERNAME = "A user with a username that looks the same already exists."
# How a deleted account is named wherever it still appears (the seats of finished games).
DELETED_PLAYER = "deleted player"


class CaseInsensitiveUserManager(UserManager):
    def get_by_natural_key(self, username: str | None):
        return self.get(username__iexact=username)


def lookalike_exists(username: str, *, exclude_pk: int | None = None) -> bool:
    """Whether another user's username has the same skeleton as `username` (looks the same)."""
    others = User.objects.filter(username_skeleton=username_skeleton(username))
    if exclude_pk is not None:
        others = others.exclude(pk=exclude_pk)
    return others.exists()


class User(AbstractUser):
    """A player or a staff member. Settings live here so reading them costs no extra query."""

    # The case-folded confusable skeleton of the username (accounts.usernames): usernames that
    # look alike share it, and the unique constraint keeps them apart even when two sign-ups
    # race. Kept up to date by save(). NULL only for a look-alike that existed before the rule
    # (migration 0002 keeps the older account's skeleton and logs the others).
    username_skeleton = models.TextField(editable=False, null=True)  # noqa: DJ001

    show_helpers = models.BooleanField(
        default=True, help_text="Show the legal moves of the player to move on the board."
    )
    # For touch screens, where a slip of the finger plays a move: the game page then shows the
    # move chosen first and plays it only once confirmed.
    confirm_moves = models.BooleanField(
        default=False, help_text="Confirm each move before it is played."
    )
    chat_enabled = models.BooleanField(
        default=True, help_text="Show the chat in games (each game can still turn it off)."
    )
    # Set by staff (greycircle.moderation): until then the player may not post in any chat, or
    # may not play rated games. Kept on the user so that every check reads the row it has.
    chat_muted_until = models.DateTimeField(null=True, blank=True, editable=False)
    rated_barred_until = models.DateTimeField(null=True, blank=True, editable=False)
    accept_invitations_from_anyone = models.BooleanField(
        default=False,
        help_text="Let anyone invite me to a game, not only my friends (never someone I blocked).",
    )
    # Notification preferences: one per kind of event and channel it is really sent on
    # (NOTIFICATION_CHANNELS below; greycircle.notifications.preferences reads them).
    inbox_friend_request = models.BooleanField("inbox: friend requests", default=True)
    inbox_friend_accepted = models.BooleanField("inbox: friend requests accepted", default=True)
    inbox_invitation = models.BooleanField("inbox: game invitations", default=True)
    inbox_invitation_answered = models.BooleanField(
        "inbox: answers to my invitations", default=True
    )
    inbox_your_turn = models.BooleanField("inbox: my turn", default=True)
    inbox_game_over = models.BooleanField("inbox: games over", default=True)
    inbox_reminder = models.BooleanField("inbox: reminders", default=True)
    inbox_time_running_out = models.BooleanField("inbox: time running out", default=True)
    inbox_message = models.BooleanField("inbox: messages from friends", default=True)
    inbox_moderation_notice = models.BooleanField(
        "inbox: notices from the moderators", default=True
    )
    inbox_report_handled = models.BooleanField("inbox: my reports handled", default=True)
    push_friend_request = models.BooleanField("push on friend requests", default=True)
    push_friend_accepted = models.BooleanField("push on friend requests accepted", default=False)
    push_invitation = models.BooleanField("push on game invitations", default=True)
    push_invitation_answered = models.BooleanField(
        "push on answers to my invitations", default=False
    )
    push_your_turn = models.BooleanField("push when it is my turn", default=True)
    push_game_over = models.BooleanField("push when a game ends", default=True)
    push_reminder = models.BooleanField("push reminders for waiting games", default=True)
    push_time_running_out = models.BooleanField("push when my time runs out", default=True)
    push_message = models.BooleanField("push on messages from friends", default=True)
    push_moderation_notice = models.BooleanField(
        "push on notices from the moderators", default=True
    )
    push_report_handled = models.BooleanField("push when my reports are handled", default=False)
    push_only_away = models.BooleanField(
        "no push while I am on the site", default=True, help_text="Its pages tell me already."
    )
    email_friend_request = models.BooleanField("e-mail on friend requests", default=True)
    email_game_invitation = models.BooleanField("e-mail on game invitations", default=True)
    email_your_turn = models.BooleanField("e-mail when it is my turn", default=False)
    email_game_over = models.BooleanField("e-mail when a game ends", default=True)
    email_reminder = models.BooleanField("e-mail reminders for waiting games", default=True)
    email_time_running_out = models.BooleanField("e-mail when my time runs out", default=True)
    email_message = models.BooleanField("e-mail on messages from friends", default=False)
    email_moderation_notice = models.BooleanField(
        "e-mail on notices from the moderators", default=True
    )
    email_only_away = models.BooleanField(
        "no e-mail while I am on the site", default=True, help_text="Its pages tell me already."
    )
    email_digest = models.BooleanField(
        "a daily e-mail of the games waiting on me",
        default=False,
        help_text="At most one a day, only when a game waits on me.",
    )
    # A guest plays at once, without username, e-mail or password of their own choosing
    # (accounts.guests); they can become a full account later, keeping their games.
    is_guest = models.BooleanField(
        default=False, help_text="Made by “Play now as a guest”; removed after idling a while."
    )
    # Set when the player deleted their account (greycircle.players.deletion): the row stays,
    # anonymised, so that finished games keep their seats; they show it as "deleted player".
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = CaseInsensitiveUserManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("username"), name="user_username_ci_unique"),
            models.UniqueConstraint(
                fields=["username_skeleton"],
                name="user_username_skeleton_unique",
                violation_error_message=LOOKALIKE_USERNAME,
            ),
        ]
        indexes = [
            # The worker's sweep for idle guests (greycircle.players.guests.guests_remove_idle).
            models.Index(
                fields=["last_login"], condition=models.Q(is_guest=True), name="user_guest_seen"
            ),
        ]

    # Which channel each kind of event is sent on, and the preference that asks for it: the
    # settings page's grid (a row per kind, a box where the kind is really sent). The kinds are
    # greycircle.notifications.models.NotificationKind's (accounts may not import the platform;
    # tests/notifications/test_preferences.py checks that they match). Every kind is kept in the
    # inbox and pushed; only some are mailed.
    NOTIFICATION_CHANNELS: dict[str, dict[str, str]] = {
        "friend_request": {
            "inbox": "inbox_friend_request",
            "push": "push_friend_request",
            "email": "email_friend_request",
        },
        "friend_accepted": {"inbox": "inbox_friend_accepted", "push": "push_friend_accepted"},
        "invitation": {
            "inbox": "inbox_invitation",
            "push": "push_invitation",
            "email": "email_game_invitation",
        },
        "invitation_answered": {
            "inbox": "inbox_invitation_answered",
            "push": "push_invitation_answered",
        },
        "your_turn": {
            "inbox": "inbox_your_turn",
            "push": "push_your_turn",
            "email": "email_your_turn",
        },
        "game_over": {
            "inbox": "inbox_game_over",
            "push": "push_game_over",
            "email": "email_game_over",
        },
        "reminder": {"inbox": "inbox_reminder", "push": "push_reminder", "email": "email_reminder"},
        "time_running_out": {
            "inbox": "inbox_time_running_out",
            "push": "push_time_running_out",
            "email": "email_time_running_out",
        },
        "message": {"inbox": "inbox_message", "push": "push_message", "email": "email_message"},
        "moderation_notice": {
            "inbox": "inbox_moderation_notice",
            "push": "push_moderation_notice",
            "email": "email_moderation_notice",
        },
        "report_handled": {"inbox": "inbox_report_handled", "push": "push_report_handled"},
    }
    # The preferences a mail's unsubscribe link may turn off (greycircle.notifications.mail).
    EMAIL_PREFERENCES = (
        "email_friend_request",
        "email_game_invitation",
        "email_your_turn",
        "email_game_over",
        "email_reminder",
        "email_time_running_out",
        "email_message",
        "email_moderation_notice",
        "email_digest",
    )
    # Every notification preference, as the settings, the API and "my data" list them.
    NOTIFICATION_PREFERENCES = (
        *(name for channels in NOTIFICATION_CHANNELS.values() for name in channels.values()),
        "push_only_away",
        "email_only_away",
        "email_digest",
    )

    @property
    def display_name(self) -> str:
        """How games and lists name this player: the username, or "deleted player"."""
        return DELETED_PLAYER if self.deleted_at is not None else self.username

    @classmethod
    def from_db(cls, db, field_names, values):
        user = super().from_db(db, field_names, values)
        user._saved_username = user.__dict__.get("username")
        return user

    def clean(self) -> None:
        """Normalise the username (NFKC) and refuse one that looks like another user's.

        Model forms (the admin's) call this; allauth's sign-up checks through the adapter.
        """
        super().clean()
        if self.username and lookalike_exists(self.username, exclude_pk=self.pk):
            raise ValidationError({"username": LOOKALIKE_USERNAME}, code="username_lookalike")

    def save(self, *args, **kwargs) -> None:
        if "username" in self.__dict__ and (
            self._state.adding or self.username != getattr(self, "_saved_username", None)
        ):
            self.username = normalize_username(self.username)
            self.username_skeleton = username_skeleton(self.username)
            update_fields = kwargs.get("update_fields")
            if update_fields is not None and "username" in update_fields:
                kwargs["update_fields"] = {*update_fields, "username_skeleton"}
        super().save(*args, **kwargs)
        self._saved_username = self.__dict__.get("username")


class FriendRequest(models.Model):
    """`from_user` asked `to_user` to be friends and `to_user` has not answered yet.

    Answering deletes the request (accepting also makes the friendship): only pending requests
    exist, so a pair has at most one request each way.
    """

    from_user = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="friend_requests_sent"
    )
    to_user = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="friend_requests_received"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["from_user", "to_user"], name="friend_request_unique"),
            models.CheckConstraint(
                condition=~models.Q(from_user=models.F("to_user")),
                name="friend_request_not_to_self",
            ),
        ]
        indexes = [models.Index(fields=["to_user", "-created_at"], name="friend_request_incoming")]

    def __str__(self) -> str:
        return f"{self.from_user} → {self.to_user}"


class Friendship(models.Model):
    """One side of a friendship: `user` counts `friend` among their friends.

    A friendship is stored as two rows, one per side, written and deleted together by the
    services (accounts.friends), so "the friends of X" is one indexed lookup.
    """

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="friendships")
    friend = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "friend"], name="friendship_unique"),
            models.CheckConstraint(
                condition=~models.Q(user=models.F("friend")), name="friendship_not_with_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} — {self.friend}"


class Block(models.Model):
    """`blocker` blocked `blocked`: no friendship, requests, invitations or reminders between them
    (either way round)."""

    blocker = models.ForeignKey(User, on_delete=models.CASCADE, related_name="blocks_made")
    blocked = models.ForeignKey(User, on_delete=models.CASCADE, related_name="blocks_received")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="block_unique"),
            models.CheckConstraint(
                condition=~models.Q(blocker=models.F("blocked")), name="block_not_self"
            ),
        ]
        indexes = [models.Index(fields=["blocked"], name="block_blocked")]

    def __str__(self) -> str:
        return f"{self.blocker} blocked {self.blocked}"
