"""Apple's push notification service (the APNs provider API): pushing one notification to one
app's device token, over HTTP/2 as Apple requires (httpx with h2).

Authorised with a provider token: a JWT signed (ES256) with the team's APNs key (APNS_KEY, the
`.p8` file's text or path, with APNS_KEY_ID and APNS_TEAM_ID), made anew every TOKEN_RENEW
seconds (Apple refuses one older than an hour, and one made more often than every 20 minutes).
Messages go to `{APNS_BASE_URL}/3/device/<token>` (the sandbox's
`https://api.sandbox.push.apple.com` for development builds; a local stand-in in the tests).

An APNs answer, as app_push reads it: 200 delivered; 410 (Unregistered) or 400 BadDeviceToken
the token is gone; 403 with an expired or invalid provider token: made anew and tried again; 429
and 5xx tried again later. The reason, a word of Apple's list ("BadTopic", "TooManyRequests"),
is what the device's last failure keeps of the answer.
"""

from __future__ import annotations

import base64
import functools
import json
import re
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

TOKEN_RENEW = 40 * 60
GONE_REASONS = frozenset({"BadDeviceToken", "Unregistered", "DeviceTokenNotForTopic"})
TOKEN_REASONS = frozenset({"ExpiredProviderToken", "InvalidProviderToken"})
# The shape of APNs' reasons; anything else in their place is not kept.
REASON = re.compile(r"[A-Za-z]{1,64}")


def apns_configured() -> bool:
    return bool(settings.APNS_KEY and settings.APNS_KEY_ID and settings.APNS_TEAM_ID)


@functools.lru_cache(maxsize=4)
def _key(configured: str) -> ec.EllipticCurvePrivateKey:
    text = configured if "-----BEGIN" in configured else Path(configured).read_text()
    try:
        key = serialization.load_pem_private_key(text.replace("\\n", "\n").encode(), password=None)
    except ValueError as error:
        raise ImproperlyConfigured("APNS_KEY is not an APNs key (.p8)") from error
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise ImproperlyConfigured("APNS_KEY is not an APNs key (P-256)")
    return key


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


_token: dict[tuple[str, str, str], tuple[str, float]] = {}
_token_lock = threading.Lock()


def apns_provider_token() -> str:
    """The provider token, kept per process for TOKEN_RENEW seconds."""
    ident = (settings.APNS_TEAM_ID, settings.APNS_KEY_ID, settings.APNS_KEY)
    with _token_lock:
        kept = _token.get(ident)
        if kept is not None and kept[1] > time.time():
            return kept[0]
        now = int(time.time())
        header = _b64url(json.dumps({"alg": "ES256", "kid": settings.APNS_KEY_ID}).encode())
        claims = _b64url(json.dumps({"iss": settings.APNS_TEAM_ID, "iat": now}).encode())
        der = _key(settings.APNS_KEY).sign(f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
        r, s = decode_dss_signature(der)
        token = f"{header}.{claims}.{_b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"
        _token[ident] = (token, now + TOKEN_RENEW)
        return token


def apns_token_forget() -> None:
    with _token_lock:
        _token.pop((settings.APNS_TEAM_ID, settings.APNS_KEY_ID, settings.APNS_KEY), None)


def apns_client(timeout: tuple[float, float]) -> httpx.Client:
    """An HTTP/2 client (only: APNs speaks nothing else) for one task's pushes."""
    return httpx.Client(
        http1=False,
        http2=True,
        base_url=settings.APNS_BASE_URL.rstrip("/"),
        timeout=httpx.Timeout(timeout[1], connect=timeout[0]),
        follow_redirects=False,
    )


def apns_request(
    *, payload: dict[str, Any], topic: str, high: bool, ttl: int
) -> tuple[dict[str, str], dict[str, Any]]:
    """The headers and body of one push: an alert with the inbox's text, and the link."""
    headers = {
        "apns-topic": topic,
        "apns-push-type": "alert",
        "apns-priority": "10" if high else "5",
        "apns-expiration": str(int(time.time()) + ttl),
        "apns-collapse-id": payload["tag"],
    }
    body = {
        "aps": {
            "alert": {"title": payload["title"], "body": payload["body"]},
            "thread-id": payload["tag"],
        },
        "url": payload["url"],
        "notification": payload["notification"],
    }
    return headers, body


def apns_send(
    client: httpx.Client, *, token: str, headers: dict[str, str], body: dict[str, Any]
) -> tuple[int, str | None]:
    """POST one push; the status and APNs' reason, if it gave one."""
    response = client.post(
        f"/3/device/{token}",
        headers={**headers, "authorization": f"bearer {apns_provider_token()}"},
        content=json.dumps(body, separators=(",", ":")).encode(),
    )
    reason = None
    if response.status_code != 200:
        try:
            reason = response.json().get("reason")
        except (ValueError, AttributeError):
            reason = None
        if not isinstance(reason, str) or not REASON.fullmatch(reason):
            reason = None
        if response.status_code == 403 and reason in TOKEN_REASONS:
            apns_token_forget()
    return response.status_code, reason
