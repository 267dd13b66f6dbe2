"""Firebase Cloud Messaging's HTTP v1 API: pushing one notification to one app's token.

Authorised as the site's service account (FCM_CREDENTIALS: the JSON key file Google gives, or
its path): a JWT signed with its RSA key is exchanged at the account's `token_uri` for an access
token (OAuth 2.0 JWT bearer, RFC 7523), kept until a minute before it expires. The messages go to
`{FCM_BASE_URL}/v1/projects/{project_id}/messages:send`; both URLs are settings (the key file's
`token_uri`, FCM_BASE_URL), so the tests talk to a local stand-in.

Sent with httpx (app_push's client: webpush.push_client), as every push is.

An FCM answer, as app_push reads it: 200 delivered; 404 (UNREGISTERED) or 403
(SENDER_ID_MISMATCH) the token is gone or not ours; 401 the access token was refused (made anew,
tried again); 429 and 5xx tried again later. Of an error's body only its code is read
(`fcm_error_code`), which the device's last failure keeps: its `message` may quote the request
(the token, the payload's values), so it is never kept.
"""

from __future__ import annotations

import base64
import functools
import json
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
# The shape of FCM's error codes ("UNREGISTERED", "QUOTA_EXCEEDED") and the API's statuses
# ("INVALID_ARGUMENT"): anything else in their place is not kept.
ERROR_CODE = re.compile(r"[A-Z][A-Z_]{0,63}")
FCM_ERROR_TYPE = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
TOKEN_LIFETIME = 3600
TOKEN_MARGIN = 60  # an access token is made anew this long before it expires


@dataclass(frozen=True)
class Credentials:
    project_id: str
    client_email: str
    private_key: rsa.RSAPrivateKey
    token_uri: str


def fcm_credentials() -> Credentials | None:
    """The service account of FCM_CREDENTIALS, or None when it is not set (no FCM)."""
    configured = settings.FCM_CREDENTIALS
    return _credentials(configured) if configured else None


@functools.lru_cache(maxsize=4)
def _credentials(configured: str) -> Credentials:
    text = configured if configured.lstrip().startswith("{") else Path(configured).read_text()
    try:
        account = json.loads(text)
        key = serialization.load_pem_private_key(account["private_key"].encode(), password=None)
        if not isinstance(key, rsa.RSAPrivateKey):
            raise ValueError("not an RSA key")
        return Credentials(
            project_id=account["project_id"],
            client_email=account["client_email"],
            private_key=key,
            token_uri=account["token_uri"],
        )
    except (ValueError, KeyError, TypeError) as error:
        raise ImproperlyConfigured(
            "FCM_CREDENTIALS is not a service account's JSON key (project_id, client_email, "
            "private_key, token_uri)"
        ) from error


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _assertion(credentials: Credentials, now: int) -> str:
    header = _b64url(json.dumps({"alg": "RS256", "typ": "JWT"}).encode())
    claims = _b64url(
        json.dumps(
            {
                "iss": credentials.client_email,
                "scope": SCOPE,
                "aud": credentials.token_uri,
                "iat": now,
                "exp": now + TOKEN_LIFETIME,
            }
        ).encode()
    )
    signature = credentials.private_key.sign(
        f"{header}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256()
    )
    return f"{header}.{claims}.{_b64url(signature)}"


_tokens: dict[str, tuple[str, float]] = {}
_tokens_lock = threading.Lock()


def fcm_access_token(client: httpx.Client, credentials: Credentials) -> str:
    """An access token for `credentials`, kept per process until shortly before it expires."""
    with _tokens_lock:
        kept = _tokens.get(credentials.client_email)
        if kept is not None and kept[1] > time.time():
            return kept[0]
    now = int(time.time())
    response = client.post(
        credentials.token_uri,
        data={
            "grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
            "assertion": _assertion(credentials, now),
        },
    )
    response.raise_for_status()
    body = response.json()
    expires = now + int(body.get("expires_in", TOKEN_LIFETIME)) - TOKEN_MARGIN
    with _tokens_lock:
        _tokens[credentials.client_email] = (body["access_token"], expires)
    return body["access_token"]


def fcm_token_forget(credentials: Credentials) -> None:
    """The access token was refused: make a new one next time."""
    with _tokens_lock:
        _tokens.pop(credentials.client_email, None)


def fcm_message(*, token: str, payload: dict[str, Any], high: bool, ttl: int) -> dict[str, Any]:
    """The HTTP v1 message of one push: shown by the system, with the link for the app."""
    return {
        "message": {
            "token": token,
            "notification": {"title": payload["title"], "body": payload["body"]},
            "data": {
                "url": payload["url"],
                "tag": payload["tag"],
                "notification": str(payload["notification"]),
            },
            "android": {
                "priority": "high" if high else "normal",
                "collapse_key": payload["tag"],
                "ttl": f"{ttl}s",
                "notification": {"tag": payload["tag"]},
            },
        }
    }


def fcm_send(
    client: httpx.Client, credentials: Credentials, message: dict[str, Any]
) -> httpx.Response:
    """POST one message; the answer (a 401 forgets the access token)."""
    url = f"{settings.FCM_BASE_URL.rstrip('/')}/v1/projects/{credentials.project_id}/messages:send"
    response = client.post(
        url,
        json=message,
        headers={"Authorization": f"Bearer {fcm_access_token(client, credentials)}"},
    )
    if response.status_code == 401:
        fcm_token_forget(credentials)
    return response


def fcm_error_code(response: httpx.Response) -> str | None:
    """FCM's code for a refused message: its `FcmError` detail's `errorCode` ("UNREGISTERED",
    "QUOTA_EXCEEDED"), else the API's `status` ("UNAVAILABLE"); None without one."""
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        return None
    if not isinstance(error, dict):
        return None
    details = error.get("details")
    codes = [
        detail.get("errorCode")
        for detail in (details if isinstance(details, list) else [])
        if isinstance(detail, dict) and detail.get("@type") == FCM_ERROR_TYPE
    ]
    for code in [*codes, error.get("status")]:
        if isinstance(code, str) and ERROR_CODE.fullmatch(code):
            return code
    return None
