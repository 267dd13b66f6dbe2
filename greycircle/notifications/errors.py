"""Why a notifications service refused a request (mapped by the API like every service error)."""

from __future__ import annotations

from greycircle.errors import ServiceError


class NotificationNotFound(ServiceError):
    """No such notification of the user's (another user's notifications do not exist for them)."""

    status = 404
