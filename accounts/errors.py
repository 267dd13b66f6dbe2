"""Why an accounts service refused a request.

They are `ServiceError`s so the API maps them like every service refusal (`status` becomes the
HTTP status, `code` and `detail` the error shape) and pages show their `detail`.
"""

from __future__ import annotations

from greycircle.errors import ServiceError


class AccountError(ServiceError):
    status = 400


class AccountInvalid(AccountError):
    """The request cannot be carried out as asked (yourself, already friends, ...)."""

    status = 400


class AccountPermissionDenied(AccountError):
    """The requester may not do this (not the request's recipient or sender, blocked)."""

    status = 403


class AccountNotFound(AccountError):
    status = 404


class AccountRateLimited(AccountError):
    """Too many of these lately; try later."""

    status = 429
