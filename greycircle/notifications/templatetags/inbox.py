"""`{% unread_notifications as count %}`: the signed-in user's unread count, for the badge in the
navigation of every page (one query, made only by pages that show it)."""

from __future__ import annotations

from typing import Any

from django import template

from greycircle.notifications.selectors import notifications_unread_count

register = template.Library()


@register.simple_tag(takes_context=True)
def unread_notifications(context: dict[str, Any]) -> int:
    user = context.get("user")
    if user is None or not user.is_authenticated:
        return 0
    return notifications_unread_count(user=user)
