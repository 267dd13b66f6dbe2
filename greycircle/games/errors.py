"""Why a game service refused a request (`ServiceError`s, which the API maps like every refusal)."""

from __future__ import annotations

from greycircle.errors import ServiceError


class GameError(ServiceError):
    status = 400


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
