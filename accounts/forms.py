"""Browser forms of accounts. Forms validate; services (accounts.services) write.

Library seam (UPGRADING.md, "django-allauth"): django-allauth==65.22.1. The guest upgrade checks
its address with `allauth.account.internal.flows.manage_email.email_already_exists`, so that a
taken address is refused only where sign-up would say so (ACCOUNT_PREVENT_ENUMERATION).
"""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import get_adapter
from allauth.account.internal.flows.manage_email import email_already_exists
from django import forms

from accounts.models import User
from accounts.services import SETTINGS_FIELDS

# The rows of the notification grid: what happened, as the settings page says it.
KIND_LABELS = {
    "friend_request": "Someone sends me a friend request",
    "friend_accepted": "Someone accepts my friend request",
    "invitation": "Someone invites me to a game",
    "invitation_answered": "Someone answers my invitation",
    "your_turn": "It is my turn in a game with other people",
    "game_over": "A game I play in is over",
    "reminder": "A player reminds me of a game",
    "time_running_out": "My time to move is running out",
    "message": "A friend sends me a message",
    "moderation_notice": "The moderators tell me something",
    "report_handled": "A report I made is handled",
}
# What never happens to a guest.
NOT_FOR_GUESTS = (
    "friend_request",
    "friend_accepted",
    "invitation",
    "invitation_answered",
    "message",
)
CHANNEL_LABELS = {"inbox": "Inbox", "push": "Push", "email": "E-mail"}


class UserSettingsForm(forms.Form):
    """A user's settings: board helpers, invitations and which notifications they want where."""

    show_helpers = forms.BooleanField(
        required=False,
        label="Show helpers",
        help_text="Mark the moves you can make on the board when it is your turn.",
    )
    confirm_moves = forms.BooleanField(
        required=False,
        label="Confirm moves",
        help_text="A first tap or click shows the move; Confirm (or Enter) plays it, Cancel (or "
        "Escape) takes it back. For touch screens, where a finger slips.",
    )
    accept_invitations_from_anyone = forms.BooleanField(
        required=False,
        label="Anyone may invite me to a game",
        help_text="Otherwise only my friends can. Nobody I blocked ever can.",
    )
    chat_enabled = forms.BooleanField(
        required=False,
        label="Chat in games",
        help_text="Off, I see no game's chat and write in none. A game's page also turns its own "
        "chat off.",
    )
    push_only_away = forms.BooleanField(
        required=False,
        label="No push while I am on the site",
        help_text="Its open pages tell me already.",
    )
    email_only_away = forms.BooleanField(
        required=False,
        label="No e-mail while I am on the site",
        help_text="Its open pages tell me already.",
    )
    email_digest = forms.BooleanField(
        required=False,
        label="A daily e-mail of the games waiting on me",
        help_text="At most one a day, and only when a game waits on me; apart from the e-mail "
        "of each turn above.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The notification grid (User.NOTIFICATION_CHANNELS): one box per kind and channel, each
        # labelled "<row>: <column>" for screen readers (the table shows its row and column).
        grid = {
            preference: forms.BooleanField(
                required=False, label=f"{KIND_LABELS[kind]}: {CHANNEL_LABELS[channel]}"
            )
            for kind, channels in User.NOTIFICATION_CHANNELS.items()
            for channel, preference in channels.items()
        }
        self.fields = {name: self.fields.get(name) or grid[name] for name in SETTINGS_FIELDS}

    @classmethod
    def for_user(cls, user: User, data: Any = None) -> UserSettingsForm:
        """The form filled with `user`'s current settings (and bound to `data` when given).

        A guest has no e-mail address, so no e-mail settings either; nor can anyone invite a
        guest to a game (greycircle.games.services) or be their friend (accounts.friends), so
        no setting about invitations or friends."""
        form = cls(data, initial={name: getattr(user, name) for name in SETTINGS_FIELDS})
        if user.is_guest:
            never = [
                name
                for kind in NOT_FOR_GUESTS
                for name in User.NOTIFICATION_CHANNELS[kind].values()
            ]
            for name in {
                *never,
                *User.EMAIL_PREFERENCES,
                "email_only_away",
                "accept_invitations_from_anyone",
            }:
                del form.fields[name]
        return form

    def board_fields(self) -> list[forms.BoundField]:
        return [self["show_helpers"], self["confirm_moves"]]

    def invitation_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in ("accept_invitations_from_anyone",) if name in self.fields]

    def chat_fields(self) -> list[forms.BoundField]:
        return [self["chat_enabled"]]

    def notification_channels(self) -> list[str]:
        """The grid's columns: the channels this form has a box of (a guest has no e-mail)."""
        return [
            label
            for channel, label in CHANNEL_LABELS.items()
            if any(
                channels.get(channel) in self.fields
                for channels in User.NOTIFICATION_CHANNELS.values()
            )
        ]

    def notification_rows(self) -> list[tuple[str, list[forms.BoundField | None]]]:
        """The grid's rows: each kind's label and its box per column (None: never sent there)."""
        columns = [
            channel
            for channel, label in CHANNEL_LABELS.items()
            if label in self.notification_channels()
        ]
        rows = []
        for kind, channels in User.NOTIFICATION_CHANNELS.items():
            names = [channels.get(channel) for channel in columns]
            boxes = [self[name] if name in self.fields else None for name in names]
            if any(boxes):
                rows.append((KIND_LABELS[kind], boxes))
        return rows

    def away_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in ("push_only_away", "email_only_away") if name in self.fields]

    def digest_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in ("email_digest",) if name in self.fields]


