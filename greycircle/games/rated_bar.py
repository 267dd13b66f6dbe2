"""The one check of a bar from rated games (set by staff, greycircle.moderation.sanctions, on
`User.rated_barred_until`): every path into a rated game between people calls it for the player
it seats — creating, joining, accepting an invitation, a rematch, a seek in the lobby (whose
pairing also leaves barred seekers out of rated pools). Casual games, and games against
computers only (never rated), stay open to a barred player.

Only the barred player is refused, and only they are told why: inviting a barred player says
nothing of it to the inviter (the invitation is refused when they try to accept it).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from django.utils import timezone

from greycircle.games.errors import GamePermissionDenied

if TYPE_CHECKING:
    from accounts.models import User

CODE = "rated_barred"


def rated_bar_check(*, user: User, now: datetime | None = None) -> None:
    """Refuse (`rated_barred`, 403, with the end date) if `user` is barred from rated games at
    `now`."""
    until = user.rated_barred_until
    if until is not None and until > (now or timezone.now()):
        raise GamePermissionDenied(
            CODE,
            f"A moderator has barred you from rated games until {until:%Y-%m-%d %H:%M} UTC. "
            "Casual games are open to you.",
        )
