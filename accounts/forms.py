"""Browser forms of accounts. Forms validate; services (accounts.services) write."""

from __future__ import annotations

from typing import Any

from django import forms

from accounts.models import User
from accounts.services import SETTINGS_FIELDS


class UserSettingsForm(forms.Form):
    """A user's settings: board helpers and which e-mails they want."""

    show_helpers = forms.BooleanField(
        required=False,
        label="Show helpers",
        help_text="Mark the moves you can make on the board when it is your turn.",
    )
    accept_invitations_from_anyone = forms.BooleanField(
        required=False,
        label="Anyone may invite me to a game",
        help_text="Otherwise only my friends can. Nobody I blocked ever can.",
    )
    email_friend_request = forms.BooleanField(
        required=False, label="Someone sends me a friend request"
    )
    email_game_invitation = forms.BooleanField(required=False, label="Someone invites me to a game")
    email_your_turn = forms.BooleanField(required=False, label="It is my turn")
    email_game_over = forms.BooleanField(required=False, label="A game I play in is over")
    email_reminder = forms.BooleanField(
        required=False, label="A game has been waiting for my move for a while (reminder)"
    )

    @classmethod
    def for_user(cls, user: User, data: Any = None) -> UserSettingsForm:
        """The form filled with `user`'s current settings (and bound to `data` when given)."""
        return cls(data, initial={name: getattr(user, name) for name in SETTINGS_FIELDS})

    def board_fields(self) -> list[forms.BoundField]:
        return [self["show_helpers"]]

    def invitation_fields(self) -> list[forms.BoundField]:
        return [self["accept_invitations_from_anyone"]]

    def email_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in User.EMAIL_PREFERENCES]


class UsernameForm(forms.Form):
    """Whom to ask to be friends, or to block: a username (matched ignoring case)."""

    username = forms.CharField(
        label="Username",
        max_length=User._meta.get_field("username").max_length,
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )
