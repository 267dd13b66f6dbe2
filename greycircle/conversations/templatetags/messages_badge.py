"""`{% unread_messages as count %}`: the signed-in user's unread messages from friends, for the
navigation's badge on every page (one query, made only by pages that show it)."""

from __future__ import annotations

from typing import Any

from django import template

from greycircle.conversations.selectors import messages_unread_count

register = template.Library()


@register.simple_tag(takes_context=True)
def unread_messages(context: dict[str, Any]) -> int:
    user = context.get("user")
    if user is None or not user.is_authenticated:
        return 0
    return messages_unread_count(user=user)
