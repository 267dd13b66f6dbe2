"""A local Web Push service for the tests, standing in for the browsers' push services.

It does what a real one does with a push (RFC 8030): takes the POST at a subscription's
endpoint, checks its VAPID authorisation (RFC 8292: a JWT signed by the key in `k`, for this
service's origin, with a `mailto:` contact, not expired) and, as the browser would, decrypts the
aes128gcm body (RFC 8291) with the subscription's private key and auth secret, which the tests
make as a browser makes them (`PushService.browser`). Each push is recorded, decrypted, before the
answer goes out, so a test that ran the push task can read it at once. It answers 201, or what a
test asks of one endpoint (`answer`: 404, 410, 429, ...).
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from tests.push.local_http import LocalHttpService


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Browser:
    """A browser's side of one subscription: its keys, which only it (and this service, standing
    in for it) can decrypt with."""

    endpoint: str
    private_key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def token(self) -> str:
        return self.endpoint.rsplit("/", 1)[1]

    def subscription(self) -> dict[str, Any]:
        """`PushSubscription.toJSON()`, as the browser hands it to the page."""
        point = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)},
        }


@dataclass(frozen=True)
class Push:
    """One push as the service received it: the browser's token, the headers, the VAPID claims
    and key, and the decrypted message."""

    token: str
    headers: dict[str, str]  # names in lower case
    claims: dict[str, Any]
    vapid_key: str
    message: dict[str, Any]


class PushService(LocalHttpService):
    def __init__(self) -> None:
        self.browsers: dict[str, Browser] = {}
        self.pushes: list[Push] = []
        self.refused: list[str] = []  # pushes that a real service would refuse, and why
        self.answers: dict[str, deque[tuple[int, dict[str, str]]]] = defaultdict(deque)
        super().__init__()

    def browser(self) -> Browser:
        """A new browser subscribed at this service."""
        browser = Browser(endpoint=f"{self.origin}/push/{secrets.token_urlsafe(16)}")
        self.browsers[browser.token] = browser
        return browser

    def answer(self, browser: Browser, *statuses: int, retry_after: str | None = None) -> None:
        """Answer the next pushes to `browser` with `statuses`, in order (then 201 again)."""
        headers = {"Retry-After": retry_after} if retry_after is not None else {}
        for status in statuses:
            self.answers[browser.token].append((status, headers))

    def pushes_to(self, browser: Browser) -> list[Push]:
        return [push for push in self.pushes if push.token == browser.token]

    # --- the server ---------------------------------------------------------------------------

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                status, extra = service._receive(
                    self.path, {k.lower(): v for k, v in self.headers.items()}, body
                )
                self.send_response(status)
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:  # quiet
                pass

        return Handler

    def _receive(self, path: str, headers: dict[str, str], body: bytes):
        token = path.rsplit("/", 1)[1]
        browser = self.browsers.get(token)
        if browser is None or not path.startswith("/push/"):
            return 404, {}
        try:
            claims, key = self._vapid(headers)
            message = self._decrypt(browser, headers, body)
        except (AssertionError, ValueError, KeyError, InvalidSignature) as error:
            with self.lock:
                self.refused.append(f"{type(error).__name__}: {error}")
            return 400, {}
        with self.lock:
            self.pushes.append(
                Push(token=token, headers=headers, claims=claims, vapid_key=key, message=message)
            )
            queued = self.answers[token]
            return queued.popleft() if queued else (201, {})

    def _vapid(self, headers: dict[str, str]) -> tuple[dict[str, Any], str]:
        """The claims and key of a valid RFC 8292 `Authorization: vapid t=..., k=...`."""
        scheme, _, rest = headers["authorization"].partition(" ")
        assert scheme.lower() == "vapid", f"not a vapid authorization: {scheme}"
        parts = dict(item.strip().split("=", 1) for item in rest.split(","))
        header, payload, signature = parts["t"].split(".")
        assert json.loads(unb64url(header)) == {"typ": "JWT", "alg": "ES256"}
        raw = unb64url(signature)
        assert len(raw) == 64, "an ES256 signature is r and s, 32 bytes each"
        public_key = ec.EllipticCurvePublicKey.from_encoded_point(
            ec.SECP256R1(), unb64url(parts["k"])
        )
        public_key.verify(
            encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
            f"{header}.{payload}".encode(),
            ec.ECDSA(hashes.SHA256()),
        )
        claims = json.loads(unb64url(payload))
        assert claims["aud"] == self.origin, f"aud {claims['aud']} is not {self.origin}"
        assert time.time() < claims["exp"] <= time.time() + 24 * 3600, "exp not within a day"
        assert claims["sub"].startswith("mailto:"), "sub is not a mailto:"
        return claims, parts["k"]

    def _decrypt(self, browser: Browser, headers: dict[str, str], body: bytes) -> dict[str, Any]:
        assert headers.get("content-encoding") == "aes128gcm", "not aes128gcm"
        assert int(headers["ttl"]) >= 0
        plaintext = http_ece.decrypt(
            body, private_key=browser.private_key, auth_secret=browser.auth, version="aes128gcm"
        )
        return json.loads(plaintext)
