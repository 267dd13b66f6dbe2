"""The site's VAPID key (RFC 8292): it signs every push, and its public half is the
`applicationServerKey` browsers subscribe with.

From the setting WEBPUSH_VAPID_PRIVATE_KEY (a P-256 private key: PEM, or its 32 raw bytes in
base64url, as `manage.py push_vapid_keys` prints), or, unset, the site's own: made once and kept
in the database (models.VapidKey), so that it survives restarts and every process of one site
signs with the key the browsers know. Changing the key orphans every subscription: browsers must
subscribe again (push services refuse a push signed by another key).

py-vapid's `Vapid02` (its RFC 8292 signer, public API) is what pywebpush signs with.
"""

from __future__ import annotations

import base64
import functools

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from py_vapid import Vapid02

from greycircle.push.models import VapidKey

# The one row of the embedded site's own key.
OWN_KEY_ID = 1


def b64url(data: bytes) -> str:
    """Base64url without padding, as Web Push writes keys."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """The bytes of base64url `text`, padded or not; ValueError if it is not base64url."""
    body = text.rstrip("=")
    if not body or len(body) % 4 == 1 or not set(body) <= _B64URL:
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))


_B64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def vapid_private_key_new() -> str:
    """A new P-256 private key: its 32 raw bytes in base64url."""
    key = ec.generate_private_key(ec.SECP256R1())
    return b64url(key.private_numbers().private_value.to_bytes(32, "big"))


def public_key_of(private_key: str) -> str:
    """The public key of `private_key` (either form the setting takes), as browsers take it:
    the uncompressed P-256 point (65 bytes) in base64url."""
    return b64url(
        _vapid(private_key).public_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
    )


@functools.lru_cache(maxsize=4)
def _vapid(private_key: str) -> Vapid02:
    text = private_key.strip().replace("\\n", "\n")  # a PEM in one env line
    try:
        if "-----BEGIN" in text:
            key = serialization.load_pem_private_key(text.encode(), password=None)
        else:
            raw = b64url_decode(text)
            if len(raw) != 32:
                raise ValueError("not 32 bytes")
            key = ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())
    except ValueError as error:
        raise ImproperlyConfigured(
            "WEBPUSH_VAPID_PRIVATE_KEY is neither a PEM nor 32 base64url bytes of a P-256 key"
        ) from error
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
        raise ImproperlyConfigured("WEBPUSH_VAPID_PRIVATE_KEY is not a P-256 (prime256v1) key")
    return Vapid02(key)


def _private_key() -> str:
    configured = settings.WEBPUSH_VAPID_PRIVATE_KEY
    if configured:
        return configured
    # The first process to need it makes it; a race between two is settled by the primary key.
    row, _ = VapidKey.objects.get_or_create(
        pk=OWN_KEY_ID, defaults={"private_key": vapid_private_key_new()}
    )
    return row.private_key


def vapid_signer() -> Vapid02:
    """The site's VAPID key, as pywebpush signs with it."""
    return _vapid(_private_key())


def vapid_public_key() -> str:
    """The site's VAPID public key: the browsers' `applicationServerKey` (base64url)."""
    return public_key_of(_private_key())


def vapid_subject() -> str:
    """Who the push services may contact about our pushes (a `mailto:`, RFC 8292 `sub`)."""
    return settings.WEBPUSH_VAPID_SUBJECT
