"""Why a service refused a request: the one base of every service's errors.

Accounts, games, moderation and notifications each subclass `ServiceError`; the API maps
`status` to the HTTP status and `code`, `detail` and `extra` to the error shape
(`greycircle/api/errors.py`), and pages show `detail`. It lives here, in the plumbing, so that
accounts (the bottom layer) can use it without importing the game platform.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    status = 400

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra
