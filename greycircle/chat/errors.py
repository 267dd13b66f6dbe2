"""Why a message was refused (`ServiceError`s, which the API maps like every refusal)."""

from __future__ import annotations

from typing import Any

from greycircle.errors import ServiceError


class MessageRefused(ServiceError):
    """The message cannot be posted as written, or not by this user here."""

    status = 400


class MessageForbidden(MessageRefused):
    """The poster may not talk here (not a player, chat off, muted)."""

    status = 403


class MessageNotFound(MessageRefused):
    status = 404


class MessageIdReused(MessageRefused):
    """The poster's id for the message names another message of theirs (422, as the IETF's
    Idempotency-Key draft answers a key reused for another request)."""

    status = 422


class MessageThrottled(MessageRefused):
    """Too many messages: the API answers 429 with `Retry-After` set to `retry_after`."""

    status = 429

    def __init__(self, code: str, detail: str, *, retry_after: int, **extra: Any) -> None:
        super().__init__(code, detail, retry_after=retry_after, **extra)
        self.retry_after = retry_after
