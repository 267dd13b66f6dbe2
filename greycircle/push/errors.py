"""Why a push service refused a request (mapped by the API like every service error)."""

from __future__ import annotations

from greycircle.errors import ServiceError


class PushInvalid(ServiceError):
    """A subscription the site cannot push to (its endpoint or keys are not valid)."""
