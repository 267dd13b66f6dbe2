"""Why filing a report was refused (`ServiceError`s, like every service refusal)."""

from __future__ import annotations

from greycircle.errors import ServiceError


class ReportError(ServiceError):
    status = 400


class ReportInvalid(ReportError):
    """Not a report that can be filed (no target or two, yourself, a duplicate, a guest)."""

    status = 400


class ReportNotFound(ReportError):
    """No such target, or none the reporter could see: the same answer for both."""

    status = 404


class ReportThrottled(ReportError):
    """Too many reports today; `retry_after` says when the next may be filed."""

    status = 429
