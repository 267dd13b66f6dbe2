"""Who opens a WebSocket: the browser's session cookie, or an app's `X-Session-Token` header.

Library seam (UPGRADING.md, "django-allauth"): django-allauth==65.22.1. An app's token is looked up
with `allauth.headless.internal.sessionkit.lookup_session` and its user read with
`allauth.core.internal.sessionkit.get_session_user`: headless offers them only inside its own
request flow. Why: 2 queries per socket where allauth's token lookup made 3 (bench/README.md,
"Socket storm").

The cookie counts only when the handshake comes from our own pages: its Origin must be the origin
the socket was opened on (scheme, host and port of the handshake's Host; `ws` is `http` and `wss` is
`https`), or one of `CSRF_TRUSTED_ORIGINS`, so that another site cannot open a socket with a
visitor's cookie. Apps send no cookie and authenticate with the token instead.

A credential that is presented but refused (an inactive account, a cookie from a foreign origin)
sets `scope["auth_refused"]`, so the consumers can close with 4403 rather than 4401.

The lookups (the session, its user) run on the sockets' own threads (greycircle.socket_threads),
in one trip, never on the thread of the process's sync views: a burst of reconnecting sockets
neither waits behind requests nor holds them up. A handshake without a cookie or a token costs no
query at all.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any
from urllib.parse import urlsplit

from allauth.core.internal.sessionkit import get_session_user
from allauth.headless import app_settings as headless_settings
from allauth.headless.internal import sessionkit
from allauth.headless.tokens.strategies.sessions import SessionTokenStrategy
from channels.middleware import BaseMiddleware
from channels.sessions import CookieMiddleware, SessionMiddleware
from django.conf import settings
from django.contrib.auth import (
    BACKEND_SESSION_KEY,
    HASH_SESSION_KEY,
    SESSION_KEY,
    get_user_model,
    load_backend,
)
from django.contrib.auth.models import AnonymousUser
from django.http.request import split_domain_port, validate_host
from django.utils.crypto import constant_time_compare
from django.utils.http import is_same_domain

from greycircle.socket_threads import run_shared

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


def _user_for_token(token: str) -> tuple[Any, str | None]:
    """(user, INACTIVE or None) for an app's session token, as allauth headless authenticates it."""
    strategy = headless_settings.TOKEN_STRATEGY
    if type(strategy) is SessionTokenStrategy:
        # The token is the session key. allauth's strategy asks whether the session exists, then
        # loads it (two queries); loading it alone tells the same (a missing or expired session
        # clears the key).
        session = sessionkit.lookup_session(token)
    else:
        session = strategy.lookup_session(token)
    if session is None:
        return AnonymousUser(), None
    user = get_session_user(session)
    if user is None or not user.is_active:
        return AnonymousUser(), INACTIVE if _session_user_is_inactive(session) else None
    return user, None


def _user_for_cookie(session_key: str) -> tuple[Any, bool]:
    """(user, whether the session names an inactive account) for a session cookie."""
    session = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    user = _session_user(session)
    return user, not user.is_authenticated and _session_user_is_inactive(session)


def _session_user(session: Any) -> Any:
    """The session's user, as `channels.auth.get_user` finds it: nobody unless the session names
    a user of a configured backend whose auth hash still matches (a stale session is flushed)."""
    try:
        user_id = get_user_model()._meta.pk.to_python(session[SESSION_KEY])
        backend_path = session[BACKEND_SESSION_KEY]
    except KeyError:
        return AnonymousUser()
    if backend_path not in settings.AUTHENTICATION_BACKENDS:
        return AnonymousUser()
    user = load_backend(backend_path).get_user(user_id)
    if hasattr(user, "get_session_auth_hash"):
        session_hash = session.get(HASH_SESSION_KEY)
        if not (session_hash and constant_time_compare(session_hash, user.get_session_auth_hash())):
            session.flush()
            user = None
    return user or AnonymousUser()


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


async def _authenticate(scope: dict[str, Any]) -> tuple[Any, str | None]:
    """(user, why a presented credential was refused): the token if there is one (it wins),
    otherwise the session cookie, kept only if the Origin is ours.

    One trip to the sockets' threads, shared by the sockets that present the same credential at
    the same moment (a page's `ws/me/` and game socket); two queries: the session, its user (a
    third, only for a session whose user is not signed in, tells an inactive account). Without a
    credential, no query at all.
    """
    token = _header(scope, b"x-session-token")
    if token:
        return await run_shared(("socket-auth-token", token), _user_for_token, token)
    session_key = scope.get("cookies", {}).get(settings.SESSION_COOKIE_NAME)
    if not session_key:
        return AnonymousUser(), None
    user, inactive = await run_shared(
        ("socket-auth-cookie", session_key), _user_for_cookie, session_key
    )
    refused = INACTIVE if inactive else None
    if (user.is_authenticated or refused) and not same_origin(scope):
        return AnonymousUser(), FOREIGN_ORIGIN
    return user, refused


class SocketAuthMiddleware(BaseMiddleware):
    """Sets scope["user"] (and scope["auth_refused"]) from `X-Session-Token` when the handshake
    carries one; otherwise from the session cookie, if the Origin is ours."""

    async def __call__(self, scope, receive, send):
        user, refused = await _authenticate(scope)
        scope = dict(scope, user=user, auth_refused=refused)
        return await super().__call__(scope, receive, send)


def WebSocketAuthMiddlewareStack(inner):
    """The cookies (and scope["session"], never loaded by the consumers), then who it is for."""
    return CookieMiddleware(SessionMiddleware(SocketAuthMiddleware(inner)))
