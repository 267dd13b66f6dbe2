"""Why a conversations service refused a request (mapped by the API like every service error)."""

from __future__ import annotations

from greycircle.errors import ServiceError


class ConversationRefused(ServiceError):
    """Not friends, blocked, muted: the user may not message this player now."""

    status = 403


class ConversationInvalid(ServiceError):
    status = 400


class ConversationNotFound(ServiceError):
    """No such conversation of the user's (another pair's conversations do not exist for them)."""

    status = 404
