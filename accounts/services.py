"""Changes to accounts."""

from __future__ import annotations

from typing import Any

from accounts.models import User

SETTINGS_FIELDS = (
    "show_helpers",
    "confirm_moves",
    "accept_invitations_from_anyone",
    "chat_enabled",
    *User.NOTIFICATION_PREFERENCES,
)


def user_settings_update(*, user: User, changes: dict[str, Any]) -> User:
    """Apply `changes` (only settings fields; others are ignored) and save just those columns."""
    fields = [name for name in SETTINGS_FIELDS if name in changes]
    for name in fields:
        setattr(user, name, bool(changes[name]))
    if fields:
        user.save(update_fields=fields)
    return user
