"""Why a moderation service refused a request (`GameError`s, like every service refusal)."""

from __future__ import annotations

from greycircle.games.errors import GameError


class ModerationError(GameError):
    status = 400


class ModerationInvalid(ModerationError):
    """The action cannot be carried out as asked (no reason given, yourself, ...)."""

    status = 400


class ModerationPermissionDenied(ModerationError):
    """The actor may not moderate (not staff)."""

    status = 403
