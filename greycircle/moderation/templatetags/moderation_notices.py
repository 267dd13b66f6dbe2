"""`{% sanction_notices %}`: the moderators' notices in force on the signed-in player, shown on
every page (frontend/base.html) with the end date; a warning or rename with a button that
acknowledges it. Only the player's own, never another's."""

from __future__ import annotations

from typing import Any

from django import template

from greycircle.moderation.models import SanctionKind
from greycircle.moderation.sanctions import ACKNOWLEDGED_KINDS, sanctions_active

register = template.Library()

HEADINGS = {
    SanctionKind.WARN: "A warning from the moderators",
    SanctionKind.MUTE: "Your chat is muted",
    SanctionKind.RATED_BAR: "You are barred from rated games",
    SanctionKind.RENAME: "Your username was changed",
}


@register.inclusion_tag("moderation/notices.html", takes_context=True)
def sanction_notices(context: dict[str, Any]) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    notices = []
    if user is not None and user.is_authenticated:
        notices = [
            {
                "sanction": sanction,
                "heading": HEADINGS.get(sanction.kind, sanction.get_kind_display()),
                "acknowledgeable": sanction.kind in ACKNOWLEDGED_KINDS,
            }
            for sanction in sanctions_active(user=user)
            if sanction.kind in HEADINGS
        ]
    return {"notices": notices, "request": request, "csrf_token": context.get("csrf_token")}
