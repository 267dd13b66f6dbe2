"""Who opens a WebSocket: the browser's session cookie, or an app's `X-Session-Token` header.

The cookie counts only when the handshake's Origin is one of our hosts, so another site cannot open
a socket with a visitor's cookie. Apps send no cookie and authenticate with the token instead.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from allauth.headless.internal.sessionkit import authenticate_by_x_session_token
from channels.auth import AuthMiddleware
from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from channels.sessions import CookieMiddleware, SessionMiddleware
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http.request import validate_host


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin1")
    return None


def _same_origin(scope: dict[str, Any]) -> bool:
    origin = _header(scope, b"origin")
    if not origin:
        return False
    host = urlparse(origin).hostname or ""
    return validate_host(host, settings.ALLOWED_HOSTS)


@database_sync_to_async
def _user_for_token(token: str) -> Any:
    result = authenticate_by_x_session_token(token)
    if result is None or result.user is None or not result.user.is_active:
        return AnonymousUser()
    return result.user


class SessionTokenAuthMiddleware(BaseMiddleware):
    """Sets scope["user"] from `X-Session-Token` when the handshake carries one."""

    async def __call__(self, scope, receive, send):
        token = _header(scope, b"x-session-token")
        if token:
            scope = dict(scope, user=await _user_for_token(token))
        elif not _same_origin(scope):
            scope = dict(scope, user=AnonymousUser())
        return await super().__call__(scope, receive, send)


def WebSocketAuthMiddlewareStack(inner):
    """Cookie session auth first, then the token (which wins) and the Origin check on top."""
    return CookieMiddleware(SessionMiddleware(AuthMiddleware(SessionTokenAuthMiddleware(inner))))
