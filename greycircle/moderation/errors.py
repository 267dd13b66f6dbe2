"""Why a moderation service refused a request (`ServiceError`s, like every service refusal)."""

from __future__ import annotations

from greycircle.errors import ServiceError


class ModerationError(ServiceError):
    status = 400


class ModerationInvalid(ModerationError):
    """The action cannot be carried out as asked (no reason given, yourself, ...)."""

    status = 400


class ModerationPermissionDenied(ModerationError):
    """The actor may not moderate (not staff)."""

    status = 403


class ModerationNotFound(ModerationError):
    """No such user, sanction or notice (of the player's own)."""

    status = 404
