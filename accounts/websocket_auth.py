"""Who opens a WebSocket: the browser's session cookie, or an app's `X-Session-Token` header.

The cookie counts only when the handshake comes from our own pages: its Origin must be the origin
the socket was opened on (scheme, host and port of the handshake's Host; `ws` is `http` and `wss` is
`https`), or one of `CSRF_TRUSTED_ORIGINS`, so that another site cannot open a socket with a
visitor's cookie. Apps send no cookie and authenticate with the token instead.

A credential that is presented but refused (an inactive account, a cookie from a foreign origin)
sets `scope["auth_refused"]`, so the consumers can close with 4403 rather than 4401.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from allauth.headless.internal.sessionkit import authenticate_by_x_session_token
from channels.auth import AuthMiddleware
from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from channels.sessions import CookieMiddleware, SessionMiddleware
from django.conf import settings
from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.auth.models import AnonymousUser
from django.http.request import split_domain_port, validate_host
from django.utils.http import is_same_domain

DEFAULT_PORTS = {"http": 80, "https": 443}

# Why a presented credential was refused (scope["auth_refused"]).
INACTIVE = "inactive"
FOREIGN_ORIGIN = "foreign_origin"


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin1")
    return None


def _origin_tuple(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an origin, the default port filled in; None if it is not one."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme]


def _is_secure(scope: dict[str, Any]) -> bool:
    """As Django's `request.is_secure()`: the scheme, or the trusted proxy header."""
    proxy_header = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy_header:
        name, secure_value = proxy_header
        header = name.removeprefix("HTTP_").replace("_", "-").lower().encode("latin1")
        value = _header(scope, header)
        if value is not None:
            return value.split(",", 1)[0].strip() == secure_value
    return scope.get("scheme") in {"wss", "https"}


def _host(scope: dict[str, Any]) -> str | None:
    """The handshake's host as Django's `request.get_host()` takes it (before validation)."""
    if settings.USE_X_FORWARDED_HOST:
        forwarded = _header(scope, b"x-forwarded-host")
        if forwarded:
            return forwarded.split(",", 1)[0].strip()
    return _header(scope, b"host")


def _trusted_origin(origin: str) -> bool:
    """Whether `origin` is one of CSRF_TRUSTED_ORIGINS (with Django's `*.` subdomain patterns)."""
    wanted = _origin_tuple(origin)
    if wanted is None:
        return False
    for trusted in settings.CSRF_TRUSTED_ORIGINS:
        parts = urlsplit(trusted)
        if parts.netloc.startswith("*"):
            if parts.scheme.lower() == wanted[0] and is_same_domain(
                urlsplit(origin.strip()).netloc.lower(), parts.netloc[1:].lower()
            ):
                return True
        elif _origin_tuple(trusted) == wanted:
            return True
    return False


def same_origin(scope: dict[str, Any]) -> bool:
    """Whether the handshake's Origin may send the session cookie (Django's CSRF Origin rule)."""
    origin = _header(scope, b"origin")
    if not origin:
        return False
    if _trusted_origin(origin):
        return True
    wanted = _origin_tuple(origin)
    if wanted is None:
        return False
    host = _host(scope)
    if host is None:
        # Browsers always send Host, so only non-browser clients (which could send any Origin
        # anyway) get here, such as channels' WebsocketCommunicator in tests: fall back to the
        # host name alone.
        return validate_host(wanted[1], settings.ALLOWED_HOSTS)
    domain, _ = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return False
    scheme = "https" if _is_secure(scope) else "http"
    return _origin_tuple(f"{scheme}://{host}") == wanted


@database_sync_to_async
def _user_for_token(token: str) -> tuple[Any, str | None]:
    result = authenticate_by_x_session_token(token)
    if result is None:
        return AnonymousUser(), None
    if result.user is None or not result.user.is_active:
        return AnonymousUser(), INACTIVE if _session_user_is_inactive(result.session) else None
    return result.user, None


def _session_user_is_inactive(session: Any) -> bool:
    """Whether the session names a user that exists but is inactive (Django then sees nobody)."""
    user_id = session.get(SESSION_KEY) if session is not None else None
    if user_id is None:
        return False
    model = get_user_model()
    try:
        pk = model._meta.pk.to_python(user_id)
    except Exception:
        return False
    return model._default_manager.filter(pk=pk, is_active=False).exists()


class SessionTokenAuthMiddleware(BaseMiddleware):
    """Sets scope["user"] from `X-Session-Token` when the handshake carries one; otherwise keeps the
    cookie's user only if the Origin is ours."""

    async def __call__(self, scope, receive, send):
        token = _header(scope, b"x-session-token")
        refused = None
        if token:
            user, refused = await _user_for_token(token)
        else:
            user = scope.get("user") or AnonymousUser()
            if (
                not user.is_authenticated
                and _header(scope, b"cookie")
                and await database_sync_to_async(_session_user_is_inactive)(scope.get("session"))
            ):
                refused = INACTIVE
            if (user.is_authenticated or refused) and not same_origin(scope):
                user, refused = AnonymousUser(), FOREIGN_ORIGIN
        scope = dict(scope, user=user, auth_refused=refused)
        return await super().__call__(scope, receive, send)


def WebSocketAuthMiddlewareStack(inner):
    """Cookie session auth first, then the token (which wins) and the Origin check on top."""
    return CookieMiddleware(SessionMiddleware(AuthMiddleware(SessionTokenAuthMiddleware(inner))))