class UsernameForm(forms.Form):
    """Whom to ask to be friends, or to block: a username (matched ignoring case)."""

    username = forms.CharField(
        label="Username",
        max_length=User._meta.get_field("username").max_length,
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )


class GuestUpgradeForm(forms.Form):
    """A guest's new username, e-mail address and password, checked as sign-up checks them (the
    site's allauth adapter: look-alike and reserved names; Django's password validators)."""

    username = forms.CharField(
        label="Username",
        max_length=User._meta.get_field("username").max_length,
        widget=forms.TextInput(attrs={"autocomplete": "username", "spellcheck": "false"}),
    )
    email = forms.EmailField(
        label="Email address", widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    password1 = forms.CharField(
        label="Password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password2 = forms.CharField(
        label="Password (again)",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def __init__(self, *args: Any, user: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_username(self) -> str:
        return get_adapter().clean_username(self.cleaned_data["username"])

    def clean_email(self) -> str:
        email = get_adapter().clean_email(self.cleaned_data["email"].lower())
        # As sign-up: an address another account has is refused only where allauth's settings
        # (ACCOUNT_PREVENT_ENUMERATION) let that be told.
        email, _ = email_already_exists(email, user=self.user)
        return email

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        password = cleaned.get("password1")
        if password and password != cleaned.get("password2"):
            self.add_error("password2", "You must type the same password each time.")
        elif password:
            # Checked against the account as it will be (similarity to the new username/e-mail).
            candidate = User(
                pk=self.user.pk,
                username=cleaned.get("username", ""),
                email=cleaned.get("email", ""),
            )
            try:
                get_adapter().clean_password(password, user=candidate)
            except forms.ValidationError as error:
                self.add_error("password1", error)
        return cleaned


class AccountDeleteForm(forms.Form):
    """Confirmation of deleting an account: the password, or for a guest (no password) a tick."""

    password = forms.CharField(
        label="Your password",
        strip=False,
        required=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    confirm = forms.BooleanField(
        label="Yes, delete my guest account and everything in it", required=False
    )

    def __init__(self, *args: Any, user: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if user.has_usable_password():
            del self.fields["confirm"]
            self.fields["password"].required = True
        else:
            del self.fields["password"]
            self.fields["confirm"].required = True
