from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from django.db.models.functions import Lower


class CaseInsensitiveUserManager(UserManager):
    def get_by_natural_key(self, username: str | None):
        return self.get(username__iexact=username)


class User(AbstractUser):
    """A player or a staff member. Settings live here so reading them costs no extra query."""

    show_helpers = models.BooleanField(
        default=True, help_text="Show the legal moves of the player to move on the board."
    )
    email_friend_request = models.BooleanField("e-mail on friend requests", default=True)
    email_game_invitation = models.BooleanField("e-mail on game invitations", default=True)
    email_your_turn = models.BooleanField("e-mail when it is my turn", default=False)
    email_game_over = models.BooleanField("e-mail when a game ends", default=True)
    email_reminder = models.BooleanField("e-mail reminders for waiting games", default=True)

    objects = CaseInsensitiveUserManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("username"), name="user_username_ci_unique"),
        ]

    EMAIL_PREFERENCES = (
        "email_friend_request",
        "email_game_invitation",
        "email_your_turn",
        "email_game_over",
        "email_reminder",
    )
