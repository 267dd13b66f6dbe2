"""Why a push service refused a request (mapped by the API like every service error)."""

from __future__ import annotations

from greycircle.errors import ServiceError


class PushInvalid(ServiceError):
    """A subscription the site cannot push to (its endpoint or keys are not valid)."""


class PushRenewalRefused(ServiceError):
    """A renewal whose old endpoint and secret name no subscription (one answer for both, so
    that it tells nobody which endpoints exist)."""

    status = 403
