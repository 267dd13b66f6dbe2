"""Why a game service refused a request. The API maps `status` to the HTTP status code."""

from __future__ import annotations

from typing import Any


class GameError(Exception):
    status = 400

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra


class GameInvalid(GameError):
    """The request cannot be carried out as asked (bad options, game over, illegal move)."""

    status = 400


class GamePermissionDenied(GameError):
    """The requester may not do this (not a player, not their turn)."""

    status = 403


class GameNotFound(GameError):
    status = 404


class GameConflict(GameError):
    """The requester acted on a version of the game that is no longer current."""

    status = 409
